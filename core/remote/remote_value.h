// INTERNAL to core/remote: the bytes of one remote entry. Two Redis values per cache key: the
// metadata ("<mac line>\n<JSON of the EntryInfo>", the MAC line "hmac-sha256:<hex>" or
// "unsigned") and the artifact blob (cache::serializeArtifact). The MAC is HMAC-SHA-256 with
// the team key over the format tag, the cache key, the metadata text and the blob; the
// metadata carries the blob's SHA-256. Not the Redis I/O (remote_tier.h).
#pragma once

#include "core/cache/cache_store.h"
#include "core/cache/reason.h"
#include "core/util/digest.h"

#include <optional>
#include <string>

namespace fxs::remote::detail {

inline constexpr std::string_view kValueFormat = "fxscope-remote-1";

// The metadata JSON of an entry (fields as `cache show` prints them).
std::string metadataText(const cache::EntryInfo& info);
// Parses metadata JSON; nullopt when it is not an entry's.
std::optional<cache::EntryInfo> parseMetadata(const std::string& text);

Sha256 valueMac(const std::string& teamKey, const std::string& key, const std::string& metadata,
                const std::string& blob);

struct SignedMetadata {
    std::optional<Sha256> mac; // absent: written unsigned, or the line is not a MAC
    std::string text;          // the JSON after the first line
};
std::string joinMetadata(const std::optional<Sha256>& mac, const std::string& text);
// nullopt when there is no first line.
std::optional<SignedMetadata> splitMetadata(const std::string& value);

// The checks a value must pass before its artifact may be loaded, in order: both parts present,
// metadata of this key, checksum, then (with a team key) the HMAC. `problem` empty: passed, and
// `entry` holds the artifact.
struct CheckedValue {
    cache::Reason reason = cache::Reason::None; // MissRemoteChecksum or MissRemoteHmac
    std::string problem;
    std::optional<cache::Entry> entry;
};
CheckedValue checkValue(const std::string& key, const std::optional<std::string>& teamKey,
                        const std::optional<std::string>& metaValue,
                        const std::optional<std::string>& blob);

// Build locks ("<prefix>lock:<key>"): "fxscope-lock-1 <holder> <expiry ms> <hmac hex>", the
// HMAC-SHA-256 with the team key over the format, the lock's Redis key, the holder and the
// expiry (unix epoch ms). A lock that does not verify is no lock: nobody waits on it.
std::string lockValue(const std::string& teamKey, const std::string& lockKey,
                      const std::string& holder, std::int64_t expiryMs);
// "<host>:<pid>:<random hex>": who holds a lock, unique per process (no spaces).
std::string lockHolderId();
// True when value is a lock of lockKey signed with teamKey that has not expired at nowMs.
bool validLock(const std::string& teamKey, const std::string& lockKey, const std::string& value,
               std::int64_t nowMs);

} // namespace fxs::remote::detail
