#include "core/util/gzip.h"

#include "core/util/strings.h"

#include <zlib.h>

#include <algorithm>
#include <new>
#include <vector>

namespace fxs {

namespace {

// zlib counts in uInt: feed large inputs in slices of at most 1 GiB.
constexpr std::size_t kSlice = std::size_t(1) << 30;
// Output is inflated through a buffer of this size.
constexpr std::size_t kChunk = std::size_t(256) << 10;
// Whole streams up to this size are inflated once; larger ones are counted first.
constexpr std::size_t kInflateOnce = std::size_t(64) << 20;

Error corrupt(const std::string& name, std::string what)
{
    Error e = makeError(ErrorCode::Parse, "corrupt gzip data: " + std::move(what), name);
    e.expected = "a complete gzip stream";
    return e;
}

Error outOfMemory(const std::string& name)
{
    return makeError(ErrorCode::Runtime, "out of memory while inflating gzip data", name);
}

} // namespace

struct GzipStream::Impl {
    std::string name;
    z_stream z{};
    bool ready = false;
    bool between = false;  // a member ended: another may follow
    bool finished = false;
    std::string pending;   // the first byte of what follows a member, when it came alone
    std::uint64_t produced = 0;
    std::vector<char> buffer;

    ~Impl()
    {
        if (ready) {
            inflateEnd(&z);
        }
    }

    // Inflates from `in` until it is used up, a member ends (between is set) or the sink
    // stops; `in` keeps what is left.
    Status run(std::string_view& in, const Sink& sink);
    // After a member: whether another one starts in pending + in.
    void decideNext(std::string_view& in, bool last);
};

GzipStream::GzipStream(std::string name) : m_impl(std::make_unique<Impl>())
{
    m_impl->name = std::move(name);
    m_impl->ready = inflateInit2(&m_impl->z, 15 + 16) == Z_OK; // 15 + 16: gzip wrapper only
}

GzipStream::GzipStream(GzipStream&&) noexcept = default;
GzipStream& GzipStream::operator=(GzipStream&&) noexcept = default;
GzipStream::~GzipStream() = default;

bool GzipStream::finished() const { return m_impl->finished; }
std::uint64_t GzipStream::produced() const { return m_impl->produced; }

Status GzipStream::Impl::run(std::string_view& in, const Sink& sink)
{
    if (buffer.empty()) {
        buffer.resize(kChunk);
    }
    while (true) {
        const std::size_t slice = std::min(kSlice, in.size());
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
        z.avail_in = static_cast<uInt>(slice);
        z.next_out = reinterpret_cast<Bytef*>(buffer.data());
        z.avail_out = static_cast<uInt>(buffer.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        in.remove_prefix(slice - z.avail_in);
        const std::size_t out = buffer.size() - z.avail_out;
        produced += out;
        if (rc == Z_NEED_DICT || rc == Z_DATA_ERROR || rc == Z_STREAM_ERROR) {
            return corrupt(name, z.msg != nullptr ? z.msg : "invalid deflate data");
        }
        if (rc == Z_MEM_ERROR) {
            return outOfMemory(name);
        }
        if (out > 0 && !sink(buffer.data(), out)) {
            finished = true;
            return {};
        }
        if (rc == Z_STREAM_END) {
            between = true;
            return {};
        }
        if (in.empty() && out < buffer.size()) {
            return {}; // more input needed (a full buffer may hold back more output)
        }
    }
}

void GzipStream::Impl::decideNext(std::string_view& in, bool last)
{
    if (pending.size() + in.size() < 2) {
        if (last) {
            finished = true; // one stray byte: ignored, as gzip does
        } else {
            pending.append(in);
            in = {};
        }
        return;
    }
    const char magic[2] = {pending.empty() ? in[0] : pending[0], pending.empty() ? in[1] : in[0]};
    if (!isGzip(std::string_view(magic, 2))) {
        finished = true; // other trailing bytes are ignored, as gzip does
        return;
    }
    inflateReset(&z);
    between = false;
}

Status GzipStream::feed(std::string_view compressed, bool last, const Sink& sink)
{
    Impl& s = *m_impl;
    if (!s.ready) {
        return makeError(ErrorCode::Runtime, "cannot start gzip inflation", s.name);
    }
    while (!s.finished) {
        if (s.between) {
            s.decideNext(compressed, last);
            if (s.between || s.finished) {
                break; // waiting for the next bytes, or done
            }
            if (!s.pending.empty()) {
                std::string_view first = s.pending;
                if (auto st = s.run(first, sink); !st.ok()) {
                    return st;
                }
                s.pending.clear();
            }
        }
        if (compressed.empty()) {
            break;
        }
        if (auto st = s.run(compressed, sink); !st.ok()) {
            return st;
        }
        if (!s.between) {
            break; // input used up inside a member
        }
    }
    if (last && s.between) {
        s.finished = true;
    }
    if (last && !s.finished) {
        return corrupt(s.name, "the data ends before the gzip stream does (truncated)");
    }
    return {};
}

bool isGzip(std::string_view bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

Error tooLarge(const std::string& name, std::size_t maxBytes)
{
    return makeError(ErrorCode::Unsupported,
                     "the gzip data inflates to more than the limit of " + formatBytes(maxBytes),
                     name);
}

Error truncatedAt(Error e, std::size_t compressed)
{
    e.found = formatBytes(compressed) + " of compressed data";
    return e;
}

// Pass one: keeps up to `keep` bytes, counts the rest up to maxBytes + 1 (then stops).
Result<std::string> inflateKeeping(std::string_view compressed, const std::string& name,
                                   std::size_t keep, std::size_t maxBytes, GunzipMode mode,
                                   std::uint64_t& total)
{
    std::string out;
    GzipStream stream(name);
    const auto sink = [&](const char* data, std::size_t n) {
        const std::size_t room = out.size() < keep ? keep - out.size() : 0;
        out.append(data, std::min(n, room));
        return stream.produced() <= maxBytes && (mode == GunzipMode::Whole || out.size() < keep);
    };
    auto fed = stream.feed(compressed, false, sink);
    total = stream.produced();
    if (!fed.ok()) {
        return fed.error();
    }
    if (mode == GunzipMode::Head) {
        return out; // the stream may go on past the bytes given
    }
    if (total > maxBytes) {
        return tooLarge(name, maxBytes);
    }
    if (auto end = stream.feed({}, true, sink); !end.ok()) {
        return truncatedAt(end.error(), compressed.size());
    }
    return out;
}

} // namespace

Result<std::string> gunzip(std::string_view compressed, const std::string& name,
                           std::size_t maxBytes, GunzipMode mode)
{
    try {
        std::uint64_t total = 0;
        const std::size_t keep = mode == GunzipMode::Head ? maxBytes
                                                          : std::min(maxBytes, kInflateOnce);
        auto first = inflateKeeping(compressed, name, keep, maxBytes, mode, total);
        if (!first.ok() || mode == GunzipMode::Head || first->size() == total) {
            return first;
        }
        // Larger than kInflateOnce and within the cap: again, into a buffer of its exact size.
        std::string out;
        out.reserve(static_cast<std::size_t>(total));
        GzipStream stream(name);
        auto again = stream.feed(compressed, true, [&](const char* data, std::size_t n) {
            out.append(data, std::min<std::size_t>(n, total - out.size()));
            return out.size() < total;
        });
        if (!again.ok()) {
            return again.error();
        }
        return out;
    } catch (const std::bad_alloc&) {
        return outOfMemory(name);
    }
}

} // namespace fxs
