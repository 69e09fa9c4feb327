// The inputs of a higher-order body named by what its callers pass: placeholder i of the body
// reads as the i-th node operand its call sites pass after the body arguments
// (`invoke_subgraph(body, 'id', x, w)`, `cond(p, t, f, (x,))`, `while_loop(c, b, (i, x), ())`):
// its name where one caller calls it or every caller passes the same node; where the callers
// pass different parameters (a body run once per layer), the part of their parameter paths
// they share (`s.blocks.0.ln.weight` … `s.blocks.3.ln.weight` → `ln.weight`). Plain data for
// the app (which hands it to the GraphView as titles); no Qt.
#pragma once

#include "core/graph/subgraphs.h"
#include "core/structure/module_tree.h"

#include <string>
#include <unordered_map>

namespace fxs::views {

// Body placeholder -> its name from the callers, for the placeholders they agree on (see
// above); the others keep their own. Empty when the operands do not line up with the
// placeholders (flex_attention's score_mod takes scalars its callers never pass) or when the
// body has no call sites. `caller` is the graph holding body.callSites; `modules` its module
// tree (null: names only).
std::unordered_map<graph::NodeId, std::string>
bodyInputNames(const graph::Graph& caller, const graph::Subgraph& body,
               const structure::ModuleTree* modules = nullptr);

} // namespace fxs::views
