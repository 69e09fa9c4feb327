// Test support: gzip-compresses bytes with zlib (the gzip wrapper, as `gzip` writes), so tests
// make their gzip'd inputs at run time instead of committing them. Link ZLIB::ZLIB.
#pragma once

#include <zlib.h>

#include <string>
#include <string_view>

namespace fxs::test {

inline std::string gzipBytes(std::string_view data)
{
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return {};
    }
    std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return rc == Z_STREAM_END ? out : std::string();
}

} // namespace fxs::test
