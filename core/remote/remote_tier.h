// The optional remote tier of the artifact cache: entries kept in a Redis server shared by a
// team, behind each machine's local SQLite store (core/cache). Values carry the artifact's
// SHA-256 and an HMAC-SHA-256 with the team key, so that whoever can write to Redis cannot make
// fxscope load code: a value failing either check is a miss with its reason, never loaded.
// Without a team key the tier reads metadata only (explain, ls) and never loads or writes.
// Faults degrade, never stop a run: a server down or gone mid-run turns the tier offline with
// one warning, and every later call returns at once (local only); the next run reconnects.
// Typical use: open(), then fetch() after a local miss and publish() after a build.
// Not thread-safe: one tier per compile job. Not the local store, not the lookup order
// (core/cache/tiered_cache.h, which sees it through cache::RemoteStorage).
#pragma once

#include "core/cache/cache_store.h"
#include "core/cache/reason.h"
#include "core/cache/remote_storage.h"
#include "core/remote/redis_client.h"
#include "core/util/result.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fxs::remote {

struct RemoteOptions {
    std::string url; // redis://host:port[/db]
    RedisTimeouts timeouts;
    // The team key. Unset: teamKeyFromEnvironment() ($FXSCOPE_CACHE_KEY, else the file in
    // $FXSCOPE_CACHE_KEY_FILE).
    std::optional<std::string> teamKey;
    std::string prefix = "fxscope:"; // namespace of fxscope's keys in the database
    // The longest wait for another process's build lock before building locally.
    std::int64_t lockWaitMs = 5000;
};

// The fetch vocabulary is the cache layer's (the interface RemoteTier implements).
using FetchState = cache::RemoteFetchState;
using FetchResult = cache::RemoteFetchResult;

class RemoteTier final : public cache::RemoteStorage {
public:
    // Errors: the URL does not parse; the key file is refused or unreadable. A server that
    // cannot be reached is not an error: the tier starts offline, with its warning.
    static Result<std::unique_ptr<RemoteTier>> open(const RemoteOptions& options);
    ~RemoteTier() override;
    RemoteTier(const RemoteTier&) = delete;
    RemoteTier& operator=(const RemoteTier&) = delete;

    const std::string& url() const override; // "redis://host:port[/db]"
    bool hasKey() const;
    bool online() const override;
    // What went wrong or is limited, each said once, in order (offline, no key).
    const std::vector<std::string>& warnings() const;

    // Metadata and blob of one key, checked. A hit refreshes the entry's access time (gc).
    FetchResult fetch(const std::string& key);
    // Writes an entry (metadata and blob at once). Not written: no key, offline, or the key
    // exists and !replace. True when written.
    bool publish(const cache::EntryInfo& info, const cache::Artifact& artifact,
                 bool replace = false) override;

    // A build lock so that one process builds what several want at once: true when this call
    // took it (it expires after ttlMs if its holder dies). The lock's value is signed with the
    // team key (remote_value.h: lockValue); without a key no lock is taken.
    bool tryLock(const std::string& key, std::int64_t ttlMs);
    // Releases a lock this tier took (and only such a lock).
    void unlock(const std::string& key) override;
    // What the compile flow calls: fetch; on a miss either take the build lock (`locked` set:
    // the caller builds, publishes and unlocks) or wait for the holder's entry (waitFor, at
    // most options.lockWaitMs). The fetch is repeated once the lock is taken, in case the
    // holder finished in between.
    FetchResult fetchOrLock(const std::string& key, std::int64_t patienceMs,
                            bool& locked) override;
    // After another process took the lock: polls until the entry appears (Hit or a check
    // failure), the lock goes or does not verify (Miss: unsigned, signed with another key,
    // expired, or no team key here), the tier goes offline, or timeoutMs passes (Miss).
    FetchResult waitFor(const std::string& key, std::int64_t timeoutMs);

    // Metadata of every entry (unchecked without a key: for explaining and listing only).
    // Errors: offline (Error::Io), a server error.
    Result<std::vector<cache::EntryInfo>> list() override;
    Result<std::vector<cache::EntryInfo>>
    entriesOfRegion(const std::string& regionDigest) override;
    Result<std::optional<cache::EntryInfo>> info(const std::string& key);
    // A key from a unique prefix (at least 4 hex characters).
    Result<std::string> resolvePrefix(const std::string& prefix);
    Status remove(const std::string& key);
    // Bytes the entries occupy (metadata and blobs).
    Result<std::int64_t> totalBytes();
    // Evicts the least recently used entries (last hit, else creation) until the entries
    // occupy at most maxBytes; removes blobs without metadata and metadata without blobs.
    Result<cache::GcReport> gc(std::int64_t maxBytes);
    // Checks every entry's checksum, and its HMAC when there is a key (`integrity`: "ok", or
    // "ok (checksums only: ...)" without a key); removes nothing.
    Result<cache::VerifyReport> verify();

    struct Impl; // remote_tier_impl.h: shared by the tier's source files only

private:
    explicit RemoteTier(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::remote
