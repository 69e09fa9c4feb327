// Finding modules by path: glob patterns over dotted module paths (`layers.*.mlp`), for
// "Regions › Create per module matching…", search and the CLI, and the same module across the
// graphs of one compile (Dynamo ↔ AOT forward ↔ backward) so that selecting it in one graph
// can highlight it in the others. Torch-free, Qt-free; pure functions.
#pragma once

#include "core/structure/structure.h"

#include <string_view>
#include <vector>

namespace fxs::structure {

// Pattern syntax, one component per dot-separated part of a path:
//   `*` matches any characters within one component, `?` one character;
//   `**` as a whole component matches zero or more components;
//   anything else matches itself. A pattern matches a path when it matches the whole path or
//   its last components (as if it began with `**.`): `layers.*.mlp` matches
//   `model.layers.3.mlp` and `layers.3.mlp`, not `model.layers.3.mlp.act`.
// Invalid (error) patterns: empty, or with an empty component (`layers..mlp`, `.mlp`).
Result<void> checkModulePattern(std::string_view pattern);
bool matchesModulePattern(std::string_view pattern, std::string_view path);

// The modules of tree whose path matches pattern, in preorder (a parent before its children).
// outermostOnly: leave out a match lying inside another match. Errors: Invalid pattern.
Result<std::vector<ModuleId>> modulesMatching(const ModuleTree& tree, std::string_view pattern,
                                              bool outermostOnly = false);

// A matching module's computing nodes (its and its descendants' nodes less inputs — placeholders,
// get_attr — and the output): what a region per module holds.
struct ModuleNodes {
    std::string path;
    std::vector<graph::NodeId> nodes; // graph order
};
// The outermost modules of graph's tree matching pattern, with their computing nodes; modules
// without any are left out. Errors: Invalid pattern.
Result<std::vector<ModuleNodes>> moduleNodesMatching(const graph::Graph& graph,
                                                     const ModuleTree& tree,
                                                     std::string_view pattern);

// The nodes of one module in one graph of a run.
struct ModuleInGraph {
    std::size_t graphIndex = 0;           // into run.graphs
    std::vector<graph::NodeId> nodes;     // graph order; empty when the graph lacks the module
};

// The module at path in every parsed graph of the compile (same compile id and rank) that
// run.graphs[graphIndex] belongs to, that graph included, in run order; graphs whose tree has no
// such module are listed with no nodes; graphs not parsed yet are skipped (nothing is parsed
// here). Errors: Invalid for a
// graph index out of range or an unreadable graph; Cancelled; Internal.
Result<std::vector<ModuleInGraph>> moduleAcrossCompile(const model::Run& run,
                                                       std::size_t graphIndex,
                                                       std::string_view path,
                                                       const StructureOptions& options = {},
                                                       const CancelToken& cancel = CancelToken::none());

} // namespace fxs::structure
