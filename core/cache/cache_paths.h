// Where the cache lives, the ownership rule for files that hold code to be loaded, and the
// scratch directories builds write into. Used by the store (database, artifact files, build
// directories) and by the compiler when it builds without a store.
#pragma once

#include "core/util/result.h"

#include <string>

namespace fxs::cache {

// A private directory (0700) for one build's files, removed with everything in it when the
// object goes. Move-only. Not thread-safe (one owner).
class ScratchDir {
public:
    // Creates <parent>/<prefix>XXXXXX; Error::Io when it cannot.
    static Result<ScratchDir> create(const std::string& parent, const std::string& prefix);
    ScratchDir(ScratchDir&& other) noexcept;
    ScratchDir& operator=(ScratchDir&& other) noexcept;
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    ~ScratchDir();

    const std::string& path() const { return m_path; }

private:
    explicit ScratchDir(std::string path) : m_path(std::move(path)) {}
    std::string m_path;
};

// Removes path and, for a directory, everything below it, never following a symbolic link
// below path's parent (a link is removed, not its target; openat/unlinkat, so a directory
// swapped for a link meanwhile is not followed either). A missing path is not an error.
Status removeTree(const std::string& path);
// $TMPDIR when set and absolute, else /tmp.
std::string tempDirectory();

// Creates dir and missing parents with mode 0700; then applies checkPrivateFile to dir.
Status ensurePrivateDir(const std::string& dir);
// Writes bytes to path with mode 0600 (via a fresh temporary name, O_EXCL and O_NOFOLLOW, then
// rename, so a reader never sees a half-written file and no link is written through).
Status writePrivateFile(const std::string& path, std::string_view bytes);
// The same for the file `name` in the directory dirFd (shownDir: that directory, for errors).
Status writePrivateFileAt(int dirFd, const std::string& name, std::string_view bytes,
                          const std::string& shownDir);
std::string parentDir(const std::string& path);

} // namespace fxs::cache
