// The one rule that puts the nodes of a graph into modules once its inputs (parameters, buffers,
// saved tensors) sit in their owner modules. Deterministic; graph order is execution order
// (printed FX graphs are topologically sorted as traced).
//
//   1. Anchors. A node whose node inputs are all placed inputs or such nodes (`t(weight)`, a
//      cast of a parameter) goes to their deepest common module; so does a node that uses
//      one or more of them (`mm(x, t_1)`, `linear(x, weight, bias)`, `add_(num_batches, 1)`).
//      call_module nodes and nodes already placed (metadata) are anchors too.
//   2. Between anchors. Any other node goes to the deepest common module of the nearest anchor
//      before it (prev) and the nearest anchor after it (next), in graph order.
//   3. Gaps. When that common module C is prev's module and next lies below it (ViT's
//      `encoder` adds its pos_embedding, then its first layer's ln_1 statistics), (a) applies
//      and the rest stays in C. When C is neither prev's nor next's module, the node lies
//      between two children of C:
//      a. Prologue: the run of nodes just before next that share next's file and function,
//         with lines not after next's (not before, in a graph that runs its statements
//         backwards such as a backward graph), from the first one next's computation uses,
//         goes to next's module (an RMSNorm's variance before its `self.weight *`) — unless
//         next's `# File:` code names its module (`self.dense(x)`): then the run is the
//         caller's code and goes to next's parent (BertPooler's `hidden_states[:, 0]` before
//         `self.dense(...)`) — or, when that parent is C (or none) or the graph runs its
//         statements backwards, is left to (b).
//      b. Epilogue: a node that uses a value of prev's side goes to E, the deepest numbered
//         module with children around prev below C (`layers.2` for the residual add that ends
//         decoder layer 2, `layer1.0` for a BasicBlock's `out += identity; relu`), else to C —
//         unless its statement lies in a function that is not E's own code. E's code runs in
//         the functions whose statements call E's children by name (an anchor whose code names
//         its module, `out = self.conv1(x)` in BasicBlock.forward); a node of another function
//         (ResNet's `x = self.avgpool(x)` in `_forward_impl` after the last block) is the
//         caller's, and stays in C. Where E's children are never called by name, or the node
//         has no `# File:` line, nothing is known and it goes to E. Functions are told apart by
//         file and name only: same-named `forward`s of one file look alike.
//      c. Anything else stays in C.
//      Before the first anchor only (a) applies; after the last only (b).
//   4. Placeholders that are not anchored inputs and the output node stay unassigned.
#pragma once

#include "core/structure/module_tree_builder.h"

#include "core/graph/graph.h"

namespace fxs::structure {

// Assigns every node the builder has not assigned yet, by the rule above.
void assignNodes(const graph::Graph& graph, ModuleTreeBuilder& builder);

} // namespace fxs::structure
