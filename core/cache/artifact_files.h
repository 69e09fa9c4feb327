// INTERNAL to core/cache: the files the store materializes for loading (<dir>/artifacts/
// <key><extension>, one row each in the `files` table so the byte cap counts them), and the
// sweeps of what dead processes leave behind (build-* directories, files no row names). Only
// names of the shapes the store creates are ever deleted (cache_dir.h), through descriptors
// that never follow a symbolic link; artifacts/ itself must not be one.
// Used by CacheStore only; every call runs on the store's connection.
#pragma once

#include "core/cache/cache_store.h"
#include "core/cache/sqlite_db.h"

#include <string>
#include <vector>

namespace fxs::cache::detail {

class ArtifactFiles {
public:
    ArtifactFiles(Database& db, std::string directory);

    // Writes the bytes unless an identical file is there, then records the file when its
    // entry still exists (unless !record: a store that cannot write). Returns the path.
    Result<std::string> write(const std::string& key, ArtifactKind kind, const std::string& bytes,
                              bool record = true);
    // SUM of the recorded file sizes.
    Result<std::int64_t> bytes();
    // Deletes the rows of key (inside the caller's transaction) and returns the file names
    // (in artifacts/) to unlink once it committed.
    Result<std::vector<std::string>> dropRows(const std::string& key);
    // Unlinks these names in artifacts/ (artifact-shaped names only); returns how many existed.
    int unlinkAll(const std::vector<std::string>& names);
    // build-<pid>-XXXXXX directories whose process is gone, or older than an hour (builds time
    // out long before): removed. Returns how many.
    Result<int> sweepBuildDirs();
    // Artifact-shaped files in artifacts/ that no row names and that are older than ten
    // minutes (younger ones may be a materialize in flight), and rows whose entry is gone:
    // removed. Error::Invalid when artifacts/ is a symbolic link or not the user's.
    Result<int> sweepOrphans();

    std::string artifactsDir() const { return m_dir + "/artifacts"; }
    std::string pathOf(const std::string& key, ArtifactKind kind) const;
    static std::string nameOf(const std::string& key, ArtifactKind kind);

private:
    Database& m_db;
    std::string m_dir;
};

} // namespace fxs::cache::detail
