// The structure facade: which module each node of a graph belongs to ("model.layers.3.mlp"),
// nested, with identical modules and repeated blocks marked, so that views, search, regions and
// profiles can speak in modules instead of thousands of nodes. What `fxscope-cli structure`
// and the app call. Torch-free, Qt-free, no I/O: read graphs and runs with io/ first.
//
// How the structure is recovered, strongest source first:
//   1. nn_module_stack metadata on the nodes (Node::moduleStack, .pt2)   -> export_metadata
//   2. the graph's own names: Dynamo placeholders/get_attr such as
//      `L_self_modules_layers_modules_3_modules_mlp_parameters_weight_` (-> layers.3.mlp.weight),
//      dotted call_module/get_attr targets                               -> names
//   3. an AOT forward/backward graph of a TORCH_TRACE run: its inputs mapped to the inputs of
//      the Dynamo graph of the same compile (AOT input comments `# PlainAOTInput(idx=N)`, else
//      input order, a weaker match); backward inputs saved by the forward graph inherit the
//      forward node's module                                             -> aot_mapping
//   4. none of these: repeated blocks found by structural hashing, "block 0" ... "block 23"
//                                                                        -> repetition
// Nodes go to modules by one rule (node_assignment.h): inputs to the module that owns them,
// nodes that use parameters to their owner, the rest by graph order and dataflow between those.
//
// Typical use:
//   auto tree = fxs::structure::recoverStructure(*graph);
//   if (!tree) { show(tree.error()); return; }
//   for (ModuleId r : tree->roots) { tree->module(r).path; tree->module(r).totalNodes; ... }
//   tree->pathOf(nodeId);  // "model.layers.3.self_attn" or "" (unassigned)
//
//   // A graph of a TORCH_TRACE run (AOT graphs get the Dynamo graph's module paths):
//   auto tree = fxs::structure::recoverRunGraphStructure(run, graphIndex);
//
// Errors: Cancelled when the token fires; Invalid for a graph index out of range or a null
// graph; Internal if something inside threw (never propagated). A graph without any structure
// is not an error: Source::None (or Repetition) with the nodes unassigned.
// Threading: pure functions over immutable inputs; safe to call from any thread, concurrently.
#pragma once

#include "core/model/run.h"
#include "core/structure/module_tree.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace fxs::structure {

struct StructureOptions {
    // Search for repeated blocks when the graph names no modules (Source::Repetition).
    bool findRepetition = true;
    // Smallest block (nodes) and fewest instances repetition search reports.
    std::size_t minBlockNodes = 4;
    std::size_t minInstances = 2;
};

// The module tree of a standalone graph, from its own names or metadata (sources 1, 2, 4).
Result<ModuleTree> recoverStructure(const graph::Graph& graph, const StructureOptions& options = {},
                                    const CancelToken& cancel = CancelToken::none());

// The module tree of run.graphs[graphIndex], using the other graphs of its compile (same compile
// id and rank) where its own names say nothing: AOT forward/backward graphs get the Dynamo
// graph's paths (source 3). Falls back to recoverStructure. Never parses: it reads the graphs
// that are parsed already (GraphArtifact::parsedGraph); a caller that defers parsing parses
// graphsReadFor(run, graphIndex) first (the app's WorkspaceLoader does, in its background job).
// Errors: Invalid when run.graphs[graphIndex] is not parsed (or out of range).
Result<ModuleTree> recoverRunGraphStructure(const model::Run& run, std::size_t graphIndex,
                                            const StructureOptions& options = {},
                                            const CancelToken& cancel = CancelToken::none());

// The graphs recoverRunGraphStructure(run, graphIndex) may read, graphIndex first: the graph
// and its companions of the same compile and rank (Dynamo graph, AOT forward graph). What a
// caller that defers parsing must parse first; parses nothing itself.
std::vector<std::size_t> graphsReadFor(const model::Run& run, std::size_t graphIndex);

} // namespace fxs::structure
