// The secondary storage behind the local store, as the region cache sees it (ccache's
// `storage::remote::RemoteStorage`): checked fetches, publishes, a build lock shared by the
// processes of a team, and the metadata a miss is explained against. The cache layer depends
// on this interface only; core/remote's `RemoteTier` (Redis) implements it, tests use an
// in-memory one. Not the lookup order across tiers (tiered_cache.h) and not the admin commands
// (`cache --remote`: list, gc, verify are RemoteTier's own).
#pragma once

#include "core/cache/cache_store.h"
#include "core/cache/reason.h"
#include "core/util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fxs::cache {

enum class RemoteFetchState : std::uint8_t {
    Hit,         // verified (checksum and HMAC): `entry` holds the artifact
    Miss,        // no entry under the key
    Rejected,    // the value failed a check: `reason` and `problem` say which; never load it
    NoKey,       // the entry exists, but without a team key its artifact is never loaded
    Unavailable, // the storage is offline
};

struct RemoteFetchResult {
    RemoteFetchState state = RemoteFetchState::Miss;
    std::optional<Entry> entry;     // Hit
    std::optional<EntryInfo> info;  // Hit and NoKey: the metadata
    Reason reason = Reason::None;   // Rejected: MissRemoteChecksum/Hmac; NoKey
    std::string problem;
};

class RemoteStorage {
public:
    virtual ~RemoteStorage() = default;

    // Names the storage in headlines and warnings ("redis://host:port[/db]").
    virtual const std::string& url() const = 0;
    // False once a fault turned it offline: every later call returns at once.
    virtual bool online() const = 0;

    // Fetches the key's entry, checked; on a miss either takes the build lock (`locked` set:
    // the caller builds, publishes and unlocks; the lock expires after patienceMs if the
    // caller dies) or waits a bounded time for the holder's entry (then Hit, or Miss when the
    // holder published nothing in time: the caller builds without the lock).
    virtual RemoteFetchResult fetchOrLock(const std::string& key, std::int64_t patienceMs,
                                          bool& locked) = 0;
    // Releases a lock fetchOrLock took (and only such a lock).
    virtual void unlock(const std::string& key) = 0;
    // Writes an entry (metadata and artifact at once). Not written: the storage cannot write
    // (offline, no key), or the key exists and !replace. True when written.
    virtual bool publish(const EntryInfo& info, const Artifact& artifact, bool replace) = 0;

    // Metadata of every entry, and of one region's entries (for explaining a miss).
    virtual Result<std::vector<EntryInfo>> list() = 0;
    virtual Result<std::vector<EntryInfo>> entriesOfRegion(const std::string& regionDigest) = 0;
};

} // namespace fxs::cache
