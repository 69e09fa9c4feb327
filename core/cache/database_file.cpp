#include "core/cache/database_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace fxs::cache {
namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::string utcStamp()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm {};
    ::gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

// <path>.corrupt-<stamp>, or -2, -3, ... when a repair in the same second took it.
std::string freeName(const std::string& path)
{
    const std::string base = path + ".corrupt-" + utcStamp();
    std::string name = base;
    for (int n = 2; exists(name) || exists(name + "-wal"); ++n) {
        name = base + "-" + std::to_string(n);
    }
    return name;
}

} // namespace

FileState databaseFileState(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return FileState::Missing;
    }
    return st.st_size == 0 ? FileState::Empty : FileState::Existing;
}

Result<std::string> moveDatabaseAside(const std::string& path)
{
    if (!exists(path)) {
        return makeError(ErrorCode::Invalid, "no cache database to move aside", path);
    }
    const std::string target = freeName(path);
    // The WAL files go with the database: they may hold its committed pages, and a fresh
    // database next to an old WAL would replay them. They go first, so that no process opens
    // the fresh database beside them.
    for (const char* suffix : {"-wal", "-shm", ""}) {
        const std::string from = path + suffix;
        if (exists(from) && ::rename(from.c_str(), (target + suffix).c_str()) != 0) {
            return makeError(ErrorCode::Io,
                             std::string("cannot move the damaged cache aside: ") +
                                 std::strerror(errno),
                             from);
        }
    }
    return target;
}

} // namespace fxs::cache
