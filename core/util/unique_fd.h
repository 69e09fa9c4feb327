// UniqueFd: a POSIX file descriptor closed when its owner goes out of scope.
// For the readers and writers that open with open()/openat() and must close on every early
// return. Not for FILE* streams or sockets with their own shutdown protocol.
#pragma once

#include <unistd.h>

namespace fxs {

class UniqueFd {
public:
    explicit UniqueFd(int fd) : m_fd(fd) {}
    ~UniqueFd()
    {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

} // namespace fxs
