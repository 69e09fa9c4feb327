// INTERNAL to core/exec: the order in which a plan with substitutes runs (RunOptions::
// substitutes): each group is one unit, every other node its own; units run once the units
// they read from ran, otherwise in graph order. Graph work only, no torch.
#pragma once

#include "core/exec/interpreter.h"
#include "core/graph/graph.h"
#include "core/util/result.h"

#include <vector>

namespace fxs::exec::detail {

struct OrderedUnit {
    int substitute = -1;                   // index into the substitutes, or -1: one node
    graph::NodeId node = graph::kNoNode;   // substitute < 0: the node
};

// Every node not in a group appears once, every group once. Errors (Error::where names the
// group): a group that is empty, names a node twice or a node another group has, or that is not
// convex (a path leaves it and comes back, so no order can run it as one step).
Result<std::vector<OrderedUnit>> orderWithSubstitutes(const graph::Graph& graph,
                                                      const std::vector<Substitute>& substitutes);

} // namespace fxs::exec::detail
