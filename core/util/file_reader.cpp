#include "core/util/file_reader.h"

#include "core/util/gzip.h"
#include "core/util/strings.h"
#include "core/util/unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

namespace fxs {

namespace {

FileType typeOf(mode_t mode)
{
    if (S_ISREG(mode)) {
        return FileType::Regular;
    }
    if (S_ISDIR(mode)) {
        return FileType::Directory;
    }
    if (S_ISFIFO(mode)) {
        return FileType::Fifo;
    }
    if (S_ISSOCK(mode)) {
        return FileType::Socket;
    }
    if (S_ISCHR(mode)) {
        return FileType::CharDevice;
    }
    if (S_ISBLK(mode)) {
        return FileType::BlockDevice;
    }
    return FileType::Other;
}

Error notRegular(const std::string& path, FileType type)
{
    return makeError(ErrorCode::Io,
                     std::string("not a regular file: it is ") + describeFileType(type), path);
}

Error tooLarge(const std::string& path, std::uint64_t size, std::size_t maxBytes)
{
    Error e = makeError(ErrorCode::Unsupported,
                        "the file is " + formatBytes(size) + ", more than the limit of " +
                            formatBytes(maxBytes),
                        path);
    e.expected = "at most " + formatBytes(maxBytes);
    e.found = formatBytes(size);
    return e;
}

Error outOfMemory(const std::string& path, std::uint64_t size)
{
    return makeError(ErrorCode::Runtime,
                     "not enough memory to read the file (" + formatBytes(size) + ")", path);
}

} // namespace

// stat() first, so that nothing else is ever opened (opening a device can have effects);
// O_NONBLOCK in case the path was swapped for a FIFO meanwhile (fstat then refuses it).
Result<int> openRegularFile(const std::string& path, std::uint64_t& size)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return makeError(ErrorCode::Io, std::string("cannot open file: ") + std::strerror(errno),
                         path);
    }
    if (!S_ISREG(st.st_mode)) {
        return notRegular(path, typeOf(st.st_mode));
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        return makeError(ErrorCode::Io, std::string("cannot open file: ") + std::strerror(errno),
                         path);
    }
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return notRegular(path, typeOf(st.st_mode));
    }
    size = static_cast<std::uint64_t>(st.st_size);
    return fd;
}

namespace {

// Reads up to limit bytes (limit + 1 to notice a file that grew past it). The reported size
// only sizes the first allocation: files in /proc report 0, files may change while read.
Result<std::string> readUpTo(int fd, const std::string& path, std::uint64_t reported,
                             std::size_t limit)
{
    std::string data;
    try {
        data.resize(static_cast<std::size_t>(std::min<std::uint64_t>(reported, limit)) + 1);
        std::size_t got = 0;
        while (got <= limit) {
            if (got == data.size()) {
                data.resize(std::min(limit + 1, std::max<std::size_t>(data.size() * 2, 4096)));
            }
            const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n < 0) {
                return makeError(ErrorCode::Io,
                                 std::string("read failed: ") + std::strerror(errno), path);
            }
            if (n == 0) {
                break;
            }
            got += static_cast<std::size_t>(n);
        }
        data.resize(got);
    } catch (const std::bad_alloc&) {
        return outOfMemory(path, reported);
    }
    return data;
}

// The first maxBytes inflated bytes of a gzip'd file whose first raw bytes are `raw`: more
// raw bytes are read while the output is short (empty members at the start of a file are read
// past, as readFile would), up to the file cap.
Result<std::string> inflateHead(int fd, const std::string& path, std::string raw,
                                std::size_t maxBytes)
{
    constexpr std::size_t kPiece = std::size_t(64) << 10;
    std::string head;
    GzipStream stream(path);
    const auto sink = [&](const char* data, std::size_t n) {
        head.append(data, std::min(n, maxBytes - head.size()));
        return head.size() < maxBytes;
    };
    std::uint64_t rawRead = raw.size();
    try {
        while (true) {
            if (auto fed = stream.feed(raw, false, sink); !fed.ok()) {
                return fed.error();
            }
            if (stream.finished() || rawRead > kDefaultMaxFileBytes) {
                return head;
            }
            auto more = readUpTo(fd, path, kPiece, kPiece - 1);
            if (!more.ok()) {
                return more;
            }
            if (more->empty()) {
                return head; // the end of the file: a stream cut short gives what came before
            }
            raw = std::move(*more);
            rawRead += raw.size();
        }
    } catch (const std::bad_alloc&) {
        return outOfMemory(path, maxBytes);
    }
}

Result<std::string> readRegular(const std::string& path, std::size_t maxBytes, bool head)
{
    std::uint64_t size = 0;
    auto fd = openRegularFile(path, size);
    if (!fd.ok()) {
        return fd.error();
    }
    const UniqueFd guard(*fd);
    if (!head && size > maxBytes) {
        return tooLarge(path, size, maxBytes);
    }
    auto data = readUpTo(*fd, path, size, maxBytes);
    if (data.ok() && data->size() > maxBytes) {
        if (!head) {
            return tooLarge(path, data->size(), maxBytes); // it grew while read
        }
        data->resize(maxBytes);
    }
    return data;
}

} // namespace

FileType fileType(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return FileType::Missing;
    }
    return typeOf(st.st_mode);
}

const char* describeFileType(FileType type)
{
    switch (type) {
    case FileType::Missing: return "missing";
    case FileType::Regular: return "a regular file";
    case FileType::Directory: return "a directory";
    case FileType::Fifo: return "a named pipe (FIFO)";
    case FileType::Socket: return "a socket";
    case FileType::CharDevice: return "a character device";
    case FileType::BlockDevice: return "a block device";
    case FileType::Other: return "a special file";
    }
    return "a special file";
}

Result<std::string> readFile(const std::string& path, const ReadOptions& options)
{
    auto raw = readRegular(path, options.maxBytes, false);
    if (!raw.ok() || !options.inflateGzip || !isGzip(*raw)) {
        return raw;
    }
    return gunzip(*raw, path, options.maxBytes, GunzipMode::Whole);
}

Result<std::string> readFileHead(const std::string& path, std::size_t maxBytes)
{
    std::uint64_t size = 0;
    auto fd = openRegularFile(path, size);
    if (!fd.ok()) {
        return fd.error();
    }
    const UniqueFd guard(*fd);
    // Room for a gzip header and block overheads, so that even incompressible data gives
    // maxBytes once inflated.
    constexpr std::size_t kGzipSlack = 4096;
    auto raw = readUpTo(*fd, path, size, maxBytes + kGzipSlack - 1); // reads at most the limit + 1
    if (!raw.ok()) {
        return raw;
    }
    if (!isGzip(*raw)) {
        raw->resize(std::min(raw->size(), maxBytes));
        return raw;
    }
    return inflateHead(*fd, path, std::move(*raw), maxBytes);
}

Status checkRegularFile(const std::string& path)
{
    const FileType type = fileType(path);
    if (type == FileType::Regular) {
        return {};
    }
    if (type == FileType::Missing) {
        return makeError(ErrorCode::Io, std::string("cannot open file: ") + std::strerror(errno),
                         path);
    }
    return notRegular(path, type);
}

Result<std::vector<std::string>> listFiles(const std::string& dir)
{
    std::error_code ec;
    std::vector<std::string> files;
    try {
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
            if (entry.is_regular_file(ec)) {
                files.push_back(entry.path().string());
            }
        }
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Io, std::string("cannot list directory: ") + e.what(), dir);
    }
    if (ec) {
        return makeError(ErrorCode::Io, "cannot list directory: " + ec.message(), dir);
    }
    std::sort(files.begin(), files.end());
    return files;
}

bool isDirectory(const std::string& path)
{
    return fileType(path) == FileType::Directory;
}

} // namespace fxs
