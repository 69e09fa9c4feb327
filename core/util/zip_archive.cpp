#include "core/util/zip_archive.h"

#include "core/util/file_reader.h"
#include "core/util/strings.h"

#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <new>
#include <unordered_map>

namespace fxs {

struct ZipArchive::Impl {
    zip_t* zip = nullptr;
    std::string path;
    std::string bytes; // fromBytes: the buffer libzip reads (it must outlive zip); fromView: empty
    std::vector<std::string> names;
    std::unordered_map<std::string, zip_uint64_t> index; // name -> first entry of that name
    std::uint64_t archiveBytes = 0; // what an entry's stored data must fit in

    ~Impl()
    {
        if (zip != nullptr) {
            zip_discard(zip);
        }
    }
};

namespace {

std::string zipErrorText(int code)
{
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return text;
}

Error damaged(const std::string& where, std::string found)
{
    Error e = makeError(ErrorCode::Parse, "not a readable zip archive", where);
    e.expected = "a zip archive (torch.export.save writes one)";
    e.found = std::move(found);
    return e;
}

Result<std::vector<std::string>> listNames(zip_t* zip, const std::string& path)
{
    const zip_int64_t count = zip_get_num_entries(zip, 0);
    if (count < 0) {
        return damaged(path, "no central directory");
    }
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(count));
    for (zip_int64_t i = 0; i < count; ++i) {
        const char* name = zip_get_name(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
        if (name == nullptr) {
            return damaged(path, "entry " + std::to_string(i) + " has no readable name");
        }
        names.emplace_back(name);
    }
    return names;
}

std::unordered_map<std::string, zip_uint64_t> indexNames(const std::vector<std::string>& names)
{
    std::unordered_map<std::string, zip_uint64_t> index;
    index.reserve(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        index.emplace(names[i], i);
    }
    return index;
}

} // namespace

ZipArchive::ZipArchive(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
ZipArchive::ZipArchive(ZipArchive&&) noexcept = default;
ZipArchive& ZipArchive::operator=(ZipArchive&&) noexcept = default;
ZipArchive::~ZipArchive() = default;

Result<ZipArchive> ZipArchive::open(const std::string& path)
{
    std::uint64_t fileBytes = 0;
    auto fd = openRegularFile(path, fileBytes); // a FIFO is refused here, before it could block
    if (!fd.ok()) {
        return fd.error();
    }
    int code = 0;
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->archiveBytes = fileBytes;
    impl->zip = zip_fdopen(*fd, ZIP_RDONLY | ZIP_CHECKCONS, &code); // owns fd once it succeeds
    if (impl->zip == nullptr) {
        ::close(*fd);
        if (code == ZIP_ER_OPEN || code == ZIP_ER_NOENT || code == ZIP_ER_READ) {
            Error e = makeError(ErrorCode::Io, "cannot open the archive", path);
            e.found = zipErrorText(code);
            return e;
        }
        return damaged(path, zipErrorText(code));
    }
    auto names = listNames(impl->zip, path);
    if (!names.ok()) {
        return names.error();
    }
    impl->names = std::move(*names);
    impl->index = indexNames(impl->names);
    return ZipArchive(std::move(impl));
}

Result<ZipArchive> ZipArchive::fromBytes(std::string bytes, std::string label)
{
    auto impl = std::make_unique<Impl>();
    impl->path = std::move(label);
    impl->bytes = std::move(bytes);
    const std::string_view view = impl->bytes;
    return openBuffer(std::move(impl), view);
}

Result<ZipArchive> ZipArchive::fromView(std::string_view bytes, std::string label)
{
    auto impl = std::make_unique<Impl>();
    impl->path = std::move(label);
    return openBuffer(std::move(impl), bytes);
}

Result<ZipArchive> ZipArchive::openBuffer(std::unique_ptr<Impl> impl, std::string_view bytes)
{
    impl->archiveBytes = bytes.size();
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
    if (source != nullptr) {
        impl->zip = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
        if (impl->zip == nullptr) {
            zip_source_free(source);
        }
    }
    if (impl->zip == nullptr) {
        std::string found = zip_error_strerror(&error);
        zip_error_fini(&error);
        return damaged(impl->path, std::move(found));
    }
    zip_error_fini(&error);
    auto names = listNames(impl->zip, impl->path);
    if (!names.ok()) {
        return names.error();
    }
    impl->names = std::move(*names);
    impl->index = indexNames(impl->names);
    return ZipArchive(std::move(impl));
}

const std::string& ZipArchive::path() const { return m_impl->path; }
const std::vector<std::string>& ZipArchive::names() const { return m_impl->names; }

bool ZipArchive::contains(std::string_view name) const
{
    return m_impl->index.count(std::string(name)) != 0;
}

namespace {

// The entry's directory record (by index: names may repeat), nullopt without one.
std::optional<zip_stat_t> statEntry(zip_t* zip,
                                    const std::unordered_map<std::string, zip_uint64_t>& index,
                                    std::string_view name)
{
    const auto it = index.find(std::string(name));
    zip_stat_t st;
    zip_stat_init(&st);
    if (it == index.end() || zip_stat_index(zip, it->second, ZIP_FL_ENC_RAW, &st) != 0 ||
        (st.valid & ZIP_STAT_SIZE) == 0) {
        return std::nullopt;
    }
    return st;
}

// A declared size that the stored bytes cannot hold: checked before anything is allocated, so
// a few kilobytes that claim gigabytes cost nothing. Empty when the sizes are possible.
std::string impossibleSize(const zip_stat_t& st, std::uint64_t archiveBytes)
{
    if ((st.valid & ZIP_STAT_COMP_SIZE) == 0) {
        return {};
    }
    if (st.comp_size > archiveBytes) {
        return "its stored data is declared as " + formatBytes(st.comp_size) +
               ", more than the whole archive (" + formatBytes(archiveBytes) + ")";
    }
    const bool method = (st.valid & ZIP_STAT_COMP_METHOD) != 0;
    if (method && st.comp_method == ZIP_CM_STORE && st.size != st.comp_size) {
        return "it is stored uncompressed but declares " + formatBytes(st.size) + " from " +
               formatBytes(st.comp_size) + " of data";
    }
    // + 64: a deflate stream's fixed overheads around tiny inputs.
    constexpr std::uint64_t kRatio = ZipArchive::kMaxDeflateRatio;
    const std::uint64_t bound =
        st.comp_size > (UINT64_MAX - 64) / kRatio ? UINT64_MAX : st.comp_size * kRatio + 64;
    if (method && st.comp_method == ZIP_CM_DEFLATE && st.size > bound) {
        return "it declares " + formatBytes(st.size) + ", more than its " +
               formatBytes(st.comp_size) + " of deflated data can hold";
    }
    return {};
}

// Reads an opened entry of `declared` bytes. The buffer grows with the data that arrives (from
// 64 MiB, doubling), so a declared size that lies costs only what is really there; a stored
// entry's declared size was checked against its stored bytes, so it is allocated at once (no
// copies while growing). `spare` bytes of capacity are kept after the data.
Result<std::string> readOpened(zip_file_t* file, const std::string& where, std::uint64_t declared,
                               bool stored, std::size_t spare)
{
    constexpr std::uint64_t kFirstChunk = 64ull << 20;
    std::string out;
    std::uint64_t got = 0;
    const auto grow = [&](std::uint64_t size) {
        out.reserve(static_cast<std::size_t>(size) + spare);
        out.resize(static_cast<std::size_t>(size));
    };
    try {
        grow(stored ? declared : std::min(declared, kFirstChunk));
        while (got < declared) {
            if (got == out.size()) {
                grow(std::min(declared, got * 2));
            }
            const zip_int64_t n = zip_fread(file, out.data() + got, out.size() - got);
            if (n <= 0) {
                std::string why = n < 0 ? zip_file_strerror(file) : "the entry ends early";
                zip_fclose(file);
                return damaged(where, why + " after " + std::to_string(got) + " of " +
                                          std::to_string(declared) + " bytes");
            }
            got += static_cast<std::uint64_t>(n);
        }
    } catch (const std::bad_alloc&) {
        zip_fclose(file);
        return makeError(ErrorCode::Runtime,
                         "not enough memory to read the entry (" + formatBytes(declared) + ")",
                         where);
    }
    // The CRC is checked when the end of the data is read: one more read reports it.
    char probe = 0;
    const zip_int64_t tail = zip_fread(file, &probe, 1);
    std::string why = tail < 0 ? zip_file_strerror(file) : std::string();
    zip_fclose(file);
    if (tail != 0) {
        return damaged(where, tail < 0 ? why : "more data than the directory says");
    }
    return out;
}

} // namespace

std::optional<std::uint64_t> ZipArchive::size(std::string_view name) const
{
    const auto st = statEntry(m_impl->zip, m_impl->index, name);
    return st ? std::optional<std::uint64_t>(st->size) : std::nullopt;
}

std::optional<std::uint64_t> ZipArchive::storedSize(std::string_view name) const
{
    const auto st = statEntry(m_impl->zip, m_impl->index, name);
    if (!st || (st->valid & ZIP_STAT_COMP_SIZE) == 0) {
        return std::nullopt;
    }
    return st->comp_size;
}

Status ZipArchive::checkDeclaredSizes(std::uint64_t maxTotalBytes) const
{
    std::uint64_t total = 0;
    for (zip_uint64_t i = 0; i < m_impl->names.size(); ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(m_impl->zip, i, ZIP_FL_ENC_RAW, &st) != 0 ||
            (st.valid & ZIP_STAT_SIZE) == 0) {
            continue;
        }
        const std::string where = m_impl->path + "!" + m_impl->names[i];
        const bool alone = st.size > maxTotalBytes;
        total += std::min<std::uint64_t>(st.size, maxTotalBytes + 1); // no overflow
        if (alone || total > maxTotalBytes) {
            Error e = makeError(ErrorCode::Unsupported,
                                (alone ? "the entry declares " + formatBytes(st.size)
                                       : "the archive's entries declare " + formatBytes(total) +
                                             " or more together") +
                                    ", more than the limit of " + formatBytes(maxTotalBytes),
                                alone ? where : m_impl->path);
            e.expected = "at most " + formatBytes(maxTotalBytes);
            e.found = formatBytes(alone ? st.size : total);
            return e;
        }
        if (const std::string why = impossibleSize(st, m_impl->archiveBytes); !why.empty()) {
            return damaged(where, why);
        }
    }
    return {};
}

Result<std::string> ZipArchive::read(std::string_view name, std::uint64_t maxBytes,
                                     std::size_t spareCapacity) const
{
    const std::string where = m_impl->path + "!" + std::string(name);
    const auto st = statEntry(m_impl->zip, m_impl->index, name);
    if (!st) {
        Error e = makeError(ErrorCode::Invalid, "the archive has no such entry", where);
        e.expected = "an entry named " + std::string(name);
        e.found = "none (" + std::to_string(m_impl->names.size()) + " entries)";
        return e;
    }
    if (st->size > maxBytes) {
        Error e = makeError(ErrorCode::Unsupported,
                            "archive entry too large: it declares " + formatBytes(st->size) +
                                ", more than the limit of " + formatBytes(maxBytes),
                            where);
        e.expected = "at most " + std::to_string(maxBytes) + " bytes";
        e.found = std::to_string(st->size) + " bytes";
        return e;
    }
    if (const std::string why = impossibleSize(*st, m_impl->archiveBytes); !why.empty()) {
        return damaged(where, why);
    }
    zip_file_t* file = zip_fopen_index(m_impl->zip, st->index, ZIP_FL_ENC_RAW);
    if (file == nullptr) {
        return damaged(where, zip_strerror(m_impl->zip));
    }
    const bool stored = (st->valid & ZIP_STAT_COMP_METHOD) != 0 &&
                        (st->valid & ZIP_STAT_COMP_SIZE) != 0 && st->comp_method == ZIP_CM_STORE;
    return readOpened(file, where, st->size, stored, spareCapacity);
}

} // namespace fxs
