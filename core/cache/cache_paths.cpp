#include "core/cache/cache_paths.h"

#include "core/cache/cache_dir.h"
#include "core/cache/cache_store.h"


#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fxs::cache {
namespace {

std::string octalMode(mode_t mode)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
    return buf;
}

// ENOSPC, a quota or the file size limit: a user's "disk full".
std::string writeFailure(int err)
{
    const bool full = err == ENOSPC || err == EDQUOT || err == EFBIG;
    return std::string(full ? "disk full: cannot write (" : "cannot write (") +
           std::strerror(err) + ")";
}

} // namespace

Result<std::string> defaultCachePath()
{
    if (const char* dir = std::getenv("FXSCOPE_CACHE_DIR"); dir && *dir) {
        return std::string(dir) + "/cache.db";
    }
    // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') {
        return std::string(xdg) + "/fxscope/cache.db";
    }
    if (const char* home = std::getenv("HOME"); home && *home) {
        return std::string(home) + "/.cache/fxscope/cache.db";
    }
    return makeError(ErrorCode::Invalid,
                     "no cache location: set FXSCOPE_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

Status checkPrivateFile(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return makeError(ErrorCode::Io, std::string("cannot stat: ") + std::strerror(errno), path);
    }
    if (st.st_uid != ::geteuid()) {
        Error e = makeError(ErrorCode::Invalid,
                            "refusing to use a cache file owned by another user (it holds code "
                            "that gets loaded)",
                            path);
        e.expected = "owner uid " + std::to_string(::geteuid());
        e.found = "owner uid " + std::to_string(st.st_uid);
        return e;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        Error e = makeError(ErrorCode::Invalid,
                            "refusing to use a cache file writable by group or others (it holds "
                            "code that gets loaded); fix with chmod go-w",
                            path);
        e.expected = "mode without group/other write";
        e.found = "mode " + octalMode(st.st_mode);
        return e;
    }
    return {};
}

std::string parentDir(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

Status ensurePrivateDir(const std::string& dir)
{
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        const std::string parent = parentDir(dir);
        if (parent != dir && ::stat(parent.c_str(), &st) != 0) {
            // Parents are created 0700 too; only the last one is checked below.
            if (Status s = ensurePrivateDir(parent); !s && s.error().code == ErrorCode::Io) {
                return s;
            }
        }
        if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
            const int err = errno;
            const bool full = err == ENOSPC || err == EDQUOT;
            return makeError(ErrorCode::Io,
                             std::string(full ? "disk full: " : "") +
                                 "cannot create the cache directory: " + std::strerror(err),
                             dir);
        }
    }
    return checkPrivateFile(dir);
}

Status writePrivateFileAt(int dirFd, const std::string& name, std::string_view bytes,
                          const std::string& shownDir)
{
    const std::string tmp = name + ".tmp" + std::to_string(::getpid());
    const std::string shown = shownDir + "/" + tmp;
    // A fresh file, never one (or a link) that is already there: what a dead process of the
    // same pid left is removed first.
    (void)::unlinkat(dirFd, tmp.c_str(), 0);
    const int fd = ::openat(dirFd, tmp.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        return makeError(ErrorCode::Io, std::string("cannot write: ") + std::strerror(errno),
                         shown);
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) {
            const int err = n < 0 ? errno : ENOSPC; // a write of 0 bytes: no room left
            ::close(fd);
            ::unlinkat(dirFd, tmp.c_str(), 0);
            return makeError(ErrorCode::Io, writeFailure(err), shown);
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    // rename replaces the name itself (a link there is replaced, never written through).
    if (::renameat(dirFd, tmp.c_str(), dirFd, name.c_str()) != 0) {
        const int err = errno;
        ::unlinkat(dirFd, tmp.c_str(), 0);
        return makeError(ErrorCode::Io, std::string("cannot rename: ") + std::strerror(err),
                         shownDir + "/" + name);
    }
    return {};
}

Status writePrivateFile(const std::string& path, std::string_view bytes)
{
    const std::string dir = parentDir(path);
    const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd < 0) {
        return makeError(ErrorCode::Io, std::string("cannot write: ") + std::strerror(errno),
                         path);
    }
    const auto slash = path.find_last_of('/');
    Status s = writePrivateFileAt(dirFd, slash == std::string::npos ? path : path.substr(slash + 1),
                                  bytes, dir);
    ::close(dirFd);
    return s;
}

Result<ScratchDir> ScratchDir::create(const std::string& parent, const std::string& prefix)
{
    std::string templ = parent + "/" + prefix + "XXXXXX";
    if (!::mkdtemp(templ.data())) {
        return makeError(ErrorCode::Io,
                         std::string("cannot create a build directory: ") + std::strerror(errno),
                         parent);
    }
    return ScratchDir(std::move(templ));
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : m_path(std::move(other.m_path))
{
    other.m_path.clear();
}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept
{
    if (this != &other) {
        if (!m_path.empty()) {
            (void)removeTree(m_path);
        }
        m_path = std::move(other.m_path);
        other.m_path.clear();
    }
    return *this;
}

ScratchDir::~ScratchDir()
{
    if (!m_path.empty()) {
        (void)removeTree(m_path);
    }
}

// The parent is the caller's choice and may be reached through a link; below it nothing is
// followed (cache_dir.h: removeTreeAt).
Status removeTree(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..") {
        return makeError(ErrorCode::Invalid, "not a removable path", path);
    }
    const int parent = ::open(parentDir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) {
        return errno == ENOENT ? Status()
                               : makeError(ErrorCode::Io, std::strerror(errno), path);
    }
    Status s = detail::removeTreeAt(parent, name);
    ::close(parent);
    return s;
}

std::string tempDirectory()
{
    const char* t = std::getenv("TMPDIR");
    return t && t[0] == '/' ? std::string(t) : std::string("/tmp");
}

} // namespace fxs::cache
