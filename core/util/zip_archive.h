// Read-only access to a zip archive through libzip, for the `.pt2` reader, the export weights,
// the torch.save gate (torch_save_archive.h) and the TorchScript archive check: entry names and
// sizes, and entry contents with a size cap, each failure naming the archive and the entry
// (truncated archives, bad CRCs, missing entries, sizes the stored data cannot hold). Not a
// writer. One instance must not be used from two threads at once; separate instances are
// independent.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs {

class ZipArchive {
public:
    // Errors: Io (the file cannot be opened, or it is not a regular file: a FIFO is refused
    // at once, never opened in a way that blocks), Parse (not a zip, or a damaged one: libzip's
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
    // Size of the entry's data as stored (compressed), nullopt when there is no such entry.
    std::optional<std::uint64_t> storedSize(std::string_view name) const;
    // The entry's bytes. Errors: Invalid (no such entry), Unsupported (declared larger than
    // maxBytes: refused before anything is allocated), Parse (damaged data: bad CRC, short
    // read, unknown compression, or a declared size that its stored bytes cannot hold: more
    // than kMaxDeflateRatio times them when deflated, other than them when stored), with
    // where = "archive!entry". Memory follows the data actually inflated, never the declared
    // size alone. spareCapacity: bytes of capacity kept after the data (a parser's padding),
    // so that the caller needs no copy.
    Result<std::string> read(std::string_view name, std::uint64_t maxBytes,
                             std::size_t spareCapacity = 0) const;

    // Every entry's declared size, before any is read: each one possible for its stored data
    // (read's Parse error) and at most maxTotalBytes, and all of them together at most
    // maxTotalBytes (Unsupported naming the entry, or the archive, with the declared size
    // and the cap). For readers that hand the archive to another library (LibTorch allocates
    // what an entry declares before reading it).
    Status checkDeclaredSizes(std::uint64_t maxTotalBytes) const;

    // Deflate's largest expansion (a 258-byte match in about two bits, plus block overheads).
    static constexpr std::uint64_t kMaxDeflateRatio = 1032;

private:
    struct Impl;
    explicit ZipArchive(std::unique_ptr<Impl> impl);
    static Result<ZipArchive> openBuffer(std::unique_ptr<Impl> impl, std::string_view bytes);
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs
