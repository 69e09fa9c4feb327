// The region cache's tiers as one (ccache's `storage::Storage`): the local store first, an
// optional remote storage behind it (remote_storage.h; core/remote's Redis tier). Owns the
// order and the rules across them: a local hit never asks the remote; after a local miss one
// process of several builds the key (the local build lock) while the others wait and hit; then
// the remote is fetched, a checked remote hit stored locally (its origin in the title) and
// served from there, a refused remote value reported with its reason and overwritten by the
// next store; a miss is explained against the nearest entry of either tier; new entries go to
// both (a bad one stays local). Not the compile concerns (building, loading, verifying, the
// outcome's wording: core/compile/artifact_provider.cpp), not the stores themselves.
// Not thread-safe: one per compile job, like the remote tier it may hold.
#pragma once

#include "core/cache/build_lock.h"
#include "core/cache/cache_explain.h"
#include "core/cache/cache_store.h"
#include "core/cache/remote_storage.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fxs::cache {

// This process's claim on building one key: the local build lock (held until the entry is
// stored, so that the processes waiting on it then hit) and the remote storage's lock (so that
// one process of a team builds). Both go when the claim goes or release() is called, the
// remote one first. Empty when nothing was taken (a hit, a lock that timed out).
class BuildClaim {
public:
    BuildClaim() = default;
    BuildClaim(BuildClaim&& other) noexcept;
    BuildClaim& operator=(BuildClaim&& other) noexcept;
    BuildClaim(const BuildClaim&) = delete;
    BuildClaim& operator=(const BuildClaim&) = delete;
    ~BuildClaim();

    bool holdsLocal() const { return m_local && m_local->held(); }
    bool holdsRemote() const { return m_remote != nullptr; }
    void release();

private:
    friend class TieredCache;
    std::optional<BuildLock> m_local;
    RemoteStorage* m_remote = nullptr; // set while this claim holds the remote lock of m_key
    std::string m_key;
};

enum class TierState : std::uint8_t {
    LocalHit,      // in the local store
    HitAfterWait,  // another process held the local build lock, and stored the entry meanwhile
    RemoteHit,     // fetched, checked and stored locally: served from the local store
    RemoteRefused, // the remote value failed a check (or there is no team key): rebuild
    Corrupt,       // the local row failed its check and was removed; the remote had nothing
    Miss,
};

struct TierLookup {
    TierState state = TierState::Miss;
    // The hits: the local entry (Bad ones too: the caller checks info.status).
    std::optional<Entry> entry;
    // RemoteHit: the entry's metadata as fetched and stored (its title says where from).
    std::optional<EntryInfo> fetched;
    Reason reason = Reason::None; // RemoteRefused: MissRemoteChecksum, MissRemoteHmac, ...NoKey
    std::string problem;          // RemoteRefused: the check that failed; Corrupt: what failed
    // A lookup that would not wait (lookup's waitForBuilder false): another process holds the
    // key's build lock and has not stored it yet (state Miss, nothing claimed, remote not asked).
    bool busy = false;
    // What this process holds to build the key (kept by the caller until it stored it).
    BuildClaim claim;
};

// The nearest entry of either tier, with the remote's URL when it is the remote's.
struct TieredExplanation {
    MissExplanation explanation;
    std::string remoteUrl; // empty: the nearest entry is local (or there is none)
};

// What store() wrote.
struct TierWrites {
    bool local = false;  // a new local row (false: it existed, or the store refused it)
    bool remote = false; // written to the remote storage
};

class TieredCache {
public:
    // remote: null for the local store alone. Both must outlive this object and its claims.
    explicit TieredCache(CacheStore& local, RemoteStorage* remote = nullptr)
        : m_local(local), m_remote(remote)
    {
    }

    RemoteStorage* remote() { return m_remote; } // null: the local store alone

    // Local lookup; after a miss, the local build lock (when the store is healthy: a holder is
    // waited on for at most patienceMs, then its entry looked up), then the remote (whose lock
    // expires after patienceMs). Errors: the first local lookup failed (the store may have
    // found itself damaged); later faults only make a miss. waitForBuilder false: a local
    // build lock another process holds is not waited for (TierLookup::busy), so that a caller
    // holding claims on other keys never waits on one (two processes claiming keys in opposite
    // orders would each wait for the other until the patience ran out).
    Result<TierLookup> lookup(const std::string& key, std::int64_t patienceMs,
                              bool waitForBuilder = true);
    // The nearest entry to `wanted` among the same region's entries of both tiers (the remote
    // one when it is online), else among all; of equals the local entry.
    TieredExplanation nearest(const std::vector<KeyComponent>& wanted);
    // Inserts the entry locally (insert-or-ignore) and publishes it remotely unless it is Bad
    // (other machines find out for themselves). A remote value is replaced when the entry is
    // Verified or when this object's lookup refused the remote value of the key; else an
    // existing one is kept. Failures cost a later run a rebuild: they are not errors.
    TierWrites store(const EntryInfo& entry, const Artifact& artifact);

private:
    bool awaitLocalBuilder(const std::string& key, std::int64_t patienceMs, bool wait,
                           TierLookup& out);
    bool fromRemote(const std::string& key, std::int64_t patienceMs, TierLookup& out);

    CacheStore& m_local;
    RemoteStorage* m_remote;
    std::set<std::string> m_refused; // keys whose remote value a lookup refused
};

} // namespace fxs::cache
