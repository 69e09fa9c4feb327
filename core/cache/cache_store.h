// The SQLite artifact store of the region compiler: one row per cache key holding the key's
// components, the artifact blob (its files by kind, SHA-256 checked on every read), sizes,
// compile time and LRU bookkeeping. It owns the files it creates under its directory, which it
// marks as its own (fxscope-cache.tag): the files it materializes for loading, the build
// directories it hands out; gc, remove and eviction delete them (only names of those shapes,
// never through a symbolic link) and the byte cap counts them. A directory it did not mark and
// a database it did not create are refused, never written into. Safe for several processes at
// once (WAL, insert-or-ignore).
// Not for building keys (cache_key.h) or explaining misses (cache_explain.h). No sqlite types.
#pragma once

#include "core/cache/build_lock.h"
#include "core/cache/cache_key.h"
#include "core/cache/cache_paths.h"
#include "core/cache/reason.h"
#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fxs::cache {

inline constexpr int kSchemaVersion = 4; // PRAGMA user_version after migrations

// Persisted (numbered, append only).
enum class EntryStatus : std::uint8_t { Verified = 1, Bad = 2, Unverified = 3 };
std::string_view entryStatusName(EntryStatus s); // "verified", "bad", "unverified"

// Persisted (numbered, append only): what one file of an artifact holds. Backends add kinds;
// the store handles every kind alike.
enum class ArtifactKind : std::uint8_t {
    SharedObject = 1,
    CppSource = 2,
    Cubin = 3,
    CudaSource = 4,
};
std::string_view artifactKindName(ArtifactKind k); // "shared_object", "cpp_source", "cubin", ...
std::string_view artifactExtension(ArtifactKind k); // ".so", ".cpp", ".cubin", ".cu"
bool isSourceKind(ArtifactKind k);                  // counted as source_bytes, not so_bytes

struct ArtifactFile {
    ArtifactKind kind = ArtifactKind::SharedObject;
    std::string bytes;
};

// What one build produced, at most one file per kind.
struct Artifact {
    std::vector<ArtifactFile> files;
    const std::string* bytesOf(ArtifactKind kind) const; // nullptr when absent
    // What a host C++ build produces: the shared object and its source.
    static Artifact hostBuild(std::string sharedObject, std::string cppSource);
};
// The artifact as one byte string (the store's blob layout) and back, for another tier to keep
// (core/remote). False when the bytes have no known layout or their sizes do not add up.
std::string serializeArtifact(const Artifact& artifact);
bool deserializeArtifact(const std::string& bytes, Artifact& out);

// Entry metadata without the blob (what ls/show/explain need).
struct EntryInfo {
    std::string key;
    std::vector<KeyComponent> components; // label order
    std::string regionDigest;
    std::string title;                    // free text: region id and graph, for ls
    std::string blobSha256;
    std::int64_t soBytes = 0;     // bytes of the binary files (shared objects, cubins)
    std::int64_t sourceBytes = 0; // bytes of the source files
    std::int64_t blobBytes = 0;
    double compileMs = 0;
    std::int64_t createdMs = 0; // unix epoch milliseconds
    std::int64_t lastHitMs = 0;
    std::int64_t hitCount = 0;
    EntryStatus status = EntryStatus::Verified;
    Reason statusCode = Reason::None; // Bad: why, numbered (fallback_verify_failed)
    std::string statusReason;         // Bad: the details in words
};

struct Entry {
    EntryInfo info;
    Artifact artifact;
};

// A verified region's timings on one device of this machine ("cpu", "cuda:0"), measured when
// it was built or last re-timed. A later hit of the entry reports them instead of timing eager
// and compiled again (unless asked to: CompileOptions::retime). Local only: never published
// to a remote tier, whose entries were timed on other machines.
struct RegionTiming {
    double eagerMs = 0;
    double eagerSpreadMs = 0;
    double compiledMs = 0;
    double compiledSpreadMs = 0;
    double eagerBackToBackMs = 0; // CUDA: runs enqueued back to back (0 on the CPU)
    double compiledBackToBackMs = 0;
    std::string timing;          // how they were measured: "wall mean", "cuda events median"
    std::int64_t measuredMs = 0; // unix epoch milliseconds
};

struct StoreOptions {
    std::string path; // empty: defaultCachePath()
    // Bytes the cache may occupy (database pages in use plus materialized files); least
    // recently hit entries are evicted beyond it.
    std::int64_t maxBytes = 2LL * 1024 * 1024 * 1024;
    int busyTimeoutMs = 10000;
};

enum class LookupState : std::uint8_t { Hit, Miss, Corrupt };
struct LookupResult {
    LookupState state = LookupState::Miss;
    std::optional<Entry> entry; // Hit (also Bad entries: callers check info.status)
    std::string problem;        // Corrupt: what failed; the row was removed
};

struct GcReport {
    int removed = 0;              // entries evicted
    std::int64_t bytesBefore = 0; // totalBytes() before and after
    std::int64_t bytesAfter = 0;
    int filesRemoved = 0;     // materialized files deleted (with their entries, or orphaned)
    int buildDirsRemoved = 0; // build directories of processes that died
};

struct VerifyReport {
    int checked = 0;
    std::vector<std::pair<std::string, std::string>> corrupt; // key, problem
    std::string integrity; // PRAGMA integrity_check result ("ok")
    // The database's own structure is damaged (not a database, malformed schema or pages):
    // SQLite's words. Rows were not (all) checked; CacheStore::moveAside is the fix.
    std::string damage;
    // How the database was found when opened, when that is worth saying (CacheStore::
    // openNotice): a file that was empty is not "ok" silently.
    std::string notice;
};

// How usable the database is, as this process found it (when opening or on any later call).
enum class StoreCondition : std::uint8_t {
    Healthy,
    ReadOnly, // the disk is full: lookups serve hits, nothing is written (writes fail at once)
    Damaged,  // the file is not a database or is malformed: every call fails until repaired
};

// Path resolution: $FXSCOPE_CACHE_DIR/cache.db, else $XDG_CACHE_HOME/fxscope/cache.db (when
// absolute), else $HOME/.cache/fxscope/cache.db.
Result<std::string> defaultCachePath();

// Ownership rule for files that hold code to be loaded: owned by the effective user and not
// writable by group or others. Error::Invalid with the mode in `found` otherwise.
Status checkPrivateFile(const std::string& path);

class CacheStore {
public:
    // Creates the directory (0700) and database (0600) when missing; refuses a database, its
    // WAL files or its directory owned by someone else or writable by group/others; migrates
    // the schema (user_version); refuses a schema newer than kSchemaVersion. Degrades instead
    // of failing where the cache can still help: a damaged database opens Damaged (callers
    // bypass the cache; verify reports it), a full disk opens ReadOnly (hits are served).
    // Ownership (Error::Invalid, nothing written): the directory must hold the cache's marker,
    // or be new or empty (the marker is written), or hold a database of fxscope's from before
    // markers (adopted: the marker is written); the database and its -wal/-shm must be regular
    // files, not links; the database must carry fxscope's application_id, or be empty, or have
    // exactly fxscope's tables (adopted: the id is written). Error::Io when the directory or
    // database cannot be created (a full disk before the cache exists).
    static Result<std::unique_ptr<CacheStore>> open(const StoreOptions& options = {});
    ~CacheStore();
    CacheStore(const CacheStore&) = delete;
    CacheStore& operator=(const CacheStore&) = delete;

    const std::string& path() const;
    // The directory holding the database, artifacts/ (materialized files) and build-*/.
    const std::string& directory() const;
    int schemaVersion() const;
    StoreCondition condition() const;
    // For a condition other than Healthy: one sentence naming the file, what is wrong and the
    // fix. Empty when healthy.
    std::string conditionWarning() const;
    // Empty for a database that existed; else how it was found: it did not exist, or it was
    // an empty (0-byte) file, perhaps truncated — either way a new, empty cache was started.
    const std::string& openNotice() const;

    // Reads and checksums the entry. A hit bumps last_hit and hit_count. A row or blob that
    // fails its check is deleted and reported as Corrupt (the caller rebuilds).
    Result<LookupResult> lookup(const std::string& key, bool touch = true);
    // INSERT OR IGNORE: true when this call created the row, false when the key existed
    // (another process won). Evicts LRU entries beyond maxBytes afterwards.
    Result<bool> insert(const EntryInfo& info, const Artifact& artifact);
    // Writes one file of a looked-up entry to <directory>/artifacts/<key><extension> (0600,
    // atomically; an identical file is kept), records it so that remove, gc and eviction
    // delete it and the byte cap counts it, and returns its path for loading. Error::Invalid
    // when the entry has no file of that kind, Error::Io when it cannot be written.
    Result<std::string> materialize(const Entry& entry, ArtifactKind kind);
    // An advisory lock on building `key` (flock on <directory>/locks/<key>), so that of several
    // processes that miss the same key one builds while the others wait, then look up again.
    // The kernel drops it when its holder dies; after timeoutMs the caller builds anyway
    // (BuildLock::held() false). Released when the returned object goes.
    Result<BuildLock> lockBuild(const std::string& key, int timeoutMs);
    // A private directory for one build (<directory>/build-<pid>-XXXXXX), removed with its
    // files when the returned object goes; gc removes those whose process died.
    Result<ScratchDir> buildDirectory();
    Status markBad(const std::string& key, Reason code, const std::string& reason);
    // Deletes the row and its materialized files.
    Status remove(const std::string& key);

    Result<std::vector<EntryInfo>> list();
    Result<std::optional<EntryInfo>> info(const std::string& key);
    // A key from a unique prefix (at least 4 hex characters).
    Result<std::string> resolvePrefix(const std::string& prefix);
    Result<std::vector<EntryInfo>> entriesOfRegion(const std::string& regionDigest);
    // Bytes the cache occupies: database pages in use plus every materialized file.
    Result<std::int64_t> totalBytes();
    // Removes build directories of dead processes and files no entry owns, then evicts least
    // recently hit entries (rows and files) until totalBytes() <= maxBytes, and shrinks the
    // database file. ReadOnly (disk full): only the build directories and stale build locks.
    // Deletes only names the store creates (build-<pid>-XXXXXX, <key><extension>, lock files
    // named by a key) and never follows a link. Error::Invalid when the directory has lost its
    // marker, or artifacts/ is a symbolic link or not the user's.
    Result<GcReport> gc(std::int64_t maxBytes);
    // Checks every row and blob plus PRAGMA integrity_check; removes nothing.
    Result<VerifyReport> verify();

    // Statistics, ccache style: how often each reason ended a region's compile, persisted by
    // number. count() adds one; stats() lists the reasons seen, in number order (numbers this
    // build does not know are kept and listed as Reason::None).
    Status count(Reason reason);
    // The timings of entry `key` on `device` (replacing earlier ones); none when not saved.
    // Removing or evicting the entry removes them.
    Status saveTiming(const std::string& key, const std::string& device, const RegionTiming& t);
    Result<std::optional<RegionTiming>> timing(const std::string& key, const std::string& device);
    Result<std::vector<std::pair<int, std::int64_t>>> stats();

private:
    struct Impl;
    explicit CacheStore(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::cache
