// INTERNAL to core/compile (LibTorch): gets the loaded artifact of a prepared region — a shared
// object (host) or a cubin (CUDA) — from the cache (a hit: the store materializes the file it
// owns), or from a build (a miss, explained against the nearest entry; without a store a
// bypass) in a build directory the store owns or a temporary one, built by the region build pool
// (region_build_pool.h) between find() and built(); and afterwards records the verdict:
// a build is stored verified or bad, a hit that failed verification is marked bad, a hit on an
// unverified (build-only) entry that passed is stored verified. Build-only: looks up, else
// builds and stores the entry unverified. Sets the outcome's state, reason, headline and
// compile time; failures carry their reason (failWith). The tiers (local store, remote tier,
// the build locks that let one process of several build a key, the nearest entry of either
// tier) are cache::TieredCache's; this file adds building, loading and the outcome's words.
// The claim on building the key is held until the provider goes. A damaged store is bypassed
// (reason bypass_cache_error, its warning as the headline); a store on a full disk serves hits
// and stores nothing (bypass_read_only). Never writes elsewhere. Used on one thread (the
// region compiler's calling thread): the store and the remote tier are not thread-safe.
#pragma once

#include "core/cache/tiered_cache.h"
#include "core/compile/kernel_call.h"
#include "core/compile/prepared_region.h"
#include "core/compile/region_build_pool.h"

#include <memory>
#include <optional>
#include <string>

namespace fxs::compile::detail {

class ArtifactProvider {
public:
    explicit ArtifactProvider(const CompileOptions& options);
    ~ArtifactProvider();
    ArtifactProvider(const ArtifactProvider&) = delete;
    ArtifactProvider& operator=(const ArtifactProvider&) = delete;

    struct Loaded {
        std::shared_ptr<GeneratedCode> code;
        bool built = false;  // built now (else a cache hit)
        std::string binary;  // built: the shared object or cubin, for the store
        std::optional<cache::Artifact> unverified; // a hit on an unverified entry: its files
    };
    // The lookup (either tier): a hit (loaded when `load`), or nullopt when the key is to be
    // built — a miss explained (its claim on building the key held), or no usable store (a
    // bypass). Errors: the hit cannot be used (known bad, slower than eager, load failed) or
    // the store failed. waitForOthers false: a key another process is building is not waited
    // for: nullopt with busyElsewhere() (nothing explained or claimed; ask again later).
    Result<std::optional<Loaded>> find(PreparedRegion& p, RegionOutcome& out, bool load,
                                       bool waitForOthers = true);
    bool busyElsewhere() const { return m_busy; }
    // A slot for building the region's key, with the directory its build goes to (the
    // store's, else a temporary one; a directory that cannot be made is the slot's dirError).
    std::shared_ptr<BuildSlot> newBuild(std::shared_ptr<const PreparedRegion> p);
    // What the slot's build gave this region (state Miss, the build time, the diagnostics),
    // loaded when `load` (the slot's directory still holds the host's shared object). A failed
    // build carries its reason (compiler failed or timed out, disk full, cache error).
    Result<Loaded> built(PreparedRegion& p, RegionOutcome& out, const BuildSlot& slot, bool load);
    // After the compiled run was compared with eager.
    void record(PreparedRegion& p, RegionOutcome& out, const Loaded& loaded,
                const Comparison& verdict);
    // The verified region lost to eager (slower_than_eager): its entry keeps the verdict with
    // both timings (`numbers`), so that later runs on this device do not use it.
    void rejectSlower(RegionOutcome& out, const std::string& numbers);
    // Build-only: a build stored unverified (state Built).
    void storeUnverified(PreparedRegion& p, RegionOutcome& out, const Loaded& built);

private:
    // A hit (loaded when `load`), or nullopt on a miss (explained).
    Result<std::optional<Loaded>> fromCache(PreparedRegion& p, RegionOutcome& out, bool load,
                                            bool wait);
    // A hit of either tier (the entry in the local store) loaded when `load`, with its reason.
    Result<std::optional<Loaded>> tierHit(PreparedRegion& p, RegionOutcome& out,
                                          const cache::TierLookup& found, bool load);
    // A local hit (Hit or Bad entry) loaded when `load`.
    Result<std::optional<Loaded>> localHit(PreparedRegion& p, RegionOutcome& out,
                                           const cache::Entry& entry, bool load);
    // The store to use; null (with the bypass reason and headline set) when there is none or
    // it is damaged.
    cache::CacheStore* usableStore(RegionOutcome& out);
    // A miss with no hit in either tier: its reason and headline (a plain miss: later, in
    // built(), against the entries stored meanwhile by the regions before this one).
    void missed(PreparedRegion& p, RegionOutcome& out, const cache::TierLookup& found);
    void explainPendingMiss(PreparedRegion& p, RegionOutcome& out);
    void explainMiss(PreparedRegion& p, RegionOutcome& out);
    // The reason (disk full, compiler, cache) and error of a build that failed.
    Error buildFailed(RegionOutcome& out, const Error& e, const BuiltArtifact& failed);
    void store(PreparedRegion& p, RegionOutcome& out, cache::Artifact artifact,
               cache::EntryStatus status, const std::string& reason);

    const CompileOptions& m_options;
    std::optional<cache::TieredCache> m_tiers; // with a store: it and the remote tier
    cache::BuildClaim m_claim; // this provider's claim on building its key, while it builds
    bool m_explainLater = false; // a plain miss, explained in built()
    bool m_busy = false;         // the last find() met another process's build of the key
};

} // namespace fxs::compile::detail
