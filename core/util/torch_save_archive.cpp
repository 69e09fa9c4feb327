#include "core/util/torch_save_archive.h"

#include "core/util/diagnostics.h"
#include "core/util/pickle_scan.h"
#include "core/util/strings.h"
#include "core/util/zip_archive.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace fxs {

struct TorchSaveArchive::Impl {
    std::string bytes; // fromBytes: what zip reads (it must outlive it)
    std::optional<ZipArchive> zip;
    std::string label;
    TorchSaveLimits limits;
    std::string root; // "archive/" (torch.save names it after the file), with the slash
    std::string pickle;
    std::uint64_t version = 0;
    std::uint64_t read = 0; // record bytes read so far
};

namespace {

// A version record is a decimal number and a newline; 64 bytes is plenty.
constexpr std::uint64_t kMaxVersionBytes = 64;

Error refused(ErrorCode code, std::string message, std::string where, std::string expected,
              std::string found)
{
    Error e = makeError(code, std::move(message), std::move(where));
    e.expected = std::move(expected);
    e.found = std::move(found);
    return e;
}

Error overCap(const std::string& where, const std::string& what, std::uint64_t bytes,
              std::uint64_t cap)
{
    return refused(ErrorCode::Unsupported,
                   what + " " + formatBytes(bytes) + ", more than the limit of " +
                       formatBytes(cap),
                   where, "at most " + formatBytes(cap) + " (" + std::to_string(cap) + " bytes)",
                   formatBytes(bytes) + " (" + std::to_string(bytes) + " bytes)");
}

// LibTorch's reader takes the folder of the first entry as the archive's root and looks every
// record up under it.
Result<std::string> rootOf(const ZipArchive& zip)
{
    const auto& names = zip.names();
    const auto slash = names.empty() ? std::string::npos : names.front().find('/');
    if (slash == std::string::npos) {
        return refused(ErrorCode::Parse, "not a torch.save archive", zip.path(),
                       "entries in one folder (archive/data.pkl, archive/data/0, ...)",
                       names.empty() ? "an empty archive" : abbreviate(names.front()));
    }
    return names.front().substr(0, slash + 1);
}

Result<std::uint64_t> readVersion(const ZipArchive& zip, const std::string& root)
{
    std::string entry = root + ".data/version";
    if (!zip.contains(entry)) {
        entry = root + "version";
    }
    auto text = zip.read(entry, kMaxVersionBytes);
    if (!text.ok()) {
        return text.error();
    }
    const std::string digits(trim(*text));
    std::uint64_t version = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
        return refused(ErrorCode::Parse, "unreadable archive version", zip.path() + "!" + entry,
                       "a decimal number", abbreviate(*text));
    }
    return version;
}

} // namespace

TorchSaveArchive::TorchSaveArchive(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
TorchSaveArchive::TorchSaveArchive(TorchSaveArchive&&) noexcept = default;
TorchSaveArchive& TorchSaveArchive::operator=(TorchSaveArchive&&) noexcept = default;
TorchSaveArchive::~TorchSaveArchive() = default;

Result<TorchSaveArchive> TorchSaveArchive::open(const std::string& path, TorchSaveLimits limits)
{
    auto impl = std::make_unique<Impl>();
    auto zip = ZipArchive::open(path);
    if (!zip.ok()) {
        return zip.error();
    }
    impl->zip.emplace(std::move(*zip));
    impl->label = path;
    impl->limits = limits;
    return check(std::move(impl));
}

Result<TorchSaveArchive> TorchSaveArchive::fromBytes(std::string bytes, std::string label,
                                                     TorchSaveLimits limits)
{
    auto impl = std::make_unique<Impl>();
    impl->bytes = std::move(bytes);
    auto zip = ZipArchive::fromView(impl->bytes, label);
    if (!zip.ok()) {
        return zip.error();
    }
    impl->zip.emplace(std::move(*zip));
    impl->label = std::move(label);
    impl->limits = limits;
    return check(std::move(impl));
}

Result<TorchSaveArchive> TorchSaveArchive::check(std::unique_ptr<Impl> impl)
{
    const ZipArchive& zip = *impl->zip;
    if (auto declared = zip.checkDeclaredSizes(impl->limits.maxTotalBytes); !declared.ok()) {
        return declared.error();
    }
    auto root = rootOf(zip);
    if (!root.ok()) {
        return root.error();
    }
    impl->root = std::move(*root);
    const std::string entry = impl->root + "data.pkl";
    auto pickle = zip.read(entry, impl->limits.maxTotalBytes);
    if (!pickle.ok()) {
        return pickle.error();
    }
    if (const auto fault = findPickleFault(*pickle)) {
        return refused(ErrorCode::Parse, "pickle " + entry + ": " + describe(*fault),
                       zip.path() + "!" + entry, "a pickle as torch.save writes it",
                       describe(*fault));
    }
    auto version = readVersion(zip, impl->root);
    if (!version.ok()) {
        return version.error();
    }
    impl->pickle = std::move(*pickle);
    impl->version = *version;
    return TorchSaveArchive(std::move(impl));
}

const std::string& TorchSaveArchive::label() const { return m_impl->label; }
const std::string& TorchSaveArchive::pickle() const { return m_impl->pickle; }
std::uint64_t TorchSaveArchive::version() const { return m_impl->version; }
const TorchSaveLimits& TorchSaveArchive::limits() const { return m_impl->limits; }

Result<std::string> TorchSaveArchive::readRecord(const std::string& key)
{
    const ZipArchive& zip = *m_impl->zip;
    const std::string entry = m_impl->root + "data/" + key;
    const auto size = zip.size(entry);
    if (!size) {
        return refused(ErrorCode::Invalid,
                       "the pickle names storage '" + abbreviate(key) +
                           "', which the archive does not hold",
                       zip.path() + "!" + entry, "an entry " + entry, "none");
    }
    const std::uint64_t cap = m_impl->limits.maxTotalBytes;
    if (*size > cap - std::min(cap, m_impl->read)) {
        return overCap(zip.path() + "!" + entry,
                       "the storages the pickle reads (a record named again counts again) take",
                       m_impl->read + *size, cap);
    }
    auto bytes = zip.read(entry, cap);
    if (bytes.ok()) {
        m_impl->read += bytes->size();
    }
    return bytes;
}

} // namespace fxs
