#include "core/partition/region_former.h"

#include "core/partition/contraction.h"

#include <algorithm>
#include <map>

namespace fxs::partition {

using graph::Graph;
using graph::NodeId;

namespace {

// A refusal before renumbering: regions are named by a node they held at the time, so that
// later merges still resolve to the right final region.
struct RawRefusal {
    NodeId node = graph::kNoNode;
    NodeId intoRep = graph::kNoNode;
    NodeId otherRep = graph::kNoNode;
    std::vector<NodeId> path;
};

class Former {
public:
    Former(const Graph& graph, const std::vector<int>& groupOf)
        : m_graph(graph), m_groupOf(groupOf), m_c(graph)
    {
    }

    void run()
    {
        for (const auto& node : m_graph.nodes()) {
            if (node.isPlaceholder() || node.isOutput()) {
                continue;
            }
            if (node.getitemOf != graph::kNoNode) {
                // Only its producer feeds a getitem, so joining the producer never closes a cycle.
                const int producer = m_c.regionOf(node.getitemOf);
                if (producer >= 0) {
                    m_c.assign(node.id, producer);
                }
                continue;
            }
            if (m_groupOf[node.id] >= 0) {
                place(node);
            }
        }
    }

    FormedRegions result() const;

private:
    const Graph& m_graph;
    const std::vector<int>& m_groupOf;
    Contraction m_c;
    std::vector<int> m_regionGroup;
    std::vector<RawRefusal> m_refusals;

    std::vector<int> neighbourRegions(const graph::Node& node) const
    {
        std::vector<int> out;
        for (NodeId in : node.inputs) {
            const int r = m_c.regionOf(in);
            if (r >= 0 && m_regionGroup[r] == m_groupOf[node.id] &&
                std::find(out.begin(), out.end(), r) == out.end()) {
                out.push_back(r);
            }
        }
        return out;
    }

    // A node whose inputs lie in r (or are graph inputs) cannot close a cycle by joining r: a
    // path back into r would have to enter the node through an input r reaches (r was legal
    // before, and the node's users are not placed yet). Saves the search on chains.
    bool onlyReads(const graph::Node& node, int r) const
    {
        return std::all_of(node.inputs.begin(), node.inputs.end(), [&](NodeId in) {
            return m_c.regionOf(in) == r || m_graph.node(in).isPlaceholder();
        });
    }

    void place(const graph::Node& node)
    {
        const auto candidates = neighbourRegions(node);
        int target = -1;
        for (int r : candidates) {
            m_c.assign(node.id, r);
            if (onlyReads(node, r)) {
                target = r;
                break;
            }
            if (auto cycle = m_c.cycleThrough(r)) {
                m_refusals.push_back({node.id, m_c.members(r).front(), node.id, std::move(*cycle)});
                m_c.assign(node.id, -1);
                continue;
            }
            target = r;
            break;
        }
        if (target < 0) {
            target = m_c.addRegion();
            m_regionGroup.push_back(m_groupOf[node.id]);
            m_c.assign(node.id, target);
        }
        for (int r : candidates) {
            if (r != target && !m_c.members(r).empty()) {
                tryMerge(target, r);
            }
        }
    }

    void tryMerge(int target, int other)
    {
        const std::vector<NodeId> saved = m_c.members(other);
        m_c.mergeInto(target, other);
        if (auto cycle = m_c.cycleThrough(target)) {
            // Back in reverse: the moved nodes sit at the end of target's members.
            for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
                m_c.assign(*it, other);
            }
            m_refusals.push_back({graph::kNoNode, m_c.members(target).front(), saved.front(),
                                  std::move(*cycle)});
        }
    }
};

FormedRegions Former::result() const
{
    FormedRegions out;
    std::vector<std::pair<NodeId, int>> order; // (first node, internal region)
    for (int r = 0; r < m_c.regionCount(); ++r) {
        const auto& m = m_c.members(r);
        if (!m.empty()) {
            order.emplace_back(*std::min_element(m.begin(), m.end()), r);
        }
    }
    std::sort(order.begin(), order.end());
    std::map<int, int> finalOf;
    for (const auto& [first, r] : order) {
        finalOf[r] = static_cast<int>(out.regions.size());
        auto nodes = m_c.members(r);
        std::sort(nodes.begin(), nodes.end());
        out.regions.push_back(std::move(nodes));
    }
    for (const auto& raw : m_refusals) {
        const int into = finalOf.at(m_c.regionOf(raw.intoRep));
        const int other = finalOf.at(m_c.regionOf(raw.otherRep));
        if (into != other) {
            out.refusals.push_back({raw.node, into, other, raw.path});
        }
    }
    return out;
}

} // namespace

FormedRegions formRegions(const Graph& graph, const std::vector<int>& groupOf)
{
    Former former(graph, groupOf);
    former.run();
    return former.result();
}

} // namespace fxs::partition
