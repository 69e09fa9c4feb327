// The one way fxscope reads input files (importers parse from one contiguous buffer): only
// regular files (directories, FIFOs, sockets and devices are refused by name, and nothing is
// opened in a way that could block), at most a cap the caller picks, gzip'd files (magic
// 1f 8b) inflated transparently, the first bytes readable alone for sniffing a format. Also
// lists directories; files are written by file_writer.h (included here for its callers).
// Never throws: allocation failure is an Error.
#pragma once

#include "core/util/file_writer.h"
#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxs {

enum class FileType : std::uint8_t {
    Missing, // stat failed (does not exist, no permission on a parent, ...)
    Regular,
    Directory,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Other,
};

// Follows symbolic links.
FileType fileType(const std::string& path);
// "a directory", "a named pipe (FIFO)", ...: for messages.
const char* describeFileType(FileType type);

// Default cap on what one input file may hold in memory (on disk, and again once inflated).
inline constexpr std::size_t kDefaultMaxFileBytes = std::size_t(2) << 30; // 2 GiB
// What format sniffers look at.
inline constexpr std::size_t kSniffBytes = std::size_t(64) << 10;

struct ReadOptions {
    std::size_t maxBytes = kDefaultMaxFileBytes;
    bool inflateGzip = true; // false: a gzip'd file is returned as its compressed bytes
};

// The whole file (inflated when gzip'd). Errors (where = path): Io when it is missing,
// unreadable or not a regular file (the message says what it is); Unsupported when it is
// larger than options.maxBytes, on disk or inflated (checked before reading); Parse for
// corrupt or truncated gzip data; Runtime when memory runs out.
Result<std::string> readFile(const std::string& path, const ReadOptions& options = {});

// At most maxBytes of the file's start (inflated when gzip'd), for sniffing a format before
// the rest is read. Same checks and errors as readFile, except that a gzip stream cut short
// by maxBytes is not an error.
Result<std::string> readFileHead(const std::string& path, std::size_t maxBytes = kSniffBytes);

// Opens a regular file for reading (a read-only descriptor the caller closes) and gives its
// size; never opens anything else (a FIFO, socket or device is refused by name, and nothing
// is opened in a way that could block). Errors: the Io errors of readFile.
Result<int> openRegularFile(const std::string& path, std::uint64_t& size);

// Success for a regular file; otherwise the Io error readFile would return.
Status checkRegularFile(const std::string& path);

// Regular files directly inside dir, sorted by name (not recursive).
Result<std::vector<std::string>> listFiles(const std::string& dir);
bool isDirectory(const std::string& path);

} // namespace fxs
