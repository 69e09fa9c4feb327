// Pairs PyTorch's cache lookups for comparison: each lookup of run B with its counterpart in
// run A, or each lookup of one run with an earlier one of the same run. The pairing rules
// (compile ids, positions, same key) are here; the similarity fallback is keydiff's
// SimilarityIndex. Only pairs; what differs is component_differ's job.
#pragma once

#include "core/model/cache_lookup.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fxs::explain {

enum class MatchKind : std::uint8_t {
    None,       // no counterpart
    Position,   // same rank, compile id and cache, same position among those lookups
    Similarity, // the lookup with the most key components (name and digest) in common
    SameKey,    // within one run: an earlier lookup with the same key
    Chosen,     // picked by the caller (explainLookup)
};

std::string_view matchKindName(MatchKind k); // "none", "position", "similarity", "same_key", "chosen"

struct LookupMatch {
    std::optional<std::size_t> partner; // index into the lookups searched
    MatchKind kind = MatchKind::None;
    std::size_t commonComponents = 0; // components with equal name and digest (Similarity only)
};

using LookupList = std::vector<const model::CacheLookup*>;

// One entry per lookup of b. The partner is the lookup of a with the same rank, compile id and
// cache at the same position among that compile id's lookups of that cache (a forward and a
// backward FX lookup share one compile id: they pair in order). Without such a lookup: the
// lookup of a of the same cache with the most components in common (ties: the earliest); none
// when nothing is shared (e.g. a bypass without components). Runs in about
// O(components · min(f, n − f)) using an inverted index, not O(|a| · |b| · components).
std::vector<LookupMatch> matchLookups(const LookupList& a, const LookupList& b);
std::vector<LookupMatch> matchLookups(const std::vector<model::CacheLookup>& a,
                                      const std::vector<model::CacheLookup>& b);

// Within one run: for each lookup, an earlier lookup of the same cache —
//   SameKey:    the latest one with the same key (a miss that stored the entry a later hit
//               found, or a duplicated key that missed again), of its own rank when there is
//               one, else of another rank (the rank that stored the entry);
//   Similarity: for a miss, an earlier lookup of the same rank with the same graph code (gm
//               digest) and the most components in common (a repeated miss of the same graph;
//               ties: the latest) — another rank's other inputs are a divergence, not a cause;
//   Position:   for a miss of a recompile, the same slot (rank, cache, position) in the latest
//               earlier compile of the same frame, even when its graph code changed;
//   None:       the first lookup of a graph (e.g. the regions of regional compilation).
std::vector<LookupMatch> matchWithin(const LookupList& lookups);
std::vector<LookupMatch> matchWithin(const std::vector<model::CacheLookup>& lookups);

} // namespace fxs::explain
