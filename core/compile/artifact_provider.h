// INTERNAL to core/compile (LibTorch): gets the loaded shared object of a prepared region —
// from the cache (a hit), or built now with the host compiler in a build directory the store
// owns (a miss, explained against the nearest entry; without a store a bypass, built in a
// temporary directory) — and afterwards records the verdict: a build is stored verified or
// bad, a hit that failed verification is marked bad. Sets the outcome's state, reason,
// headline and compile time; failures carry their reason (failWith). Never writes elsewhere.
#pragma once

#include "core/compile/kernel_call.h"
#include "core/compile/prepared_region.h"
#include "core/compile/shared_library.h"

#include <memory>
#include <string>

namespace fxs::compile::detail {

class ArtifactProvider {
public:
    explicit ArtifactProvider(const CompileOptions& options) : m_options(options) {}

    struct Loaded {
        std::shared_ptr<SharedLibrary> lib;
        bool built = false;  // built now (else a cache hit)
        std::string soBytes; // built: the shared object, for the store
    };
    Result<Loaded> obtain(PreparedRegion& p, RegionOutcome& out);
    // After the compiled run was compared with eager.
    void record(PreparedRegion& p, RegionOutcome& out, const Loaded& loaded,
                const Comparison& verdict);

private:
    Result<std::shared_ptr<SharedLibrary>> fromCache(PreparedRegion& p, RegionOutcome& out);
    Result<Loaded> build(PreparedRegion& p, RegionOutcome& out);

    const CompileOptions& m_options;
};

} // namespace fxs::compile::detail
