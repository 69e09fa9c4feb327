#include "core/io/zip_archive.h"

#include <zip.h>

#include <algorithm>

namespace fxs::io {

struct ZipArchive::Impl {
    zip_t* zip = nullptr;
    std::string path;
    std::string bytes; // fromBytes: the buffer libzip reads (it must outlive zip); fromView: empty
    std::vector<std::string> names;

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

} // namespace

ZipArchive::ZipArchive(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
ZipArchive::ZipArchive(ZipArchive&&) noexcept = default;
ZipArchive& ZipArchive::operator=(ZipArchive&&) noexcept = default;
ZipArchive::~ZipArchive() = default;

Result<ZipArchive> ZipArchive::open(const std::string& path)
{
    int code = 0;
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->zip = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (impl->zip == nullptr) {
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
    return ZipArchive(std::move(impl));
}

const std::string& ZipArchive::path() const { return m_impl->path; }
const std::vector<std::string>& ZipArchive::names() const { return m_impl->names; }

bool ZipArchive::contains(std::string_view name) const
{
    return std::find(m_impl->names.begin(), m_impl->names.end(), name) != m_impl->names.end();
}

std::optional<std::uint64_t> ZipArchive::size(std::string_view name) const
{
    zip_stat_t st;
    zip_stat_init(&st);
    if (!contains(name) ||
        zip_stat(m_impl->zip, std::string(name).c_str(), ZIP_FL_ENC_RAW, &st) != 0 ||
        (st.valid & ZIP_STAT_SIZE) == 0) {
        return std::nullopt;
    }
    return st.size;
}

Result<std::string> ZipArchive::read(std::string_view name, std::uint64_t maxBytes) const
{
    const std::string where = m_impl->path + "!" + std::string(name);
    const auto bytes = size(name);
    if (!bytes) {
        Error e = makeError(ErrorCode::Invalid, "the archive has no such entry", where);
        e.expected = "an entry named " + std::string(name);
        e.found = "none (" + std::to_string(m_impl->names.size()) + " entries)";
        return e;
    }
    if (*bytes > maxBytes) {
        Error e = makeError(ErrorCode::Unsupported, "archive entry too large", where);
        e.expected = "at most " + std::to_string(maxBytes) + " bytes";
        e.found = std::to_string(*bytes) + " bytes";
        return e;
    }
    zip_file_t* file = zip_fopen(m_impl->zip, std::string(name).c_str(), ZIP_FL_ENC_RAW);
    if (file == nullptr) {
        return damaged(where, zip_strerror(m_impl->zip));
    }
    std::string out(static_cast<std::size_t>(*bytes), '\0');
    std::uint64_t got = 0;
    while (got < *bytes) {
        const zip_int64_t n = zip_fread(file, out.data() + got, *bytes - got);
        if (n <= 0) {
            std::string why = n < 0 ? zip_file_strerror(file) : "the entry ends early";
            zip_fclose(file);
            return damaged(where, why + " after " + std::to_string(got) + " of " +
                                      std::to_string(*bytes) + " bytes");
        }
        got += static_cast<std::uint64_t>(n);
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

} // namespace fxs::io
