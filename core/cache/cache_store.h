// The SQLite artifact store of the region compiler: one row per cache key holding the key's
// components, the artifact blob (shared object + source, SHA-256 checked on every read), sizes,
// compile time and LRU bookkeeping. Safe for several processes at once (WAL, insert-or-ignore).
// Not for building keys (cache_key.h) or explaining misses (cache_explain.h). No sqlite types.
#pragma once

#include "core/cache/cache_key.h"
#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fxs::cache {

inline constexpr int kSchemaVersion = 1; // PRAGMA user_version after migrations

// Persisted (numbered, append only).
enum class EntryStatus : std::uint8_t { Verified = 1, Bad = 2, Unverified = 3 };
std::string_view entryStatusName(EntryStatus s); // "verified", "bad", "unverified"

struct Artifact {
    std::string sharedObject; // the .so bytes
    std::string source;       // the generated C++ source
};

// Entry metadata without the blob (what ls/show/explain need).
struct EntryInfo {
    std::string key;
    std::vector<KeyComponent> components; // label order
    std::string regionDigest;
    std::string title;                    // free text: region id and graph, for ls
    std::string blobSha256;
    std::int64_t soBytes = 0;
    std::int64_t sourceBytes = 0;
    std::int64_t blobBytes = 0;
    double compileMs = 0;
    std::int64_t createdMs = 0; // unix epoch milliseconds
    std::int64_t lastHitMs = 0;
    std::int64_t hitCount = 0;
    EntryStatus status = EntryStatus::Verified;
    std::string statusReason;
};

struct Entry {
    EntryInfo info;
    Artifact artifact;
};

struct StoreOptions {
    std::string path;                            // empty: defaultCachePath()
    std::int64_t maxBytes = 2LL * 1024 * 1024 * 1024; // blob bytes kept; LRU beyond
    int busyTimeoutMs = 10000;
};

enum class LookupState : std::uint8_t { Hit, Miss, Corrupt };
struct LookupResult {
    LookupState state = LookupState::Miss;
    std::optional<Entry> entry; // Hit (also Bad entries: callers check info.status)
    std::string problem;        // Corrupt: what failed; the row was removed
};

struct GcReport {
    int removed = 0;
    std::int64_t bytesBefore = 0;
    std::int64_t bytesAfter = 0;
};

struct VerifyReport {
    int checked = 0;
    std::vector<std::pair<std::string, std::string>> corrupt; // key, problem
    std::string integrity; // PRAGMA integrity_check result ("ok")
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
    // the schema (user_version); refuses a schema newer than kSchemaVersion.
    static Result<std::unique_ptr<CacheStore>> open(const StoreOptions& options = {});
    ~CacheStore();
    CacheStore(const CacheStore&) = delete;
    CacheStore& operator=(const CacheStore&) = delete;

    const std::string& path() const;
    int schemaVersion() const;

    // Reads and checksums the entry. A hit bumps last_hit and hit_count. A row or blob that
    // fails its check is deleted and reported as Corrupt (the caller rebuilds).
    Result<LookupResult> lookup(const std::string& key, bool touch = true);
    // INSERT OR IGNORE: true when this call created the row, false when the key existed
    // (another process won). Evicts LRU entries beyond maxBytes afterwards.
    Result<bool> insert(const EntryInfo& info, const Artifact& artifact);
    Status markBad(const std::string& key, const std::string& reason);
    Status remove(const std::string& key);

    Result<std::vector<EntryInfo>> list();
    Result<std::optional<EntryInfo>> info(const std::string& key);
    // A key from a unique prefix (at least 4 hex characters).
    Result<std::string> resolvePrefix(const std::string& prefix);
    Result<std::vector<EntryInfo>> entriesOfRegion(const std::string& regionDigest);
    Result<std::int64_t> totalBytes();
    // Evicts least recently hit entries until the blobs fit in maxBytes.
    Result<GcReport> gc(std::int64_t maxBytes);
    // Checks every row and blob plus PRAGMA integrity_check; removes nothing.
    Result<VerifyReport> verify();

private:
    struct Impl;
    explicit CacheStore(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::cache
