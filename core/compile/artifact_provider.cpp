#include "core/compile/artifact_provider.h"

#include "core/cache/cache_explain.h"
#include "core/cache/cache_paths.h"
#include "core/remote/remote_tier.h" // the tier is the cache's RemoteStorage
#include "core/util/elapsed.h"

#include <chrono>

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

ArtifactProvider::ArtifactProvider(const CompileOptions& options) : m_options(options)
{
    if (options.store) {
        m_tiers.emplace(*options.store, options.remote);
    }
}

// The claim (build locks) goes with its member.
ArtifactProvider::~ArtifactProvider() = default;

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

Result<std::optional<ArtifactProvider::Loaded>>
ArtifactProvider::find(PreparedRegion& p, RegionOutcome& out, bool load, bool waitForOthers)
{
    m_busy = false;
    if (!usableStore(out)) {
        return std::optional<Loaded>();
    }
    return fromCache(p, out, load, waitForOthers);
}

void ArtifactProvider::storeUnverified(PreparedRegion& p, RegionOutcome& out,
                                       const Loaded& built)
{
    store(p, out, p.code->artifact(built.binary), cache::EntryStatus::Unverified,
          "built without running (--no-run)");
    out.state = RegionState::Built;
    out.headline = "built, not run or verified; " + out.headline;
}

// A hit loads the stored artifact from the file the store materializes (a remote hit is stored
// locally first); a miss is explained.
Result<std::optional<ArtifactProvider::Loaded>>
ArtifactProvider::fromCache(PreparedRegion& p, RegionOutcome& out, bool load, bool wait)
{
    const auto t0 = Clock::now();
    auto found = m_tiers->lookup(out.key, m_options.compiler.timeoutMs + 30000, wait);
    if (!found) {
        if (!usableStore(out)) {
            return std::optional<Loaded>(); // the lookup found the damage: bypassed
        }
        return failWith(out, Reason::FallbackCacheError, found.error());
    }
    if (found->busy) {
        m_busy = true;
        return std::optional<Loaded>();
    }
    m_claim = std::move(found->claim);
    if (found->entry) {
        auto hit = tierHit(p, out, *found, load);
        if (hit || found->state != cache::TierState::RemoteHit) {
            out.compileMs = msSince(t0);
        }
        return hit;
    }
    missed(p, out, *found);
    return std::optional<Loaded>();
}

Result<std::optional<ArtifactProvider::Loaded>>
ArtifactProvider::tierHit(PreparedRegion& p, RegionOutcome& out, const cache::TierLookup& found,
                          bool load)
{
    auto hit = localHit(p, out, *found.entry, load);
    if (!hit || !*hit) {
        return hit;
    }
    if (found.state == cache::TierState::HitAfterWait) {
        out.reason = Reason::HitAfterWait;
        out.headline = cache::headline(out.reason, "entry " + out.key.substr(0, 12) +
                                                       " built by another process while this "
                                                       "one waited");
    } else if (found.state == cache::TierState::RemoteHit) {
        out.reason = Reason::RemoteHit;
        out.headline = cache::remoteHitHeadline(*found.fetched, m_tiers->remote()->url());
    }
    return hit;
}

void ArtifactProvider::missed(PreparedRegion& p, RegionOutcome& out,
                              const cache::TierLookup& found)
{
    if (found.state == cache::TierState::RemoteRefused) {
        out.reason = found.reason;
        out.headline = cache::headline(found.reason, "remote entry at " +
                                                         m_tiers->remote()->url() + " refused (" +
                                                         found.problem + "); rebuilt");
        return;
    }
    if (found.state == cache::TierState::Corrupt) {
        out.reason = Reason::MissCorruptEntry;
        out.headline = cache::headline(out.reason, "the cached entry was corrupt (" +
                                                       found.problem + "); rebuilt");
        return;
    }
    m_explainLater = true;
}

// The nearest entry and the store's condition as they are when the region is built — after the
// regions before it stored theirs, as when the regions were compiled one after the other.
void ArtifactProvider::explainPendingMiss(PreparedRegion& p, RegionOutcome& out)
{
    if (!m_explainLater) {
        return;
    }
    m_explainLater = false;
    explainMiss(p, out);
    if (m_options.store->condition() == cache::StoreCondition::ReadOnly) {
        out.reason = Reason::BypassReadOnly;
        out.headline = cache::headline(out.reason, "built, not stored: " +
                                                       m_options.store->conditionWarning());
    }
}

Result<std::optional<ArtifactProvider::Loaded>>
ArtifactProvider::localHit(PreparedRegion& p, RegionOutcome& out, const cache::Entry& entry,
                           bool load)
{
    const cache::EntryInfo& e = entry.info;
    // Asked to time again (--retime), a region judged slower before is judged anew: it runs
    // like an unverified hit, stored verified when it now wins, marked slower again if not.
    const bool rejudge = m_options.retime && e.status == cache::EntryStatus::Bad &&
                         e.statusCode == Reason::SlowerThanEager;
    if (e.status == cache::EntryStatus::Bad && e.statusCode == Reason::SlowerThanEager &&
        !rejudge) {
        return failWith(out, Reason::SlowerThanEager,
                        makeError(ErrorCode::Runtime, "slower than eager on this device before (" +
                                                          e.statusReason + "); not used"));
    }
    if (e.status == cache::EntryStatus::Bad && !rejudge) {
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
    if (e.status == cache::EntryStatus::Unverified || rejudge) {
        loaded.unverified = entry.artifact;
    }
    out.state = RegionState::Hit;
    out.reason = Reason::Hit;
    out.headline = cache::hitHeadline(e);
    if (rejudge) {
        out.headline += "; slower than eager before (" + e.statusReason + "), timed again";
    }
    return std::optional<Loaded>(std::move(loaded));
}

// Against the nearest entry, local or remote: same region first, else any.
void ArtifactProvider::explainMiss(PreparedRegion& p, RegionOutcome& out)
{
    const cache::TieredExplanation nearest = m_tiers->nearest(p.key.components());
    const cache::MissCause cause = cache::missCause(nearest.explanation);
    out.reason = cause.reason;
    out.headline = cache::headline(cause.reason, cause.detail);
    if (!nearest.remoteUrl.empty()) {
        out.headline += " (nearest entry: " + nearest.remoteUrl + ")";
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

std::shared_ptr<BuildSlot> ArtifactProvider::newBuild(std::shared_ptr<const PreparedRegion> p)
{
    auto slot = std::make_shared<BuildSlot>();
    slot->region = std::move(p);
    // The store owns the build directory (gc removes it if this process dies); without a
    // store it is a temporary one. Either way it goes with the slot, once every region of its
    // key loaded the build: a loaded shared object stays mapped after its file is unlinked.
    auto dir = m_options.store
                   ? m_options.store->buildDirectory()
                   : cache::ScratchDir::create(cache::tempDirectory(), "fxscope-build-");
    if (dir) {
        slot->dir.emplace(std::move(*dir));
    } else {
        slot->dirError = dir.error();
    }
    return slot;
}

Result<ArtifactProvider::Loaded> ArtifactProvider::built(PreparedRegion& p, RegionOutcome& out,
                                                         const BuildSlot& slot, bool load)
{
    explainPendingMiss(p, out);
    out.state = RegionState::Miss;
    if (slot.dirError) {
        return failWith(out, buildFailureReason(*slot.dirError), *slot.dirError);
    }
    if (!slot.result) {
        return failWith(out, Reason::FallbackInternal,
                        makeError(ErrorCode::Cancelled, "the build did not run"));
    }
    const Result<BuiltArtifact>& b = *slot.result;
    if (!b) {
        return buildFailed(out, b.error(), slot.failed);
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
    loaded.binary = b->bytes;
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
    if (!m_tiers) {
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
    // A store failure costs the next run a rebuild, not this run its result.
    (void)m_tiers->store(e, artifact);
}

} // namespace fxs::compile::detail
