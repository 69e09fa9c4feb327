// The greedy engine shared by the annotation partitioner and the automatic proposal: walks the
// graph in order and grows regions of same-group nodes along their edges, refusing every step
// that would make the contracted graph cyclic and remembering the path that refused it.
// Policy (which nodes, which groups, what to drop) belongs to the callers.
#pragma once

#include "core/graph/graph.h"

#include <vector>

namespace fxs::partition {

// A step that was refused: `node` could not join region `into` (node set), or region `other`
// could not be merged into `into` (node == kNoNode). Indices refer to FormedRegions::regions.
struct Refusal {
    graph::NodeId node = graph::kNoNode;
    int into = -1;
    int other = -1;
    std::vector<graph::NodeId> path; // the cycle's witness path (Contraction::cycleThrough)
};

struct FormedRegions {
    std::vector<std::vector<graph::NodeId>> regions; // non-empty, graph order, by first node
    std::vector<Refusal> refusals;
};

// groupOf[id]: -1 for nodes that must stay outside, otherwise a group; only nodes of one group
// share a region. Placeholders and the output are never placed whatever their group. A getitem
// that unpacks a multi-output node always joins its producer's region (and stays outside when
// its producer does), as PyTorch's partitioner requires.
FormedRegions formRegions(const graph::Graph& graph, const std::vector<int>& groupOf);

} // namespace fxs::partition
