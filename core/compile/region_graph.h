// Cuts a region out of a graph as a graph of its own: one placeholder per region input (named
// and typed like the input node), the region's nodes in order, an output returning the region's
// outputs. The eager reference runs it to verify and time a compiled region.
#pragma once

#include "core/graph/graph.h"
#include "core/util/result.h"

#include <vector>

namespace fxs::compile {

Result<graph::GraphPtr> extractRegionGraph(const graph::Graph& graph,
                                           const std::vector<graph::NodeId>& order,
                                           const std::vector<graph::NodeId>& inputs,
                                           const std::vector<graph::NodeId>& outputs);

} // namespace fxs::compile
