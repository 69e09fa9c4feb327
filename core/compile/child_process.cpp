#include "core/compile/child_process.h"

#include <chrono>
#include <cstdint>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fxs::compile {
namespace {

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

enum class Drained : std::uint8_t { Eof, Deadline, Cancelled };

// Reads the pipe until EOF, the deadline or the token firing (polled every 100 ms).
Drained drain(int fd, std::string& out, std::chrono::steady_clock::time_point deadline,
              const CancelToken& cancel)
{
    char buf[4096];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) {
            return Drained::Deadline;
        }
        if (cancel.isCancelled()) {
            return Drained::Cancelled;
        }
        pollfd p{fd, POLLIN, 0};
        const int rc = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
        if (rc < 0 && errno != EINTR) {
            return Drained::Eof;
        }
        if (rc <= 0) {
            continue;
        }
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            out.append(buf, static_cast<std::size_t>(n));
            // Keep reports readable: a compiler gone wild is cut at 1 MiB.
            if (out.size() > (1u << 20)) {
                out.resize(1u << 20);
            }
        } else if (n == 0 || errno != EINTR) {
            return Drained::Eof;
        }
    }
}

} // namespace

std::string commandLine(const std::vector<std::string>& argv)
{
    std::string s;
    for (const auto& a : argv) {
        const bool plain = !a.empty() && a.find_first_of(" \t\"'\\$`") == std::string::npos;
        s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
    }
    return s;
}

Result<ProcessResult> runProcess(const std::vector<std::string>& argv, int timeoutMs,
                                 const CancelToken& cancel)
{
    int fds[2];
    if (argv.empty() || ::pipe2(fds, O_CLOEXEC) != 0) {
        return makeError(ErrorCode::Io, "cannot create a pipe for the child process");
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    std::vector<char*> args;
    for (const auto& a : argv) {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = 0;
    // Own process group: a timeout kills the driver and the cc1plus/as/ld it started.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    const int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, args.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return makeError(ErrorCode::Io, std::string("cannot start: ") + std::strerror(rc),
                         argv[0]);
    }
    ProcessResult r;
    const Drained how = drain(fds[0], r.output, t0 + std::chrono::milliseconds(timeoutMs), cancel);
    ::close(fds[0]);
    if (how != Drained::Eof) {
        r.timedOut = how == Drained::Deadline;
        r.cancelled = how == Drained::Cancelled;
        ::kill(-pid, SIGKILL);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exitCode = WIFEXITED(status) && how == Drained::Eof ? WEXITSTATUS(status) : -1;
    r.ms = msSince(t0);
    return r;
}

} // namespace fxs::compile
