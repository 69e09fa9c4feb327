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

#include "core/model/cache_lookup.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::explain {

enum class ChangeKind : std::uint8_t { Changed, OnlyA, OnlyB };

std::string_view changeKindName(ChangeKind k); // "changed", "only_a", "only_b"

struct ComponentChange {
    ChangeKind change = ChangeKind::Changed;
    std::string component; // full name: "inductor_config[max_fusion_size]"
    std::string family;    // "inductor_config"
    std::string a;         // displayValue of A's value; empty for OnlyB
    std::string b;         // displayValue of B's value; empty for OnlyA
    // One phrase for the row: "64 → 32", "shape [64, 64] → [128, 64]", "only in B: False".
    std::string summary;
    std::string digestA; // empty for OnlyB
    std::string digestB; // empty for OnlyA
    int indexA = -1;     // position in A's components, -1 for OnlyB
    int indexB = -1;     // position in B's components, -1 for OnlyA
    bool environment = false; // family is torch_version / system_info / cache_key_tag
};

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
