// Read-only access to a zip archive through libzip, for the `.pt2` reader, the export weights
// and the TorchScript nesting check: entry names and sizes, and entry contents with a size cap,
// each failure naming the archive and the entry (truncated archives, bad CRCs, missing entries).
// Not a writer. One instance must not be used from two threads at once; separate instances are
// independent.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::io {

class ZipArchive {
public:
    // Errors: Io (the file cannot be opened), Parse (not a zip, or a damaged one: libzip's
    // reason in `found`).
    static Result<ZipArchive> open(const std::string& path);
    // The same for an archive held in memory (tests, fuzzing); `label` stands for the path.
    static Result<ZipArchive> fromBytes(std::string bytes, std::string label);
    // The same without a copy (a model's weights may be gigabytes): bytes must outlive the
    // archive.
    static Result<ZipArchive> fromView(std::string_view bytes, std::string label);

    ZipArchive(ZipArchive&&) noexcept;
    ZipArchive& operator=(ZipArchive&&) noexcept;
    ~ZipArchive();

    const std::string& path() const;
    // Entry names in central-directory order.
    const std::vector<std::string>& names() const;
    bool contains(std::string_view name) const;
    // Uncompressed size, nullopt when there is no such entry.
    std::optional<std::uint64_t> size(std::string_view name) const;
    // The entry's bytes. Errors: Invalid (no such entry), Unsupported (larger than maxBytes),
    // Parse (damaged data: bad CRC, short read, unknown compression), with where =
    // "archive!entry".
    Result<std::string> read(std::string_view name, std::uint64_t maxBytes) const;

private:
    struct Impl;
    explicit ZipArchive(std::unique_ptr<Impl> impl);
    static Result<ZipArchive> openBuffer(std::unique_ptr<Impl> impl, std::string_view bytes);
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::io
