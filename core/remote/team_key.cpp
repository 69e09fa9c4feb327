#include "core/remote/team_key.h"

#include "core/util/file_reader.h"

#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

namespace fxs::remote {

Result<std::string> readKeyFile(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return makeError(ErrorCode::Io, "cannot read the cache key file", path);
    }
    if (!S_ISREG(st.st_mode)) {
        // Said by name (readFile's words), and never opened: a FIFO would block the open.
        Error e = makeError(ErrorCode::Invalid,
                            std::string("refused: the cache key file is not a regular file: it "
                                        "is ") +
                                describeFileType(fileType(path)),
                            path);
        e.expected = "a regular file (mode 0600)";
        e.found = describeFileType(fileType(path));
        return e;
    }
    if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        Error e = makeError(ErrorCode::Invalid,
                            "refused: the cache key file must be a regular file owned by you "
                            "and readable by you only (chmod 600)",
                            path);
        e.expected = "mode 0600 or 0400, owner uid " + std::to_string(::geteuid());
        e.found = std::string("mode ") + mode + ", owner uid " + std::to_string(st.st_uid);
        return e;
    }
    auto text = readFile(path);
    if (!text) {
        return text.error();
    }
    std::string key = std::move(*text);
    while (!key.empty() && (key.back() == '\n' || key.back() == '\r' || key.back() == ' ' ||
                            key.back() == '\t')) {
        key.pop_back();
    }
    if (key.empty()) {
        return makeError(ErrorCode::Invalid, "the cache key file holds no key", path);
    }
    return key;
}

Result<std::optional<std::string>> teamKeyFromEnvironment()
{
    if (const char* k = std::getenv("FXSCOPE_CACHE_KEY"); k && *k) {
        return std::optional<std::string>(k);
    }
    if (const char* f = std::getenv("FXSCOPE_CACHE_KEY_FILE"); f && *f) {
        auto key = readKeyFile(f);
        if (!key) {
            return key.error();
        }
        return std::optional<std::string>(std::move(*key));
    }
    return std::optional<std::string>();
}

} // namespace fxs::remote
