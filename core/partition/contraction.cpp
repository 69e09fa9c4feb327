#include "core/partition/contraction.h"

#include <algorithm>
#include <deque>
#include <span>

namespace fxs::partition {

using graph::NodeId;

Contraction::Contraction(const graph::Graph& graph)
    : m_graph(graph), m_regionOf(graph.size(), -1)
{
}

int Contraction::addRegion()
{
    m_members.emplace_back();
    return static_cast<int>(m_members.size()) - 1;
}

void Contraction::assign(NodeId node, int region)
{
    const int old = m_regionOf[node];
    if (old == region) {
        return;
    }
    if (old >= 0) {
        auto& m = m_members[old];
        m.erase(std::remove(m.begin(), m.end(), node), m.end());
    }
    m_regionOf[node] = region;
    if (region >= 0) {
        m_members[region].push_back(node);
    }
}

void Contraction::mergeInto(int into, int from)
{
    if (into == from) {
        return;
    }
    for (NodeId n : m_members[from]) {
        m_regionOf[n] = into;
        m_members[into].push_back(n);
    }
    m_members[from].clear();
}

namespace {

struct Step {
    std::size_t parent = 0; // vertex it was reached from
    NodeId from = graph::kNoNode;
    NodeId to = graph::kNoNode;
};

std::vector<NodeId> witnessPath(const std::vector<Step>& steps, std::size_t start,
                                std::size_t last, NodeId lastFrom, NodeId lastTo)
{
    std::vector<std::pair<NodeId, NodeId>> edges{{lastFrom, lastTo}};
    for (std::size_t v = last; v != start; v = steps[v].parent) {
        edges.emplace_back(steps[v].from, steps[v].to);
    }
    std::reverse(edges.begin(), edges.end());
    std::vector<NodeId> path;
    for (const auto& [from, to] : edges) {
        if (path.empty() || path.back() != from) {
            path.push_back(from);
        }
        path.push_back(to);
    }
    return path;
}

} // namespace

std::optional<std::vector<NodeId>> Contraction::cycleThrough(int region) const
{
    const std::size_t n = m_graph.size();
    auto vertexOf = [&](NodeId id) {
        return m_regionOf[id] >= 0 ? n + static_cast<std::size_t>(m_regionOf[id]) : id;
    };
    const std::size_t start = n + static_cast<std::size_t>(region);
    std::vector<Step> steps(n + m_members.size());
    std::vector<char> seen(n + m_members.size(), 0);
    // Nothing after the region's last node can lead back into it: prune those vertices.
    NodeId last = 0;
    for (NodeId m : m_members[region]) {
        last = std::max(last, m);
    }
    std::vector<NodeId> first(m_members.size(), graph::kNoNode);
    for (std::size_t r = 0; r < m_members.size(); ++r) {
        for (NodeId m : m_members[r]) {
            first[r] = std::min(first[r], m);
        }
    }
    auto hopeless = [&](std::size_t w) { return w < n ? w > last : first[w - n] > last; };
    std::deque<std::size_t> queue{start};
    seen[start] = 1;
    while (!queue.empty()) {
        const std::size_t v = queue.front();
        queue.pop_front();
        const NodeId single = static_cast<NodeId>(v);
        const std::span<const NodeId> sources =
            v < n ? std::span<const NodeId>(&single, 1) : std::span<const NodeId>(m_members[v - n]);
        for (NodeId src : sources) {
            for (NodeId user : m_graph.node(src).users) {
                const std::size_t w = vertexOf(user);
                if (w == v) {
                    continue; // an edge inside one region
                }
                if (w == start) {
                    return witnessPath(steps, start, v, src, user);
                }
                if (!seen[w] && !hopeless(w)) {
                    seen[w] = 1;
                    steps[w] = Step{v, src, user};
                    queue.push_back(w);
                }
            }
        }
    }
    return std::nullopt;
}

} // namespace fxs::partition
