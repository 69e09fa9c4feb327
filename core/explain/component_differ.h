// Compares the key components of two cache lookups: which components changed, which exist only
// in A or only in B, ranked so that the first entry names the most likely cause of a miss.
// Knows nothing of runs or matching (lookup_matcher) and does not diff graph code (graph_diff).
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
#include "core/model/cache_lookup.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::explain {

struct ComponentDiff {
    std::vector<ComponentChange> changes; // ranked: changes[0] is the most likely cause
    std::size_t componentsA = 0;
    std::size_t componentsB = 0;
    std::size_t common = 0; // components with the same name and digest on both sides

    bool empty() const { return changes.empty(); }
    // True when there are changes and every one is an environment component.
    bool onlyEnvironment() const;
};

// Pairs components by name (the k-th occurrence of a name in A with the k-th in B, so repeated
// names are kept apart) and compares their digests; values when a digest is missing.
// Linear in the number of components. Never throws.
ComponentDiff diffComponents(const model::CacheLookup& a, const model::CacheLookup& b);

// Rank of a family in the order above (smaller ranks first).
int familyPriority(std::string_view family);
bool isEnvironmentFamily(std::string_view family);

} // namespace fxs::explain
