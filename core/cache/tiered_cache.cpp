#include "core/cache/tiered_cache.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace fxs::cache {

BuildClaim::BuildClaim(BuildClaim&& other) noexcept
    : m_local(std::move(other.m_local)),
      m_remote(std::exchange(other.m_remote, nullptr)),
      m_key(std::move(other.m_key))
{
    other.m_local.reset();
}

BuildClaim& BuildClaim::operator=(BuildClaim&& other) noexcept
{
    if (this != &other) {
        release();
        m_local = std::move(other.m_local);
        other.m_local.reset();
        m_remote = std::exchange(other.m_remote, nullptr);
        m_key = std::move(other.m_key);
    }
    return *this;
}

BuildClaim::~BuildClaim() { release(); }

// The remote lock first, then the local one: by then the entry is in both tiers (or the build
// failed), so either kind of waiter finds what there is.
void BuildClaim::release()
{
    if (m_remote) {
        std::exchange(m_remote, nullptr)->unlock(m_key);
    }
    m_local.reset();
}

Result<TierLookup> TieredCache::lookup(const std::string& key, std::int64_t patienceMs,
                                       bool waitForBuilder)
{
    auto r = m_local.lookup(key);
    if (!r) {
        return r.error();
    }
    TierLookup out;
    if (r->state == LookupState::Hit) {
        out.state = TierState::LocalHit;
        out.entry = std::move(r->entry);
        return out;
    }
    if (awaitLocalBuilder(key, patienceMs, waitForBuilder, out)) {
        return out;
    }
    if (m_remote && fromRemote(key, patienceMs, out)) {
        return out;
    }
    out.state = r->state == LookupState::Corrupt ? TierState::Corrupt : TierState::Miss;
    out.problem = r->problem;
    return out;
}

// True with a hit when another process held the lock and stored the entry meanwhile; else the
// lock (if it could be taken) stays in the claim for this build.
bool TieredCache::awaitLocalBuilder(const std::string& key, std::int64_t patienceMs, bool wait,
                                    TierLookup& out)
{
    if (m_local.condition() != StoreCondition::Healthy) {
        return false; // nothing will be stored to wait for
    }
    // The holder keeps the lock until its entry is stored, which includes running and
    // verifying it; a lock that cannot be taken costs at most a duplicate build.
    const auto timeoutMs = wait ? static_cast<int>(std::clamp<std::int64_t>(
                                      patienceMs, 0, std::numeric_limits<int>::max()))
                                : 0;
    auto lock = m_local.lockBuild(key, timeoutMs);
    if (!lock) {
        return false;
    }
    out.claim.m_local.emplace(std::move(*lock));
    if (!out.claim.m_local->waited()) {
        return false;
    }
    auto r = m_local.lookup(key);
    if (!r || r->state != LookupState::Hit) {
        if (!wait && !out.claim.holdsLocal()) {
            out.claim.m_local.reset(); // another process builds it: the caller asks again later
            out.busy = true;
            return true;
        }
        return false; // the other build failed or timed out: build here
    }
    out.claim.m_local.reset(); // the next waiter need not wait for this one's run
    out.state = TierState::HitAfterWait;
    out.entry = std::move(r->entry);
    return true;
}

// True with a remote hit (stored locally first: the local store owns the file that is loaded)
// or a refused value; false for a plain remote miss, an offline remote, or a hit the local
// store would not keep (built like a miss).
bool TieredCache::fromRemote(const std::string& key, std::int64_t patienceMs, TierLookup& out)
{
    // One process builds; the others wait for its entry (the lock expires if it dies).
    bool locked = false;
    RemoteFetchResult f = m_remote->fetchOrLock(key, patienceMs, locked);
    if (locked) {
        out.claim.m_remote = m_remote;
        out.claim.m_key = key;
    }
    if (f.state == RemoteFetchState::Rejected || f.state == RemoteFetchState::NoKey) {
        if (f.state == RemoteFetchState::Rejected) {
            m_refused.insert(key);
        }
        out.state = TierState::RemoteRefused;
        out.reason = f.reason;
        out.problem = std::move(f.problem);
        return true;
    }
    if (f.state != RemoteFetchState::Hit || !f.entry) {
        return false;
    }
    // The origin in the title, for the Cache browser and `cache ls`.
    EntryInfo info = f.entry->info;
    info.title += " (from " + m_remote->url() + ")";
    auto inserted = m_local.insert(info, f.entry->artifact);
    auto r = inserted ? m_local.lookup(key) : Result<LookupResult>(inserted.error());
    if (!r || r->state != LookupState::Hit) {
        return false;
    }
    out.state = TierState::RemoteHit;
    out.entry = std::move(r->entry);
    out.fetched = std::move(info);
    return true;
}

TieredExplanation TieredCache::nearest(const std::vector<KeyComponent>& wanted)
{
    const std::string digest = regionDigest(wanted);
    RemoteStorage* far = m_remote && m_remote->online() ? m_remote : nullptr;
    // Local entries first, so that of equal entries the local one is chosen.
    auto gather = [&](bool sameRegion) {
        std::vector<EntryInfo> all;
        auto near = sameRegion ? m_local.entriesOfRegion(digest) : m_local.list();
        if (near) {
            all = std::move(*near);
        }
        const std::size_t nLocal = all.size();
        if (far) {
            auto remote = sameRegion ? far->entriesOfRegion(digest) : far->list();
            if (remote) {
                all.insert(all.end(), remote->begin(), remote->end());
            }
        }
        return std::pair(std::move(all), nLocal);
    };
    auto [candidates, nLocal] = gather(true);
    if (candidates.empty()) {
        std::tie(candidates, nLocal) = gather(false);
    }
    TieredExplanation t;
    t.explanation = explainMiss(wanted, candidates);
    const auto nearestEntry = std::find_if(
        candidates.begin(), candidates.end(),
        [&](const EntryInfo& e) { return e.key == t.explanation.nearestKey; });
    if (far && !t.explanation.cold && nearestEntry != candidates.end() &&
        nearestEntry - candidates.begin() >= static_cast<std::ptrdiff_t>(nLocal)) {
        t.remoteUrl = far->url();
    }
    return t;
}

TierWrites TieredCache::store(const EntryInfo& entry, const Artifact& artifact)
{
    TierWrites w;
    auto inserted = m_local.insert(entry, artifact);
    w.local = inserted && *inserted;
    if (m_remote && entry.status != EntryStatus::Bad) {
        const bool replace =
            entry.status == EntryStatus::Verified || m_refused.count(entry.key) > 0;
        w.remote = m_remote->publish(entry, artifact, replace);
    }
    return w;
}

} // namespace fxs::cache
