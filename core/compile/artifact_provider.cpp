#include "core/compile/artifact_provider.h"

#include "core/cache/cache_explain.h"
#include "core/cache/cache_paths.h"
#include "core/remote/remote_tier.h"
#include "core/util/elapsed.h"

#include <algorithm>
#include <chrono>
#include <tuple>

namespace fxs::compile::detail {
namespace {

using Clock = std::chrono::steady_clock;
using cache::Reason;

Reason buildFailureReason(const Error& e)
{
    return e.code == ErrorCode::Io ? Reason::FallbackCacheError : Reason::FallbackInternal;
}

// Why a build that ran failed: the compiler rejected the source or timed out; NVRTC missing.
Reason compilerFailureReason(const Error& e, const BuiltArtifact& failed)
{
    if (failed.timedOut) {
        return Reason::FallbackCompilerTimeout;
    }
    return e.code == ErrorCode::Runtime ? Reason::FallbackBuildFailed
                                        : Reason::FallbackCompilerMissing;
}

} // namespace

cache::CacheStore* ArtifactProvider::usableStore(RegionOutcome& out)
{
    cache::CacheStore* store = m_options.store;
    if (!store) {
        out.reason = Reason::BypassNoCache;
        out.headline = cache::headline(out.reason);
        return nullptr;
    }
    if (store->condition() == cache::StoreCondition::Damaged) {
        // The warning names the file and the fix; compiling goes on without the cache.
        out.reason = Reason::BypassCacheError;
        out.headline = cache::headline(out.reason, store->conditionWarning());
        return nullptr;
    }
    return store;
}

Result<ArtifactProvider::Loaded> ArtifactProvider::obtain(PreparedRegion& p, RegionOutcome& out)
{
    if (!usableStore(out)) {
        return build(p, out, true);
    }
    auto cached = fromCache(p, out, true);
    if (!cached) {
        return cached.error();
    }
    if (*cached) {
        return std::move(**cached);
    }
    return build(p, out, true);
}

Status ArtifactProvider::buildOnly(PreparedRegion& p, RegionOutcome& out)
{
    if (usableStore(out)) {
        auto cached = fromCache(p, out, false);
        if (!cached) {
            return cached.error();
        }
        if (*cached) {
            return {};
        }
    }
    auto built = build(p, out, false);
    if (!built) {
        return built.error();
    }
    store(p, out, p.code->artifact(std::move(built->binary)), cache::EntryStatus::Unverified,
          "built without running (--no-run)");
    out.state = RegionState::Built;
    out.headline = "built, not run or verified; " + out.headline;
    return {};
}

// A hit loads the stored artifact from the file the store materializes; a miss looks at the
// remote tier, then explains itself.
Result<std::optional<ArtifactProvider::Loaded>>
ArtifactProvider::fromCache(PreparedRegion& p, RegionOutcome& out, bool load)
{
    const auto t0 = Clock::now();
    auto r = m_options.store->lookup(out.key);
    if (!r) {
        if (!usableStore(out)) {
            return std::optional<Loaded>(); // the lookup found the damage: bypassed
        }
        return failWith(out, Reason::FallbackCacheError, r.error());
    }
    if (r->state == cache::LookupState::Hit) {
        auto hit = localHit(p, out, *r->entry, load);
        out.compileMs = msSince(t0);
        return hit;
    }
    if (auto waited = awaitBuilder(p, out, load); !waited || *waited) {
        out.compileMs = msSince(t0);
        return waited;
    }
    if (m_options.remote) {
        auto remote = fromRemote(p, out, load);
        if (!remote || *remote || out.reason != Reason::None) {
            if (remote && *remote) {
                out.compileMs = msSince(t0);
            }
            return remote;
        }
    }
    if (r->state == cache::LookupState::Corrupt) {
        out.reason = Reason::MissCorruptEntry;
        out.headline = cache::headline(out.reason, "the cached entry was corrupt (" + r->problem +
                                                       "); rebuilt");
        return std::optional<Loaded>();
    }
    explainMiss(p, out);
    if (m_options.store->condition() == cache::StoreCondition::ReadOnly) {
        out.reason = Reason::BypassReadOnly;
        out.headline = cache::headline(out.reason, "built, not stored: " +
                                                       m_options.store->conditionWarning());
    }
    return std::optional<Loaded>();
}

Result<std::optional<ArtifactProvider::Loaded>>
ArtifactProvider::awaitBuilder(PreparedRegion& p, RegionOutcome& out, bool load)
{
    cache::CacheStore& store = *m_options.store;
    if (store.condition() != cache::StoreCondition::Healthy) {
        return std::optional<Loaded>(); // nothing will be stored to wait for
    }
    // The holder keeps the lock until its entry is stored, which includes running and
    // verifying it; a lock that cannot be taken costs at most a duplicate build.
    auto lock = store.lockBuild(out.key, m_options.compiler.timeoutMs + 30000);
    if (!lock) {
        return std::optional<Loaded>();
    }
    m_buildLock.emplace(std::move(*lock));
    if (!m_buildLock->waited()) {
        return std::optional<Loaded>();
    }
    auto r = store.lookup(out.key);
    if (!r || r->state != cache::LookupState::Hit) {
        return std::optional<Loaded>(); // the other build failed or timed out: build here
    }
    m_buildLock.reset(); // the next waiter need not wait for this one's run
    auto hit = localHit(p, out, *r->entry, load);
    if (hit && *hit) {
        out.reason = Reason::HitAfterWait;
        out.headline = cache::headline(out.reason, "entry " + out.key.substr(0, 12) +
                                                       " built by another process while this "
                                                       "one waited");
    }
    return hit;
}

Result<std::optional<ArtifactProvider::Loaded>>
ArtifactProvider::localHit(PreparedRegion& p, RegionOutcome& out, const cache::Entry& entry,
                           bool load)
{
    const cache::EntryInfo& e = entry.info;
    if (e.status == cache::EntryStatus::Bad && e.statusCode == Reason::SlowerThanEager) {
        return failWith(out, Reason::SlowerThanEager,
                        makeError(ErrorCode::Runtime, "slower than eager on this device before (" +
                                                          e.statusReason + "); not used"));
    }
    if (e.status == cache::EntryStatus::Bad) {
        return failWith(out, Reason::FallbackKnownBad,
                        makeError(ErrorCode::Runtime,
                                  "the cached artifact failed verification before (" +
                                      e.statusReason + "); it is never used"));
    }
    Loaded loaded;
    if (load) {
        auto path = m_options.store->materialize(entry, p.code->binaryKind());
        if (!path) {
            return failWith(out, Reason::FallbackLoadFailed, path.error());
        }
        auto code = p.code->loadFile(*path);
        if (!code) {
            return failWith(out, Reason::FallbackLoadFailed, code.error());
        }
        loaded.code = *code;
    }
    if (e.status == cache::EntryStatus::Unverified) {
        loaded.unverified = entry.artifact;
    }
    out.state = RegionState::Hit;
    out.reason = Reason::Hit;
    out.headline = cache::hitHeadline(e);
    return std::optional<Loaded>(std::move(loaded));
}

ArtifactProvider::~ArtifactProvider()
{
    if (!m_remoteLock.empty()) {
        m_options.remote->unlock(m_remoteLock);
    }
}

Result<std::optional<ArtifactProvider::Loaded>>
ArtifactProvider::fromRemote(PreparedRegion& p, RegionOutcome& out, bool load)
{
    remote::RemoteTier& tier = *m_options.remote;
    // One process builds; the others wait for its entry (the lock expires if it dies).
    bool locked = false;
    const auto f = tier.fetchOrLock(out.key, m_options.compiler.timeoutMs + 30000, locked);
    if (locked) {
        m_remoteLock = out.key;
    }
    if (f.state == remote::FetchState::Rejected || f.state == remote::FetchState::NoKey) {
        m_replaceRemote = f.state == remote::FetchState::Rejected;
        out.reason = f.reason;
        out.headline = cache::headline(f.reason, "remote entry at " + tier.url() + " refused (" +
                                                     f.problem + "); rebuilt");
        return std::optional<Loaded>();
    }
    if (f.state != remote::FetchState::Hit) {
        return std::optional<Loaded>();
    }
    // Stored locally first (the local store owns the file that is loaded), with its origin in
    // the title for the Cache browser and `cache ls`.
    cache::EntryInfo info = f.entry->info;
    info.title += " (from " + tier.url() + ")";
    auto inserted = m_options.store->insert(info, f.entry->artifact);
    auto r = inserted ? m_options.store->lookup(out.key) : Result<cache::LookupResult>(
                                                               inserted.error());
    if (!r || r->state != cache::LookupState::Hit) {
        return std::optional<Loaded>(); // the local store refused it: built like a miss
    }
    auto hit = localHit(p, out, *r->entry, load);
    if (hit && *hit) {
        out.reason = Reason::RemoteHit;
        out.headline = cache::remoteHitHeadline(info, tier.url());
    }
    return hit;
}

// Against the nearest entry, local or remote: same region first, else any.
void ArtifactProvider::explainMiss(PreparedRegion& p, RegionOutcome& out)
{
    const auto& wanted = p.key.components();
    const std::string digest = cache::regionDigest(wanted);
    remote::RemoteTier* tier = m_options.remote && m_options.remote->online() ? m_options.remote
                                                                               : nullptr;
    auto gather = [&](bool sameRegion) {
        std::vector<cache::EntryInfo> all;
        auto local = sameRegion ? m_options.store->entriesOfRegion(digest)
                                : m_options.store->list();
        if (local) {
            all = std::move(*local);
        }
        const std::size_t nLocal = all.size();
        if (tier) {
            auto far = sameRegion ? tier->entriesOfRegion(digest) : tier->list();
            if (far) {
                all.insert(all.end(), far->begin(), far->end());
            }
        }
        return std::pair(std::move(all), nLocal);
    };
    auto [candidates, nLocal] = gather(true);
    if (candidates.empty()) {
        std::tie(candidates, nLocal) = gather(false);
    }
    const cache::MissExplanation why = cache::explainMiss(wanted, candidates);
    const cache::MissCause cause = cache::missCause(why);
    out.reason = cause.reason;
    out.headline = cache::headline(cause.reason, cause.detail);
    const auto nearest =
        std::find_if(candidates.begin(), candidates.end(),
                     [&](const cache::EntryInfo& e) { return e.key == why.nearestKey; });
    if (!why.cold && nearest - candidates.begin() >= static_cast<std::ptrdiff_t>(nLocal)) {
        out.headline += " (nearest entry: " + tier->url() + ")";
    }
}

Error ArtifactProvider::buildFailed(RegionOutcome& out, const Error& e, const BuiltArtifact& failed)
{
    out.compileMs = failed.ms;
    out.buildCommand = failed.command;
    out.buildDiagnostics = failed.diagnostics;
    // On a full disk the compiler's output has nowhere to go either.
    if (m_options.store && m_options.store->condition() == cache::StoreCondition::ReadOnly) {
        return failWith(out, Reason::FallbackDiskFull,
                        makeError(ErrorCode::Io, m_options.store->conditionWarning() +
                                                     "; the build failed: " + e.message));
    }
    return failWith(out, e.code == ErrorCode::Io ? buildFailureReason(e)
                                                 : compilerFailureReason(e, failed),
                    e);
}

Result<ArtifactProvider::Loaded> ArtifactProvider::build(PreparedRegion& p, RegionOutcome& out,
                                                         bool load)
{
    out.state = RegionState::Miss;
    // The store owns the build directory (gc removes it if this process dies); without a
    // store it is a temporary one. Either way it goes when this build is loaded: a loaded
    // shared object stays mapped after its file is unlinked.
    auto dir = m_options.store
                   ? m_options.store->buildDirectory()
                   : cache::ScratchDir::create(cache::tempDirectory(), "fxscope-build-");
    if (!dir) {
        return failWith(out, buildFailureReason(dir.error()), dir.error());
    }
    BuiltArtifact failed;
    auto b = p.code->build(dir->path(), failed);
    if (!b) {
        return buildFailed(out, b.error(), failed);
    }
    out.compileMs = b->ms;
    out.buildDiagnostics = b->diagnostics;
    Loaded loaded;
    loaded.built = true;
    if (load) {
        auto code = p.code->loadBuilt(*b);
        if (!code) {
            return failWith(out, Reason::FallbackLoadFailed, code.error());
        }
        loaded.code = *code;
    }
    loaded.binary = std::move(b->bytes);
    return loaded;
}

void ArtifactProvider::record(PreparedRegion& p, RegionOutcome& out, const Loaded& loaded,
                              const Comparison& verdict)
{
    cache::CacheStore* store = m_options.store;
    if (!store) {
        return;
    }
    // A store failure costs the next run a rebuild, not this run its result.
    if (!loaded.built) {
        if (!verdict.ok) {
            (void)store->markBad(out.key, Reason::FallbackVerifyFailed, verdict.problem);
        } else if (loaded.unverified) {
            // Built without running (build-only); this run verified it.
            (void)store->remove(out.key);
            this->store(p, out, *loaded.unverified, cache::EntryStatus::Verified, "");
        }
        return;
    }
    this->store(p, out, p.code->artifact(loaded.binary),
                verdict.ok ? cache::EntryStatus::Verified : cache::EntryStatus::Bad,
                verdict.problem);
}

void ArtifactProvider::rejectSlower(RegionOutcome& out, const std::string& numbers)
{
    if (cache::CacheStore* store = m_options.store) {
        // A store failure costs the next run a new measurement, not this run its result.
        (void)store->markBad(out.key, Reason::SlowerThanEager, numbers);
    }
}

void ArtifactProvider::store(PreparedRegion& p, RegionOutcome& out, cache::Artifact artifact,
                             cache::EntryStatus status, const std::string& reason)
{
    if (!m_options.store) {
        return;
    }
    cache::EntryInfo e;
    e.key = out.key;
    e.components = p.key.components();
    e.regionDigest = cache::regionDigest(e.components);
    e.title = out.id + " (" + std::to_string(out.nodes) + " nodes, " + p.code->target() + ")";
    e.compileMs = out.compileMs;
    e.status = status;
    e.statusCode = status == cache::EntryStatus::Bad ? Reason::FallbackVerifyFailed : Reason::None;
    e.statusReason = reason;
    (void)m_options.store->insert(e, artifact);
    // A bad entry stays local: other machines find out for themselves. A verified one replaces
    // an unverified or refused remote value.
    if (m_options.remote && status != cache::EntryStatus::Bad) {
        (void)m_options.remote->publish(e, artifact,
                                        m_replaceRemote || status == cache::EntryStatus::Verified);
    }
}

} // namespace fxs::compile::detail
