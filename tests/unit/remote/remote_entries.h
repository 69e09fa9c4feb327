// Cache entries for the remote-tier tests: entry n of a region keyed by its number alone.
// For tests/unit/remote only; the remote tier's own code never makes entries this way.
#pragma once

#include "core/cache/cache_key.h"

#include <cstdint>
#include <string>

namespace fxs::remote::testing {

// Entry n: key and components of the region "region n", title "rn", 250 ms to compile.
inline cache::EntryInfo sampleEntry(int n, std::int64_t createdMs = 0)
{
    cache::KeyBuilder kb;
    kb.add(cache::kLabelRegion, "region " + std::to_string(n));
    cache::EntryInfo e;
    e.key = kb.key();
    e.components = kb.components();
    e.regionDigest = cache::regionDigest(e.components);
    e.title = "r" + std::to_string(n);
    e.compileMs = 250;
    e.createdMs = createdMs;
    return e;
}

} // namespace fxs::remote::testing
