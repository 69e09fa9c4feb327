// An advisory build lock per cache key: of several processes (or threads) that miss the same
// key, one builds and the others wait for its entry instead of building it again. A flock(2)
// on a small file under the cache directory, so the kernel drops it when its holder dies and a
// killed builder never blocks the others; the timeout covers a holder that hangs. Not a lock
// on the database (SQLite has its own) and not for the remote tier (core/remote has its own).
#pragma once

#include "core/util/result.h"

#include <string>

namespace fxs::cache {

class BuildLock {
public:
    // Opens (creating 0600) the lock file at path and takes an exclusive lock, waiting up to
    // timeoutMs for another holder. Error::Io when the file cannot be opened or locked; a
    // timeout is not an error: the lock is not held and the caller goes on without it.
    static Result<BuildLock> acquire(const std::string& path, int timeoutMs);
    BuildLock(BuildLock&& other) noexcept;
    BuildLock& operator=(BuildLock&& other) noexcept;
    BuildLock(const BuildLock&) = delete;
    BuildLock& operator=(const BuildLock&) = delete;
    ~BuildLock(); // releases

    bool held() const { return m_held; }
    // Another process held the lock when this one asked (it built, or tried to build, the key).
    bool waited() const { return m_waited; }

private:
    BuildLock(int fd, bool held, bool waited) : m_fd(fd), m_held(held), m_waited(waited) {}
    int m_fd = -1;
    bool m_held = false;
    bool m_waited = false;
};

// Removes lock files under dir older than maxAgeSeconds that nobody holds; returns how many.
// A waiter that opened one just before it went takes a lock no one else sees: at worst one
// duplicate build, which insert-or-ignore absorbs.
int sweepStaleLocks(const std::string& dir, long maxAgeSeconds);

} // namespace fxs::cache
