#include "core/torchscript/archive_check.h"

#include "core/util/zip_archive.h"
#include "core/torchscript/class_constants.h"
#include "core/torchscript/code_nesting.h"
#include "core/util/file_reader.h"
#include "core/util/pickle_scan.h"

namespace fxs::torchscript {
namespace {

// Generated code for a large model runs to a few megabytes per class, and a pickle holds the
// module's structure, not its tensors; far larger is not a module torch saved, and scanning it
// would only cost memory.
constexpr std::uint64_t kMaxScannedEntryBytes = 256ull << 20;

bool endsWith(const std::string& s, std::string_view tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool isCode(const std::string& name)
{
    const bool inCode = name.rfind("code/", 0) == 0 || name.find("/code/") != std::string::npos;
    return inCode && name.size() > 3 && endsWith(name, ".py");
}

// The entry and its position are in the message too: io::loadPaths reports a loader's error
// at the file, not at its `where` (path!entry:line for code, path!entry for pickles).
Error refused(const std::string& message, std::string where, const std::string& expected)
{
    Error e = makeError(ErrorCode::Parse, message, std::move(where));
    e.expected = expected;
    return e;
}

Status checkCode(std::string_view source, const std::string& path, const std::string& entry)
{
    if (const auto deep = findDeepNesting(source)) {
        const std::string at = entry + ":" + std::to_string(deep->line);
        const bool brackets = deep->kind == DeepNesting::Kind::Brackets;
        return refused((brackets ? "brackets nest " : "operators chain ") +
                           std::to_string(deep->depth) + " deep (more than " +
                           std::to_string(brackets ? kMaxBracketDepth : kMaxExpressionDepth) +
                           ") at " + at,
                       path + "!" + at, "code as torch.jit.save writes it (a few levels deep)");
    }
    if (const auto untyped = findUntypedClassConstant(source)) {
        const std::string at = entry + ":" + std::to_string(untyped->line);
        return refused("class constant '" + untyped->name + "' has no type at " + at,
                       path + "!" + at,
                       "class constants as torch.jit.save writes them (name : Final[T] = value)");
    }
    return {};
}

Status checkPickle(std::string_view pickle, const std::string& path, const std::string& entry)
{
    const auto fault = findPickleFault(pickle);
    if (!fault) {
        return {};
    }
    return refused("pickle " + entry + ": " + describe(*fault), path + "!" + entry,
                   "a pickle as torch.jit.save writes it");
}

// LibTorch's zip reader (miniz) starts from the end-of-central-directory record, like libzip;
// without one in the last 64 KB it opens nothing and says so itself.
bool hasEndRecord(std::string_view archive)
{
    constexpr std::size_t kTail = 22 + 65535; // the record and the longest archive comment
    const std::size_t from = archive.size() > kTail ? archive.size() - kTail : 0;
    return archive.find("PK\x05\x06", from) != std::string_view::npos;
}

} // namespace

Status checkArchive(std::string_view archive, const std::string& path)
{
    auto zip = ZipArchive::fromView(archive, path);
    if (!zip.ok() && !hasEndRecord(archive)) {
        return {};
    }
    if (!zip.ok()) {
        // miniz reads archives that libzip finds inconsistent (duplicate names, local headers
        // that disagree with the directory), entries this check would not have seen.
        Error e = makeError(ErrorCode::Parse, "not a loadable TorchScript module", path);
        e.expected = "a zip archive as torch.jit.save writes it";
        const Error& why = zip.error();
        e.found = "a zip archive libzip refuses (" + (why.found.empty() ? why.message : why.found) +
                  ")";
        return e;
    }
    // LibTorch's reader allocates what an entry declares before reading it: tensor records
    // too, which are not scanned below. The same declared-size check as the torch.save gate,
    // under the file cap.
    if (auto declared = zip->checkDeclaredSizes(kDefaultMaxFileBytes); !declared.ok()) {
        return declared;
    }
    for (const auto& name : zip->names()) {
        // *.debug_pkl ends otherwise: LibTorch never sees those (debug_info.h).
        const bool code = isCode(name);
        if (!code && !endsWith(name, ".pkl")) {
            continue;
        }
        auto bytes = zip->read(name, kMaxScannedEntryBytes);
        if (!bytes.ok()) {
            return bytes.error();
        }
        auto checked = code ? checkCode(*bytes, path, name) : checkPickle(*bytes, path, name);
        if (!checked.ok()) {
            return checked;
        }
    }
    return {};
}

} // namespace fxs::torchscript
