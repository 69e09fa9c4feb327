// A run-time profile read by module: each module's share of the eager time, summed over the
// profiled nodes it holds (itself and its descendants), so that "where does the time go" can be
// answered as "model.layers.3.mlp" instead of thousands of nodes. Pure; no timing of its own.
#pragma once

#include "core/graph/graph.h"
#include "core/profile/runtime_profile.h"
#include "core/structure/module_tree.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxs::profile {

struct ModuleProfile {
    std::string path;          // "model.layers.3.mlp"
    int depth = 0;             // 0 for a root module
    std::size_t nodes = 0;     // profiled nodes in the module and its descendants
    double eagerMs = 0.0;      // sum of those nodes' eager medians
    double share = 0.0;        // eagerMs / sum of every profiled node's eager median
    std::int64_t bytesMoved = 0;
    double flops = 0.0;
    bool operator==(const ModuleProfile&) const = default;
};

struct ModuleBreakdown {
    std::vector<ModuleProfile> modules; // the tree's preorder; modules without profiled nodes
                                        // (parameters only) left out
    std::size_t unassignedNodes = 0;    // profiled nodes in no module (or not in the graph)
    double unassignedMs = 0.0;
    double unassignedShare = 0.0;
};

// Profile nodes are matched to graph nodes by name; tree must be graph's module tree.
ModuleBreakdown profileByModule(const RuntimeProfile& profile, const graph::Graph& graph,
                                const structure::ModuleTree& tree);

} // namespace fxs::profile
