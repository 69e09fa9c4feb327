// What is done to the cache database file itself, outside SQLite: how it was found before the
// store opened it (a 0-byte file is opened by SQLite as a new database without a word), and
// moving a damaged one aside so that a fresh one can start. Used by the store and by
// `fxscope-cli cache repair`. Not for reading or writing entries (cache_store.h).
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <string>

namespace fxs::cache {

enum class FileState : std::uint8_t { Missing, Empty, Existing };
FileState databaseFileState(const std::string& path);

// Moves the database at path and its -wal/-shm files aside to <path>.corrupt-<UTC time>
// (-<n> added when that name is taken), never deleting or overwriting anything, so that the
// next open starts a fresh database. Returns the database's new name. Error::Invalid when
// path does not exist, Error::Io when a file cannot be renamed.
Result<std::string> moveDatabaseAside(const std::string& path);

} // namespace fxs::cache
