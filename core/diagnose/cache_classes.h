// Classes every compile-cache lookup of the diagnosed runs: hit, cold miss, guard miss, bypass,
// load failure or disabled, with a one-line headline (explain's, led by the recompile cause
// when there is one). Internal to core/diagnose.
//
// Load failures. PyTorch 2.11 reads cache entries in GuardedCache.iterate_over_candidates
// (torch/_inductor/codecache.py), which catches an entry that fails to unpickle, logs the
// Python warning "fx graph cache unable to load compiled graph" (stderr, not TORCH_TRACE; also
// for AOTAutograd entries) and goes on as if the entry were not there: find_guarded_entry then
// reports "full_miss", exactly what a cold miss reports. A failed load is therefore recognised
// from what follows it in the log, never from the lookup alone:
//   - an AOTAutograd lookup with cache_status_detailed "hit" but cache_state "miss": the entry
//     was read, but an FX graph it refers to could not be loaded (FXGraphCacheMiss in
//     autograd_cache.py); every FX graph miss of that compile had been cached too;
//   - an AOTAutograd "full_miss" whose compile's FX graph lookups all hit, with no earlier
//     lookup explaining a changed key: the FX graphs it compiles to were cached, so its own
//     entry was written too and could not be read (or was deleted);
//   - a "full_miss" on a key an earlier diagnosed run stored, in a run that hits other keys of
//     that run (so it uses the same cache directory).
#pragma once

#include "core/diagnose/cold_start.h"
#include "core/diagnose/diagnosis.h"
#include "core/explain/explainer.h"
#include "core/model/run.h"

#include <vector>

namespace fxs::diagnose {

// How a user turns key components back on when a PyTorch version logs keys without them.
extern const char* const kComponentsHint;

// explanations[i] explains runs[i]'s lookups (indexed like Run::lookups); times[i] the run's
// compile times.
std::vector<CacheRow> classifyLookups(const std::vector<const model::Run*>& runs,
                                      const std::vector<explain::Explanation>& explanations,
                                      const std::vector<CompileTimes>& times);

} // namespace fxs::diagnose
