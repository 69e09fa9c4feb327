// Module paths for the graphs AOTAutograd makes from a Dynamo graph: the forward (and joint,
// inference) graph's `primals_N`/`arg_N` inputs are the Dynamo graph's inputs, told by their
// `# PlainAOTInput(idx=N)` comments or, without them, by position (checked against the
// `aot_forward_graph_fw_metadata` input count and the inputs' metas; a weaker match). A
// backward graph's inputs are forward values: saved tensors carry their forward node's name
// and module, `primals_N` the forward input's path; tangents belong nowhere.
#pragma once

#include "core/structure/module_tree.h"
#include "core/structure/module_tree_builder.h"

#include "core/graph/graph.h"

#include <optional>
#include <string_view>

namespace fxs::structure {

// Places aot's inputs that correspond to Dynamo inputs with a parameter path. fwMetadata: the
// text of the compile's `aot_forward_graph_fw_metadata` artifact, or empty. Returns the weakest
// strength used, nullopt when no input could be placed (the reason goes to out's notes).
std::optional<MatchStrength> mapAotInputs(const graph::Graph& aot, const graph::Graph& dynamo,
                                          const ModuleTree& dynamoTree,
                                          std::string_view fwMetadata, ModuleTreeBuilder& out);

// Places a backward graph's inputs from its forward graph and that graph's tree.
std::optional<MatchStrength> mapBackwardInputs(const graph::Graph& backward,
                                               const graph::Graph& forward,
                                               const ModuleTree& forwardTree,
                                               ModuleTreeBuilder& out);

// True when graph looks like a backward graph: it has `tangents_N` inputs and inputs named after
// nodes of forward that are not forward inputs (saved tensors).
bool isBackwardOf(const graph::Graph& graph, const graph::Graph& forward);

} // namespace fxs::structure
