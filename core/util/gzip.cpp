#include "core/util/gzip.h"

#include "core/util/strings.h"

#include <zlib.h>

#include <algorithm>
#include <new>

namespace fxs {

namespace {

class Inflater {
public:
    Inflater() { m_ok = inflateInit2(&m_z, 15 + 16) == Z_OK; } // 15 + 16: gzip wrapper only
    ~Inflater()
    {
        if (m_ok) {
            inflateEnd(&m_z);
        }
    }
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;

    bool ok() const { return m_ok; }
    z_stream& z() { return m_z; }

private:
    z_stream m_z{};
    bool m_ok = false;
};

Error corrupt(const std::string& name, std::string what)
{
    Error e = makeError(ErrorCode::Parse, "corrupt gzip data: " + std::move(what), name);
    e.expected = "a complete gzip stream";
    return e;
}

// zlib counts in uInt: feed large inputs and outputs in slices of at most 1 GiB.
constexpr std::size_t kSlice = std::size_t(1) << 30;

} // namespace

bool isGzip(std::string_view bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Result<std::string> gunzip(std::string_view compressed, const std::string& name,
                           std::size_t maxBytes, GunzipMode mode)
{
    Inflater inflater;
    if (!inflater.ok()) {
        return makeError(ErrorCode::Runtime, "cannot start gzip inflation", name);
    }
    z_stream& z = inflater.z();
    std::string out;
    try {
        out.resize(std::min(maxBytes, std::max<std::size_t>(compressed.size() * 4, 4096)));
        std::size_t in = 0;
        std::size_t produced = 0;
        while (true) {
            if (produced == out.size()) {
                if (produced >= maxBytes) {
                    if (mode == GunzipMode::Head) {
                        return out;
                    }
                    return makeError(ErrorCode::Unsupported,
                                     "the gzip data inflates to more than the limit of " +
                                         formatBytes(maxBytes),
                                     name);
                }
                out.resize(std::min(maxBytes, out.size() * 2));
            }
            const std::size_t inChunk = std::min(kSlice, compressed.size() - in);
            const std::size_t outChunk = std::min(kSlice, out.size() - produced);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + in));
            z.avail_in = static_cast<uInt>(inChunk);
            z.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
            z.avail_out = static_cast<uInt>(outChunk);
            const int rc = inflate(&z, Z_NO_FLUSH);
            in += inChunk - z.avail_in;
            produced += outChunk - z.avail_out;
            if (rc == Z_STREAM_END) {
                // Another member may follow (cat a.gz b.gz); other trailing bytes are ignored,
                // as gzip itself does.
                if (!isGzip(compressed.substr(in))) {
                    break;
                }
                inflateReset(&z);
            } else if (rc == Z_NEED_DICT || rc == Z_DATA_ERROR || rc == Z_STREAM_ERROR) {
                return corrupt(name, z.msg != nullptr ? z.msg : "invalid deflate data");
            } else if (rc == Z_MEM_ERROR) {
                return makeError(ErrorCode::Runtime, "out of memory while inflating gzip data",
                                 name);
            } else if (z.avail_out > 0 && in == compressed.size()) {
                if (mode == GunzipMode::Head) {
                    break; // only the first bytes of the stream were given
                }
                Error e = corrupt(name, "the data ends before the gzip stream does (truncated)");
                e.found = formatBytes(compressed.size()) + " of compressed data";
                return e;
            }
        }
        out.resize(produced);
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::Runtime, "out of memory while inflating gzip data", name);
    }
    return out;
}

} // namespace fxs
