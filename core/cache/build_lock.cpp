#include "core/cache/build_lock.h"

#include "core/cache/cache_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>
#include <utility>

namespace fxs::cache {
namespace {

// Polling (not a blocking flock) keeps the timeout exact without signals or threads.
constexpr auto kPoll = std::chrono::milliseconds(20);

Error lockError(const std::string& what, const std::string& path)
{
    return makeError(ErrorCode::Io, what + ": " + std::strerror(errno), path);
}

} // namespace

Result<BuildLock> BuildLock::acquire(const std::string& path, int timeoutMs)
{
    // O_NOFOLLOW: a link in the cache's place is refused, never created through.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        return lockError("cannot open the build lock", path);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    bool waited = false;
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            Error e = lockError("cannot take the build lock", path);
            ::close(fd);
            return e;
        }
        waited = true;
        if (std::chrono::steady_clock::now() >= deadline) {
            return BuildLock(fd, false, true);
        }
        std::this_thread::sleep_for(kPoll);
    }
    return BuildLock(fd, true, waited);
}

BuildLock::BuildLock(BuildLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_held(other.m_held), m_waited(other.m_waited)
{
}

BuildLock& BuildLock::operator=(BuildLock&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = std::exchange(other.m_fd, -1);
        m_held = other.m_held;
        m_waited = other.m_waited;
    }
    return *this;
}

BuildLock::~BuildLock()
{
    if (m_fd >= 0) {
        ::close(m_fd); // closing the last descriptor releases the flock
    }
}

int sweepStaleLocks(const std::string& dir, long maxAgeSeconds)
{
    // The folder itself must not be a link; inside it only key-named files go, never
    // followed (unlinkat on the descriptor).
    const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR* d = dirFd >= 0 ? ::fdopendir(dirFd) : nullptr;
    if (!d) {
        if (dirFd >= 0) {
            ::close(dirFd);
        }
        return 0;
    }
    int removed = 0;
    while (const dirent* e = ::readdir(d)) {
        struct stat st {};
        if (!detail::isLockName(e->d_name) ||
            ::fstatat(dirFd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            std::time(nullptr) - st.st_mtime <= maxAgeSeconds) {
            continue;
        }
        const int fd = ::openat(dirFd, e->d_name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
            ::unlinkat(dirFd, e->d_name, 0) == 0) {
            ++removed;
        }
        if (fd >= 0) {
            ::close(fd);
        }
    }
    ::closedir(d); // closes dirFd
    return removed;
}

} // namespace fxs::cache
