// INTERNAL to core/cache: what marks a directory as fxscope's cache and what the cache may
// delete in it. A marker file (kMarkerName: a format line and a random id) is written when the
// cache creates or adopts its directory; without it nothing there is written or collected.
// Deletion never follows a symbolic link (openat/unlinkat under an O_NOFOLLOW directory
// descriptor) and touches only names of the shapes the cache creates (artifact files, build
// directories, lock files). Not the database (store_connection.h) nor its schema.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::cache::detail {

inline constexpr std::string_view kMarkerName = "fxscope-cache.tag";
inline constexpr std::string_view kMarkerFormat = "fxscope-cache-dir 1";

// How a cache directory was found before the store opened its database.
enum class DirState : std::uint8_t {
    Marked,   // the marker is there and valid: the directory is the cache's
    Empty,    // no marker, and nothing but files named after the database (cache.db, its -wal,
              // -shm, .corrupt-*): the cache may claim it (writeMarker)
    Unmarked, // no marker and other files: the cache's only if its database is (adoption of a
              // cache written before markers existed)
};

// Reads dir (which exists) and its marker. Error::Invalid when the marker is there but is not a
// regular file of this user (a symbolic link, say) or does not hold kMarkerFormat.
Result<DirState> inspectDirectory(const std::string& dir, const std::string& databaseName);
// The store's first step on opening: inspectDirectory, then the marker written in an Empty
// directory (returned as Marked); an Unmarked one is refused unless its database exists
// (it is adopted once the database proves fxscope's: writeMarker).
Result<DirState> claimDirectory(const std::string& dir, const std::string& databasePath);
// The database file (or, !mustExist, its -wal/-shm) is a regular file, not a link, owned by
// this user and not writable by others (checkPrivateFile). Error::Invalid naming what it is.
Status checkOwnFile(const std::string& file, bool mustExist);
// Writes the marker (0600, complete before it appears: a temporary name, then link(2)); one
// that another process wrote meanwhile is kept. Error::Io when it cannot be written.
Status writeMarker(const std::string& dir);
// Success when dir holds a valid marker; else Error::Invalid naming dir and the rule.
Status requireMarker(const std::string& dir);
// The refusal of a directory that is neither marked, empty, nor holds fxscope's database.
Error notACacheDirectory(const std::string& dir, const std::string& why);

// Opens dir/name as a directory without following a symbolic link, creating it (0700) when
// create; refuses one that is a symbolic link, not a directory, another user's or writable by
// group or others. Returns the descriptor (the caller closes it).
Result<int> openOwnedSubdir(const std::string& dir, const std::string& name, bool create);
// Removes the entry `name` in the directory dirFd, and for a directory everything below it,
// never following a symbolic link (a link is removed, not its target). A missing entry is not
// an error.
Status removeTreeAt(int dirFd, const std::string& name);
// Names of the entries directly inside the directory dirFd ("." and ".." left out); ok is false
// (and the list empty) when it cannot be read.
std::vector<std::string> namesIn(int dirFd, bool& ok);

// Names the cache creates: "<64 hex><.so|.cpp|.cubin|.cu|.bin>" in artifacts/ (plus the
// ".tmp<pid>" of a write a dead process left), "build-<pid>-XXXXXX", and lock files named by
// a key (64 hex).
bool isArtifactName(std::string_view name);
bool isBuildDirName(std::string_view name);
bool isLockName(std::string_view name);
bool isCacheKey(std::string_view key);

} // namespace fxs::cache::detail
