// INTERNAL to core/profile: the compiled part of a run-time profile — the regions compiled
// through compile's pipeline (compileRegionsOn) and the whole graph timed with them in place
// (compile/compiled_graph.h's pieces). Built only with the region compiler (FXSCOPE_HAVE_COMPILE);
// profileGraph calls it. Not the eager profile (runtime_profile.cpp).
#pragma once

#include "core/profile/profile_reuse.h"
#include "core/profile/runtime_profile.h"

namespace fxs::profile::detail {

// Compiles `regions` on `kept` (an eager run's values: every region input, and the graph's
// placeholders for the GPU timing), records each outcome in profile.regions (state, compiled
// time, a note for each fallback), then runs 1 + options.repeat rounds of the graph eagerly and
// with the regions that compiled (and the matrix-product groups) in place, as the eager runs
// did, into profile.compiledGraph (the first round a warm-up; the caller holds an
// exec::HostMemoryHold over them, as profileGraph does); on CUDA both graphs are also timed
// without per-node syncs (device ms). It takes the steps [first, first + 2 + repeat] of the
// `steps` that `progress` counts. A compiled graph that fails to run leaves compiledGraph empty with a note. Errors:
// only Cancelled (the token fired).
Status compileAndTimeWholeGraph(const graph::Graph& graph,
                                const std::vector<partition::Region>& regions,
                                const ProfileOptions& options, const exec::ValueStore& kept,
                                RuntimeProfile& profile, const CancelToken& cancel,
                                UnitProgress& progress, double first, double steps);

} // namespace fxs::profile::detail
