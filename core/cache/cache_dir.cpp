#include "core/cache/cache_dir.h"

#include "core/cache/cache_store.h"
#include "core/cache/database_file.h"
#include "core/util/file_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace fxs::cache::detail {
namespace {

// Deeper than any build directory a compiler writes; bounds the descriptors a removal holds.
constexpr int kMaxRemoveDepth = 64;
constexpr std::size_t kMaxMarkerBytes = 4096;

Error markerWriteError(int err, const std::string& path)
{
    const bool full = err == ENOSPC || err == EDQUOT || err == EFBIG;
    return makeError(ErrorCode::Io,
                     std::string(full ? "disk full: " : "") + "cannot write the cache marker (" +
                         std::strerror(err) + ")",
                     path);
}

std::string markerPath(const std::string& dir) { return dir + "/" + std::string(kMarkerName); }

bool allOf(std::string_view s, const char* set)
{
    return !s.empty() && s.find_first_not_of(set) == std::string_view::npos;
}

// A random id for the marker (not a secret: it names one cache, e.g. in a bug report).
std::string randomId()
{
    unsigned char bytes[16] = {};
    if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
        const auto t = std::chrono::steady_clock::now().time_since_epoch().count();
        std::memcpy(bytes, &t, sizeof t);
        const pid_t pid = ::getpid();
        std::memcpy(bytes + sizeof t, &pid, sizeof pid);
    }
    std::string hex;
    for (unsigned char b : bytes) {
        char buf[3];
        std::snprintf(buf, sizeof buf, "%02x", b);
        hex += buf;
    }
    return hex;
}

// Files the database itself makes, and a marker being written: a directory holding only these
// is as good as empty.
bool isDatabaseName(const std::string& name, const std::string& db)
{
    const std::string markerTmp = std::string(kMarkerName) + ".tmp";
    return name == db || name == db + "-wal" || name == db + "-shm" || name == db + "-journal" ||
           name.rfind(db + ".corrupt-", 0) == 0 || name.rfind(markerTmp, 0) == 0;
}

Status checkOwned(const struct stat& st, const std::string& path, const char* what)
{
    if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return makeError(ErrorCode::Invalid,
                         std::string("refusing to use ") + what +
                             " owned by another user or writable by group or others",
                         path);
    }
    return {};
}

// The marker's state: Marked, absent (nullopt), or an error when something else has its name.
Result<bool> readMarker(const std::string& dir)
{
    const std::string path = markerPath(dir);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            return false;
        }
        return makeError(ErrorCode::Invalid,
                         std::string("the cache marker is not a file fxscope wrote (") +
                             (errno == ELOOP ? "a symbolic link" : std::strerror(errno)) +
                             "): refusing to use the directory",
                         path);
    }
    struct stat st {};
    char buf[kMaxMarkerBytes];
    ssize_t n = -1;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        n = ::read(fd, buf, sizeof buf);
    }
    ::close(fd);
    const std::string_view text(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    if (n < 0 || !S_ISREG(st.st_mode) || text.substr(0, text.find('\n')) != kMarkerFormat) {
        Error e = makeError(ErrorCode::Invalid,
                            "the cache marker is not fxscope's: refusing to use the directory",
                            path);
        e.expected = "a regular file starting '" + std::string(kMarkerFormat) + "'";
        e.found = S_ISREG(st.st_mode) ? "other contents" : "not a regular file";
        return e;
    }
    if (Status s = checkOwned(st, path, "a cache marker"); !s) {
        return s.error();
    }
    return true;
}

} // namespace

std::vector<std::string> namesIn(int dirFd, bool& ok)
{
    std::vector<std::string> out;
    const int fd = ::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* d = fd >= 0 ? ::fdopendir(fd) : nullptr;
    ok = d != nullptr;
    if (!d) {
        if (fd >= 0) {
            ::close(fd);
        }
        return out;
    }
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") {
            out.push_back(name);
        }
    }
    ::closedir(d);
    return out;
}


Error notACacheDirectory(const std::string& dir, const std::string& why)
{
    Error e = makeError(ErrorCode::Invalid,
                        "refusing to use this directory for the cache: " + why +
                            "; fxscope writes and deletes files only in a directory it created "
                            "(marked by " + std::string(kMarkerName) +
                            "): give a new or empty directory",
                        dir);
    e.expected = "a new or empty directory, or one holding " + std::string(kMarkerName);
    e.found = "a directory with other files and no marker";
    return e;
}

Result<DirState> inspectDirectory(const std::string& dir, const std::string& databaseName)
{
    // The listing comes before the marker is read. Another fxscope process claiming the same
    // new directory writes its marker before anything else, so whatever of its files the
    // listing saw, the marker read afterwards sees too (read the other way round, a claim
    // between the two steps made the directory look foreign).
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return makeError(ErrorCode::Io, std::string("cannot read the cache directory: ") +
                                            std::strerror(errno), dir);
    }
    bool ok = false;
    const auto names = namesIn(fd, ok);
    ::close(fd);
    if (!ok) {
        return makeError(ErrorCode::Io, "cannot list the cache directory", dir);
    }
    auto marked = readMarker(dir);
    if (!marked) {
        return marked.error();
    }
    if (*marked) {
        return DirState::Marked;
    }
    for (const auto& n : names) {
        if (!isDatabaseName(n, databaseName)) {
            return DirState::Unmarked;
        }
    }
    return DirState::Empty;
}

Status writeMarker(const std::string& dir)
{
    const std::string path = markerPath(dir);
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    const std::string text = std::string(kMarkerFormat) + "\nid " + randomId() +
                             "\nThis directory is fxscope's artifact cache. fxscope deletes only "
                             "files it created here.\n";
    (void)::unlink(tmp.c_str()); // one a dead process of the same pid left
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        return markerWriteError(errno, path);
    }
    const ssize_t n = ::write(fd, text.data(), text.size());
    const int err = n < 0 ? errno : ENOSPC;
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size())) {
        ::unlink(tmp.c_str());
        return markerWriteError(err, path);
    }
    // link(2) never replaces: of two processes claiming the directory at once, one marker wins.
    const bool linked = ::link(tmp.c_str(), path.c_str()) == 0 || errno == EEXIST;
    const int linkErr = errno;
    ::unlink(tmp.c_str());
    if (!linked) {
        return markerWriteError(linkErr, path);
    }
    return requireMarker(dir);
}

Status requireMarker(const std::string& dir)
{
    auto marked = readMarker(dir);
    if (!marked) {
        return marked.error();
    }
    if (!*marked) {
        return notACacheDirectory(dir, "it holds no " + std::string(kMarkerName));
    }
    return {};
}

Result<int> openOwnedSubdir(const std::string& dir, const std::string& name, bool create)
{
    const std::string path = dir + "/" + name;
    const int parent = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) {
        return makeError(ErrorCode::Io, std::string("cannot open the cache directory: ") +
                                            std::strerror(errno), dir);
    }
    if (create && ::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST) {
        const int err = errno;
        ::close(parent);
        return makeError(ErrorCode::Io, std::string("cannot create: ") + std::strerror(err), path);
    }
    const int fd = ::openat(parent, name.c_str(),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    ::close(parent);
    if (fd < 0) {
        if (err == ENOENT) {
            return makeError(ErrorCode::Io, "no such directory", path);
        }
        return makeError(ErrorCode::Invalid,
                         std::string("refusing to use a cache folder that is ") +
                             (err == ELOOP || err == ENOTDIR
                                  ? "a symbolic link or not a directory (the cache never "
                                    "follows links inside its directory)"
                                  : std::strerror(err)),
                         path);
    }
    struct stat st {};
    Status owned = ::fstat(fd, &st) == 0
                       ? checkOwned(st, path, "a cache folder")
                       : Status(makeError(ErrorCode::Io, std::strerror(errno), path));
    if (!owned) {
        ::close(fd);
        return owned.error();
    }
    return fd;
}

namespace {

Status removeAt(int dirFd, const std::string& name, int depth)
{
    struct stat st {};
    if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return errno == ENOENT ? Status() : makeError(ErrorCode::Io, std::strerror(errno), name);
    }
    if (S_ISDIR(st.st_mode)) {
        if (depth >= kMaxRemoveDepth) {
            return makeError(ErrorCode::Io, "cannot remove: nested too deeply", name);
        }
        const int fd = ::openat(dirFd, name.c_str(),
                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            bool ok = false;
            const auto names = namesIn(fd, ok);
            for (const auto& n : names) {
                (void)removeAt(fd, n, depth + 1);
            }
            ::close(fd);
        }
        if (::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
            return makeError(ErrorCode::Io, std::string("cannot remove: ") + std::strerror(errno),
                             name);
        }
        return {};
    }
    // A file, or a symbolic link: the link goes, never what it points to.
    if (::unlinkat(dirFd, name.c_str(), 0) != 0 && errno != ENOENT) {
        return makeError(ErrorCode::Io, std::string("cannot remove: ") + std::strerror(errno),
                         name);
    }
    return {};
}

} // namespace

Status removeTreeAt(int dirFd, const std::string& name) { return removeAt(dirFd, name, 0); }

Result<DirState> claimDirectory(const std::string& dir, const std::string& databasePath)
{
    const auto slash = databasePath.find_last_of('/');
    auto state = inspectDirectory(dir, slash == std::string::npos
                                           ? databasePath
                                           : databasePath.substr(slash + 1));
    if (!state) {
        return state.error();
    }
    if (*state == DirState::Empty) {
        if (Status s = writeMarker(dir); !s) {
            return s.error();
        }
        return DirState::Marked;
    }
    if (*state == DirState::Unmarked && databaseFileState(databasePath) != FileState::Existing) {
        return notACacheDirectory(dir, "it holds other files, no fxscope database and no " +
                                           std::string(kMarkerName));
    }
    return *state;
}

Status checkOwnFile(const std::string& file, bool mustExist)
{
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0) {
        return !mustExist && errno == ENOENT
                   ? Status()
                   : Status(makeError(ErrorCode::Io,
                                      std::string("cannot stat: ") + std::strerror(errno), file));
    }
    if (!S_ISREG(st.st_mode)) {
        Error e = makeError(ErrorCode::Invalid,
                            "refusing to use a cache database that is not a regular file of its "
                            "own (fxscope never follows a link to a database)",
                            file);
        e.expected = "a regular file";
        e.found = S_ISLNK(st.st_mode) ? "a symbolic link" : describeFileType(fileType(file));
        return e;
    }
    return checkPrivateFile(file);
}

bool isCacheKey(std::string_view key)
{
    return key.size() == 64 && allOf(key, "0123456789abcdef");
}

bool isArtifactName(std::string_view name)
{
    if (name.size() < 64 || !isCacheKey(name.substr(0, 64))) {
        return false;
    }
    std::string_view rest = name.substr(64);
    if (const auto tmp = rest.find(".tmp"); tmp != std::string_view::npos) {
        if (!allOf(rest.substr(tmp + 4), "0123456789")) {
            return false;
        }
        rest = rest.substr(0, tmp);
    }
    for (std::string_view ext : {".so", ".cpp", ".cubin", ".cu", ".bin"}) {
        if (rest == ext) {
            return true;
        }
    }
    return false;
}

bool isBuildDirName(std::string_view name)
{
    constexpr std::string_view kPrefix = "build-";
    if (name.substr(0, kPrefix.size()) != kPrefix) {
        return false;
    }
    const std::string_view rest = name.substr(kPrefix.size());
    const auto dash = rest.find('-');
    if (dash == std::string_view::npos || !allOf(rest.substr(0, dash), "0123456789")) {
        return false;
    }
    const std::string_view suffix = rest.substr(dash + 1); // mkdtemp's XXXXXX
    return suffix.size() == 6 &&
           allOf(suffix, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
}

bool isLockName(std::string_view name) { return isCacheKey(name); }

} // namespace fxs::cache::detail
