// INTERNAL to core/cache: the state behind a CacheStore, shared by the files that implement
// it (cache_store.cpp: opening, entries, eviction; store_records.cpp: the per-key records kept
// beside the entries — bad marks, statistics, timings). Not for use outside the store.
#pragma once

#include "core/cache/artifact_files.h"
#include "core/cache/cache_dir.h"
#include "core/cache/cache_store.h"
#include "core/cache/sqlite_db.h"
#include "core/cache/store_connection.h"

#include <memory>
#include <string>
#include <vector>

namespace fxs::cache {

struct CacheStore::Impl {
    detail::StoreConnection conn;
    Database& db = conn.db();
    std::string path;
    std::string dir;
    StoreOptions options;
    std::string notice; // CacheStore::openNotice
    std::unique_ptr<detail::ArtifactFiles> files;
    // The directory carries the cache's marker (written, found or adopted): only then is
    // anything but the database written or deleted there.
    bool owned = false;

    Status createFile();
    Status checkFiles() const;
    // Before the database is opened: the directory's marker, written for a new or empty one;
    // a directory with other files and no marker is the cache's only if its database is
    // (adopted after opening). Sets owned when marked.
    Status claimDirectory(detail::DirState& state);
    Status requireOwned() const;
    Status touch(const std::string& key);
    // Checks every row and blob into r (checked, corrupt).
    Status verifyRows(VerifyReport& r);
    Result<std::int64_t> totalBytes();
    Status evict(std::int64_t maxBytes, int* removed, int* filesRemoved);
    Status evictLocked(std::int64_t maxBytes, std::vector<std::string>& doomed, int* removed);
    // Inside a transaction: deletes the row and its file rows; the files' paths go to doomed.
    Status dropEntry(const std::string& key, std::vector<std::string>& doomed);
    // Gives freed pages back to the file system and empties the WAL (best effort: a reader
    // in another process may hold them).
    void shrink();
};

} // namespace fxs::cache
