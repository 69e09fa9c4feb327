// gzip inflation with a cap on the inflated size, for the file reader's transparent `.gz`
// support (TORCH_TRACE logs and printed graphs are often kept gzip'd). Not a general
// compression API: it only inflates, and only gzip streams (one or several members).
// Memory follows what is kept, never what a stream claims: output past the cap is counted in
// a small buffer and dropped, so a bomb is refused at the cap having held a few hundred KiB.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace fxs {

// True when bytes start with the gzip magic 1f 8b.
bool isGzip(std::string_view bytes);

enum class GunzipMode {
    Whole, // compressed is the whole stream: truncation is an error, so is output over the cap
    Head,  // compressed may be the first bytes of a stream: the first maxBytes inflated bytes
};

// Inflates a gzip stream (concatenated members included, empty ones too; bytes after the last
// member that are not another member are ignored, as gzip does), at most maxBytes of output.
// Whole: streams up to 64 MiB are inflated once; larger ones are counted first (nothing kept),
// refused at maxBytes + 1, and inflated a second time into a buffer of their exact size.
// Errors name `name`: Parse for corrupt or truncated data, Unsupported when the output would
// exceed maxBytes (Whole), Runtime when memory runs out. Never throws.
Result<std::string> gunzip(std::string_view compressed, const std::string& name,
                           std::size_t maxBytes, GunzipMode mode = GunzipMode::Whole);

// Incremental inflation, for callers that read the compressed bytes in pieces (the file
// reader's head of a file: empty members at its start are read past). Not thread-safe.
class GzipStream {
public:
    // Receives each piece of output; returns false to stop the stream there.
    using Sink = std::function<bool(const char* data, std::size_t size)>;

    explicit GzipStream(std::string name);
    GzipStream(GzipStream&&) noexcept;
    GzipStream& operator=(GzipStream&&) noexcept;
    ~GzipStream();

    // Inflates the next compressed bytes (last: no more follow). Errors: Parse for corrupt
    // data, and for a stream cut short when last is set; Runtime when memory runs out.
    Status feed(std::string_view compressed, bool last, const Sink& sink);
    // The last member ended and nothing but other bytes follow, or the sink stopped it.
    bool finished() const;
    std::uint64_t produced() const; // inflated bytes so far

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs
