// Moving a node into another graph being built (a rewrite, a region cut out): its references
// renumbered to the new graph's ids. Not a builder: the caller adds the node (GraphBuilder::add).
#pragma once

#include "core/graph/node.h"

#include <functional>

namespace fxs::graph {

// A copy of `node` whose every node reference r (in args and kwargs, nested lists included)
// is newId(r), with what GraphBuilder::build derives (inputs, users, multi-output links)
// cleared. newId must map every node the node references.
Node remappedNode(const Node& node, const std::function<NodeId(NodeId)>& newId);

} // namespace fxs::graph
