// Compares the key components of two PyTorch cache lookups: which components changed, which
// exist only in A or only in B, ranked so that the first entry names the most likely cause of
// a miss. The pairing and comparison are keydiff's (core/keydiff/component_diff.h); this file
// adds the lookups' rank table and describer. Knows nothing of runs or matching
// (lookup_matcher) and does not diff graph code (graph_diff).
//
// Ranking. Every component whose digest differs is a candidate cause (the digest changes exactly
// when the value does). Candidates are ordered by family, user-controllable causes first:
//   1. inductor_config      — torch._inductor.config settings the program changed;
//   2. example_inputs       — shapes, dtypes, strides, devices of the graph inputs;
//   3. fx_kwargs            — compile_fx arguments (is_backward, static_input_idxs, ...);
//   4. gm                   — the graph code itself (the program changed);
//   5. aot_config           — AOTAutograd settings;
//   6. grad/amp/determinism — grad_enabled, disable_amp, deterministic_algorithms(_settings),
//                             cuda_matmul_settings, autograd_config;
//   7. inputs_to_check, custom passes and hooks, then families fxscope does not know;
//   8. environment          — cache_key_tag, torch_version, system_info (a different build,
//                             GPU or Triton): listed last because they usually change together
//                             with nothing the user did; when they are the ONLY changes they are
//                             the cause, and the headline says so.
// Within a family: changed before only-in-B before only-in-A, then in component order.
#pragma once

#include "core/explain/component_change.h"
#include "core/keydiff/component_diff.h"
#include "core/model/cache_lookup.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::explain {

// changes ranked (changes[0] is the most likely cause); common = components with the same
// name and digest on both sides; onlyEnvironment() = every change is an environment family.
using ComponentDiff = keydiff::KeyDiff;

// Pairs components by name (the k-th occurrence of a name in A with the k-th in B, so repeated
// names are kept apart) and compares their digests; values when a digest is missing.
// Linear in the number of components. Never throws.
ComponentDiff diffLookups(const model::CacheLookup& a, const model::CacheLookup& b);

// A lookup's components as keydiff sees them (views into the lookup; the family is the
// logged one, else the name up to '[').
std::vector<keydiff::Component> keyComponentsOf(const model::CacheLookup& lookup);

// Rank of a family in the order above (smaller ranks first).
int familyPriority(std::string_view family);
bool isEnvironmentFamily(std::string_view family);

} // namespace fxs::explain
