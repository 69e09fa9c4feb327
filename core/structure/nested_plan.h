// Nested-region plans: the repeated blocks of a module tree (the N identical decoder layers) as
// the plan tools/python/fxscope_nested.py applies, wrapping each group's forward in
// torch.compiler.nested_compile_region so that torch.compile traces one block and reuses it.
// What `fxscope-cli partition --nested` and Regions › Plan Nested Regions write; the JSON format
// ("fxscope-nested-plan", version 1) is a contract documented in README. Pure, torch-free.
#pragma once

#include "core/graph/graph.h"
#include "core/structure/module_tree.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::structure {

inline constexpr std::string_view kNestedPlanFormat = "fxscope-nested-plan";
inline constexpr int kNestedPlanVersion = 1;

struct NestedPlanOptions {
    // Groups whose modules hold fewer nodes each (a Linear: weight, bias, linear) are skipped:
    // a region around one layer saves nothing, and wrapping its class would wrap every use.
    std::size_t minNodesEach = 8;
};

// One group of identical sibling modules, compiled once and reused for every instance.
struct NestedRegion {
    std::string id;                     // "n0", "n1", ... largest group first
    std::vector<std::string> instances; // module paths, graph order ("model.layers.0", ...)
    std::string moduleClass; // qualified class from nn_module_stack (.pt2); "" when unknown
    std::size_t nodesEach = 0;
    std::string parent;      // the instances' parent module ("model.layers"); "" for roots
    std::string note;        // one sentence for the user
};

// Why modules get no region (the plan's "skipped" codes are a contract).
enum class NestedSkip : std::uint8_t {
    NoModules,     // the graph names no modules at all
    NoModulePaths, // repeated blocks found by repetition only: "block N" is not a module path
    NoRepetition,  // modules, but no two identical siblings
    NotIdentical,  // numbered siblings (a ModuleList) that differ from the others
    InsideRegion,  // identical siblings inside an instance of a planned region
    TooSmall,      // identical siblings of fewer than minNodesEach nodes each
};
std::string_view nestedSkipCode(NestedSkip reason); // "no_modules", "not_identical", ...

struct NestedSkipped {
    NestedSkip reason = NestedSkip::NoRepetition;
    std::vector<std::string> modules; // module paths concerned (empty for a whole-graph reason)
    std::string message;
};

struct NestedPlan {
    Source source = Source::None; // where the module tree came from
    MatchStrength strength = MatchStrength::Name;
    std::vector<NestedRegion> regions;
    std::vector<NestedSkipped> skipped;
    std::vector<std::string> notes; // the module tree's notes

    std::size_t instanceCount() const;
};

// The plan for a graph and its module tree (structure.h). The graph gives the module classes
// (Node::moduleStack); a graph without them gives plans without classes.
NestedPlan planNestedRegions(const graph::Graph& graph, const ModuleTree& tree,
                             const NestedPlanOptions& options = {});

// What the plan file says about where the graph came from.
struct NestedPlanOrigin {
    std::string path;     // the graph's file or TORCH_TRACE
    std::string selector; // the TORCH_TRACE graph selector ("" for none)
    std::string_view sourceBytes; // digested into "sha256" ("" gives null)
};

// The plan file's text (pretty JSON, README "Nested-region plans").
std::string nestedPlanJson(const NestedPlan& plan, const graph::Graph& graph,
                           const NestedPlanOrigin& origin);

} // namespace fxs::structure
