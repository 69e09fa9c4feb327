// INTERNAL to core/compile (LibTorch): gets the loaded artifact of a prepared region — a shared
// object (host) or a cubin (CUDA) — from the cache (a hit: the store materializes the file it
// owns), or built now (a miss, explained against the nearest entry; without a store a bypass)
// in a build directory the store owns or a temporary one; and afterwards records the verdict:
// a build is stored verified or bad, a hit that failed verification is marked bad, a hit on an
// unverified (build-only) entry that passed is stored verified. Build-only: looks up, else
// builds and stores the entry unverified. Sets the outcome's state, reason, headline and
// compile time; failures carry their reason (failWith). Never writes elsewhere.
#pragma once

#include "core/compile/kernel_call.h"
#include "core/compile/prepared_region.h"

#include <memory>
#include <optional>
#include <string>

namespace fxs::compile::detail {

class ArtifactProvider {
public:
    explicit ArtifactProvider(const CompileOptions& options) : m_options(options) {}

    struct Loaded {
        std::shared_ptr<GeneratedCode> code;
        bool built = false;  // built now (else a cache hit)
        std::string binary;  // built: the shared object or cubin, for the store
        std::optional<cache::Artifact> unverified; // a hit on an unverified entry: its files
    };
    Result<Loaded> obtain(PreparedRegion& p, RegionOutcome& out);
    // After the compiled run was compared with eager.
    void record(PreparedRegion& p, RegionOutcome& out, const Loaded& loaded,
                const Comparison& verdict);
    // Build-only: a hit leaves the entry as it is; a miss builds and stores it unverified
    // (state Built).
    Status buildOnly(PreparedRegion& p, RegionOutcome& out);

private:
    // A hit (loaded when `load`), or nullopt on a miss (explained).
    Result<std::optional<Loaded>> fromCache(PreparedRegion& p, RegionOutcome& out, bool load);
    Result<Loaded> build(PreparedRegion& p, RegionOutcome& out, bool load);
    void store(PreparedRegion& p, RegionOutcome& out, cache::Artifact artifact,
               cache::EntryStatus status, const std::string& reason);

    const CompileOptions& m_options;
};

} // namespace fxs::compile::detail
