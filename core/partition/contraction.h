// The graph with each region contracted to one vertex: the cycle test behind every region
// rule (partitioner, proposal, edits). A region is legal when no path leaves it and comes back,
// possibly through other regions. Not a partitioning policy: callers decide what to assign.
#pragma once

#include "core/graph/graph.h"

#include <optional>
#include <vector>

namespace fxs::partition {

class Contraction {
public:
    explicit Contraction(const graph::Graph& graph);

    // Creates an empty region and returns its index.
    int addRegion();
    void assign(graph::NodeId node, int region); // region -1 removes the node from its region
    int regionOf(graph::NodeId node) const { return m_regionOf[node]; }
    const std::vector<graph::NodeId>& members(int region) const { return m_members[region]; }
    int regionCount() const { return static_cast<int>(m_members.size()); }
    // Moves every node of region `from` into `into`; `from` is left empty.
    void mergeInto(int into, int from);

    // A path that leaves `region` and re-enters it in the contracted graph, as the nodes of
    // its witness edges: [a, x, b] for a→x→b, [a, b1, b2, c] when it passes through another
    // region entered at b1 and left at b2. nullopt when the region is legal.
    std::optional<std::vector<graph::NodeId>> cycleThrough(int region) const;

private:
    const graph::Graph& m_graph;
    std::vector<int> m_regionOf;
    std::vector<std::vector<graph::NodeId>> m_members;
};

} // namespace fxs::partition
