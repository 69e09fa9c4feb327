// The explain facade: why each compile-cache lookup of a run hit, missed or bypassed, compared
// with another run (explainRuns) or with earlier lookups of the same run (explainWithin).
// What the CLI's `explain` and the app's cache panel call. Plain data out; no Qt, no I/O
// (read runs with io::readTorchTracePath or io::loadPaths first).
//
// Typical use:
//   auto ex = fxs::explain::explainRuns(runA, runB);
//   if (!ex) { show(ex.error()); return; }
//   for (const auto& e : ex->lookups) { e.headline; e.diff.changes; e.graphDiff; ... }
#pragma once

#include "core/explain/component_differ.h"
#include "core/explain/graph_diff.h"
#include "core/explain/headline.h"
#include "core/explain/lookup_matcher.h"
#include "core/model/run.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fxs::explain {

// One lookup of the explained run (B), with its partner and why it did what it did.
struct LookupExplanation {
    std::size_t index = 0; // position in B's Run::lookups
    model::CacheKind cache = model::CacheKind::FxGraph;
    model::CacheState state = model::CacheState::Miss;
    std::string detailedStatus; // "full_miss", "guard_miss", "hit", ...
    model::CompileId compileId;
    int rank = -1;
    std::optional<std::string> key;

    // The partner: index into A's Run::lookups (explainWithin: an earlier lookup of the same
    // run), how it was found, and its state and key.
    std::optional<std::size_t> partner;
    MatchKind matchKind = MatchKind::None;
    std::optional<model::CacheState> partnerState;
    std::optional<std::string> partnerKey;

    // Miss: time_taken_ns; hit: time saved (time_saved_ns, or time_saved_ms for AOT hits);
    // none when the log does not say.
    std::optional<std::int64_t> costNs;

    Verdict verdict = Verdict::NoPartner;
    std::string headline;
    // Ranked component differences to the partner (diff.changes[0] = most likely cause).
    // Filled for misses whose partner has a different key; empty otherwise.
    ComponentDiff diff;
    // When the `gm` component changed: the graph diff of both graph codes.
    std::optional<GraphDiff> graphDiff;
};

struct Explanation {
    std::vector<LookupExplanation> lookups; // one per lookup of B, in B's order
    std::size_t lookupsA = 0;               // lookups in A (explainWithin: the run's)
    bool within = false;                    // produced by explainWithin

    // How many of B's lookups have this state.
    std::size_t count(model::CacheState s) const;
};

// Explains every lookup of b against its counterpart in a (see lookup_matcher.h for how
// partners are chosen). Errors: Cancelled when cancel fires; Internal if something inside
// threw (never propagated). Thread-safe for distinct or const inputs.
Result<Explanation> explainRuns(const model::Run& a, const model::Run& b,
                                const CancelToken& cancel = CancelToken::none(),
                                const ProgressSink& progress = {});

// Explains the lookups of one run against earlier lookups of that run: a hit after the miss
// that stored its key, a miss that repeats an earlier key (the entry was absent), repeated
// misses of the same graph (diffed against the most similar earlier lookup). Partners index
// into the same run's lookups.
Result<Explanation> explainWithin(const model::Run& run,
                                  const CancelToken& cancel = CancelToken::none(),
                                  const ProgressSink& progress = {});

// Explains one lookup against a chosen partner (the app's "compare with this lookup"); partner
// may be null. partnerLabel names the partner in the headline ("A", "lookup #3").
LookupExplanation explainLookup(const model::CacheLookup& lookup,
                                const model::CacheLookup* partner,
                                const std::string& partnerLabel = "A");

} // namespace fxs::explain
