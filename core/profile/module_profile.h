// A run-time profile read by module: each module's share of the eager time, summed over the
// profiled nodes it holds (itself and its descendants), the compiled time of the regions inside
// it, and identical modules (the 24 decoder layers) as groups with the median and range of their
// times, so that "where does the time go" can be answered as "model.layers.3.mlp" instead of
// thousands of nodes. Pure; no timing of its own.
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
    // Compiled regions inside the module (a region belongs to the deepest module holding all of
    // its nodes, and to that module's ancestors): how many, the sum of their compiled medians
    // and of their eager medians (compiledEagerMs / compiledMs is the module's speed-up on the
    // work that was compiled). Zeros when none was compiled.
    std::size_t compiledRegions = 0;
    double compiledMs = 0.0;
    double compiledEagerMs = 0.0;
    std::size_t compiledNodes = 0; // nodes of those regions
    int group = -1; // index in ModuleBreakdown::groups; -1 when identical to no other module
    bool operator==(const ModuleProfile&) const = default;
};

// Modules of the same structure (structure::Module::identicalTo: the decoder layers, or the mlp
// of every layer). The range is the fastest and the slowest member (min–max, not quartiles: with
// 24 layers the one slow layer is what the reader looks for, and it is named by `slowest`).
// The profile keeps each node's median and range over the runs, not each run's samples, so a
// module's spread across runs cannot be rebuilt here and is not shown.
struct ModuleGroup {
    std::string label;                 // "model.layers.0–23"; else the first path + " …"
    std::vector<std::size_t> members;  // indexes into ModuleBreakdown::modules, preorder
    TimeStat eager;                    // median, min, max over the members' eagerMs
    std::size_t slowest = 0;           // index into modules of the member with the most eagerMs
    std::size_t fastest = 0;
    std::string parent; // the members' common parent when it holds no other module, else ""
    bool operator==(const ModuleGroup&) const = default;
};

struct ModuleBreakdown {
    std::vector<ModuleProfile> modules; // the tree's preorder; modules without profiled nodes
                                        // (parameters only) left out
    std::vector<ModuleGroup> groups;    // in order of their first member
    std::vector<std::string> nodePaths; // per profile node (profile order): its module's path,
                                        // "" when none
    std::size_t unassignedNodes = 0;    // profiled nodes in no module (or not in the graph)
    double unassignedMs = 0.0;
    double unassignedShare = 0.0;
};

// Profile nodes and regions are matched to graph nodes by name; tree must be graph's module
// tree.
ModuleBreakdown profileByModule(const RuntimeProfile& profile, const graph::Graph& graph,
                                const structure::ModuleTree& tree);

// "model.layers.0–23" for paths that differ in one numeric component (the first and last
// index), "" otherwise. Exposed for tests.
std::string groupLabel(const std::vector<std::string>& paths);

} // namespace fxs::profile
