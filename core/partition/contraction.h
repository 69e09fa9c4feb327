// The graph with each region contracted to one vertex: the cycle test behind every region
// rule (partitioner, proposal, edits). A region is legal when no path leaves it and comes back,
// possibly through other regions. Not a partitioning policy: callers decide what to assign.
// Costs: assign and merge are proportional to the nodes moved and their edges; cycleThrough
// walks only what lies between the region's exits and its last node, without per-call
// allocations, so growing a region node by node along a chain stays linear.
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
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
    struct Edge {
        graph::NodeId from = graph::kNoNode; // a member of the region
        graph::NodeId to = graph::kNoNode;   // a node outside it
    };
    struct Step {
        std::size_t parent = 0; // vertex it was reached from
        graph::NodeId from = graph::kNoNode;
        graph::NodeId to = graph::kNoNode;
    };

    void addExitsOf(graph::NodeId node, int region);
    // The region's edges to the outside, stale entries dropped (members that left, targets
    // that joined): lists are kept lazily and compacted here.
    const std::vector<Edge>& exits(int region) const;
    graph::NodeId firstOf(int region) const;
    graph::NodeId lastOf(int region) const;
    std::vector<graph::NodeId> witnessPath(std::size_t start, std::size_t last,
                                           graph::NodeId lastFrom, graph::NodeId lastTo) const;

    const graph::Graph& m_graph;
    std::vector<int> m_regionOf;
    std::vector<std::vector<graph::NodeId>> m_members;
    mutable std::vector<std::vector<Edge>> m_exits;
    // Bounds of each region's members in graph order; recomputed when a bound node leaves.
    mutable std::vector<graph::NodeId> m_first;
    mutable std::vector<graph::NodeId> m_last;
    mutable std::vector<char> m_boundsStale;
    // Search scratch, reused by every cycleThrough: a vertex is seen when its stamp is current.
    mutable std::vector<std::uint32_t> m_seen;
    mutable std::vector<Step> m_steps;
    mutable std::vector<std::size_t> m_queue;
    mutable std::uint32_t m_stamp = 0;
};

} // namespace fxs::partition
