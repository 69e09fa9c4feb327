#include "core/util/file_writer.h"

#include "core/util/file_reader.h"
#include "core/util/unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace fxs {

namespace {

Error ioError(const std::string& path, const std::string& what, int error)
{
    return makeError(ErrorCode::Io, what + ": " + std::strerror(error), path);
}

struct Target {
    std::string path; // where the data goes: the path, or the file a symbolic link names
    bool exists = false;
    mode_t mode = 0;
};

Result<Target> writableTarget(const std::string& path)
{
    if (auto checked = checkWritableTarget(path); !checked.ok()) {
        return checked.error();
    }
    Target t{path};
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        t.exists = true;
        t.mode = st.st_mode & 07777;
    }
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        std::error_code ec;
        const auto resolved = std::filesystem::weakly_canonical(path, ec);
        if (ec) {
            return makeError(ErrorCode::Io, "cannot resolve the link: " + ec.message(), path);
        }
        t.path = resolved.string();
    }
    return t;
}

struct Temp {
    std::string path;
    int fd = -1;
};

// A new file next to target, created exclusively (never an existing file, link or FIFO).
Result<Temp> createTemp(const std::string& target)
{
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path p(target);
    const std::string dir = p.has_parent_path() ? p.parent_path().string() + "/" : "";
    for (int attempt = 0;; ++attempt) {
        const std::string name = dir + "." + p.filename().string() + ".tmp-" +
                                 std::to_string(::getpid()) + "-" + std::to_string(++counter);
        const int fd = ::open(name.c_str(),
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                              0666);
        if (fd >= 0) {
            return Temp{name, fd};
        }
        if (errno != EEXIST || attempt == 100) {
            return ioError(target, "cannot write file", errno);
        }
    }
}

bool writeAll(int fd, std::string_view data)
{
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// The fallback for a folder we may not create files in: the existing regular file itself,
// opened without blocking and checked again once open.
Status writeInPlace(const std::string& path, std::string_view data)
{
    const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) {
        return ioError(path, "cannot write file", errno);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return checkWritableTarget(path).ok()
                   ? makeError(ErrorCode::Io, "cannot write file: it changed while opened", path)
                   : checkWritableTarget(path).error();
    }
    if (::ftruncate(fd.get(), 0) != 0 || !writeAll(fd.get(), data)) {
        return ioError(path, "write failed", errno);
    }
    return {};
}

} // namespace

Status checkWritableTarget(const std::string& path)
{
    const FileType type = fileType(path);
    if (type == FileType::Regular || type == FileType::Missing) {
        return {};
    }
    return makeError(ErrorCode::Io,
                     std::string("not a regular file: it is ") + describeFileType(type), path);
}

Status writeFile(const std::string& path, std::string_view data)
{
    auto target = writableTarget(path);
    if (!target.ok()) {
        return target.error();
    }
    auto temp = createTemp(target->path);
    if (!temp.ok()) {
        return target->exists ? writeInPlace(target->path, data) : Status(temp.error());
    }
    const UniqueFd fd(temp->fd);
    const bool written = (!target->exists || ::fchmod(fd.get(), target->mode) == 0) &&
                         writeAll(fd.get(), data);
    const int error = errno;
    if (!written || ::rename(temp->path.c_str(), target->path.c_str()) != 0) {
        const int why = written ? errno : error;
        ::unlink(temp->path.c_str());
        return ioError(path, written ? "cannot write file" : "write failed", why);
    }
    return {};
}

} // namespace fxs
