// Values that the first of a run of numbered sibling modules computes once for all of them:
// moved out of it, into the module around the run. A compiled graph computes a value shared by
// every layer (BERT's additive attention mask, `where(mask, 0, -inf)` expanded to the heads)
// where the first layer first needs it, and reuses it in the others; left there, it makes the
// first layer bigger than the rest and no layer is recognised as identical to it.
// Not node assignment itself (node_assignment.h): a pass over an assignment already made.
#pragma once

#include "core/structure/module_tree_builder.h"

#include "core/graph/graph.h"

namespace fxs::structure {

// Moves shared values out of the numbered modules they were placed in. A node in a numbered
// module X (`encoder.layer.0`, below a container P) is shared when its users lie in at least
// three of P's children, or in two that are both not X (a layer's output read by the next layer
// only stays). It moves, with the nodes of X that only feed it (`full([], -inf)` under the
// `where`), to the module enclosing the run: P, or P's parent when P holds nothing of its own
// (a ModuleList); the graph's top level when there is none. Inputs (placeholders, get_attr)
// stay with their owners. Returns the number of nodes moved.
std::size_t hoistSharedValues(const graph::Graph& graph, ModuleTreeBuilder& builder);

} // namespace fxs::structure
