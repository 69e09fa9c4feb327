#include "core/partition/contraction.h"

#include <algorithm>

namespace fxs::partition {

using graph::NodeId;

Contraction::Contraction(const graph::Graph& graph)
    : m_graph(graph), m_regionOf(graph.size(), -1), m_seen(graph.size(), 0),
      m_steps(graph.size())
{
}

int Contraction::addRegion()
{
    m_members.emplace_back();
    m_exits.emplace_back();
    m_first.push_back(graph::kNoNode);
    m_last.push_back(0);
    m_boundsStale.push_back(0);
    m_seen.push_back(0);
    m_steps.emplace_back();
    return static_cast<int>(m_members.size()) - 1;
}

void Contraction::addExitsOf(NodeId node, int region)
{
    for (NodeId user : m_graph.node(node).users) {
        if (m_regionOf[user] != region) {
            m_exits[region].push_back({node, user});
        }
    }
}

void Contraction::assign(NodeId node, int region)
{
    const int old = m_regionOf[node];
    if (old == region) {
        return;
    }
    if (old >= 0) {
        auto& m = m_members[old];
        if (!m.empty() && m.back() == node) {
            m.pop_back(); // the common undo: the node just tried
        } else {
            m.erase(std::remove(m.begin(), m.end(), node), m.end());
        }
        if (node == m_first[old] || node == m_last[old]) {
            m_boundsStale[old] = 1;
        }
        // Edges from the old region into the node leave it now.
        for (NodeId in : m_graph.node(node).inputs) {
            if (m_regionOf[in] == old) {
                m_exits[old].push_back({in, node});
            }
        }
    }
    m_regionOf[node] = region;
    if (region >= 0) {
        m_members[region].push_back(node);
        m_first[region] = std::min(m_first[region], node);
        m_last[region] = std::max(m_last[region], node);
        addExitsOf(node, region);
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
    auto& exits = m_exits[into];
    exits.insert(exits.end(), m_exits[from].begin(), m_exits[from].end());
    m_exits[from].clear();
    m_first[into] = std::min(firstOf(into), firstOf(from));
    m_last[into] = std::max(lastOf(into), lastOf(from));
    m_boundsStale[into] = 0;
    m_members[from].clear();
    m_first[from] = graph::kNoNode;
    m_last[from] = 0;
}

const std::vector<Contraction::Edge>& Contraction::exits(int region) const
{
    auto& list = m_exits[region];
    std::erase_if(list, [&](const Edge& e) {
        return m_regionOf[e.from] != region || m_regionOf[e.to] == region;
    });
    return list;
}

NodeId Contraction::firstOf(int region) const
{
    if (m_boundsStale[region]) {
        const auto& m = m_members[region];
        m_first[region] = m.empty() ? graph::kNoNode : *std::min_element(m.begin(), m.end());
        m_last[region] = m.empty() ? 0 : *std::max_element(m.begin(), m.end());
        m_boundsStale[region] = 0;
    }
    return m_first[region];
}

NodeId Contraction::lastOf(int region) const
{
    firstOf(region); // refreshes both bounds
    return m_last[region];
}

std::vector<NodeId> Contraction::witnessPath(std::size_t start, std::size_t last,
                                             NodeId lastFrom, NodeId lastTo) const
{
    std::vector<std::pair<NodeId, NodeId>> edges{{lastFrom, lastTo}};
    for (std::size_t v = last; v != start; v = m_steps[v].parent) {
        edges.emplace_back(m_steps[v].from, m_steps[v].to);
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

std::optional<std::vector<NodeId>> Contraction::cycleThrough(int region) const
{
    const std::size_t n = m_graph.size();
    auto vertexOf = [&](NodeId id) {
        return m_regionOf[id] >= 0 ? n + static_cast<std::size_t>(m_regionOf[id]) : id;
    };
    const std::size_t start = n + static_cast<std::size_t>(region);
    // Nothing after the region's last node can lead back into it: prune those vertices.
    const NodeId last = lastOf(region);
    auto hopeless = [&](std::size_t w) { return w < n ? w > last : firstOf(int(w - n)) > last; };
    if (++m_stamp == 0) { // wrapped: forget every old stamp
        std::fill(m_seen.begin(), m_seen.end(), 0);
        m_stamp = 1;
    }
    m_queue.assign(1, start);
    m_seen[start] = m_stamp;
    for (std::size_t head = 0; head < m_queue.size(); ++head) {
        const std::size_t v = m_queue[head];
        auto visit = [&](NodeId src, NodeId user) -> bool {
            const std::size_t w = vertexOf(user);
            if (w == start) {
                return true;
            }
            if (w != v && m_seen[w] != m_stamp && !hopeless(w)) {
                m_seen[w] = m_stamp;
                m_steps[w] = Step{v, src, user};
                m_queue.push_back(w);
            }
            return false;
        };
        if (v < n) {
            for (NodeId user : m_graph.node(NodeId(v)).users) {
                if (visit(NodeId(v), user)) {
                    return witnessPath(start, v, NodeId(v), user);
                }
            }
            continue;
        }
        for (const Edge& e : exits(int(v - n))) {
            if (visit(e.from, e.to)) {
                return witnessPath(start, v, e.from, e.to);
            }
        }
    }
    return std::nullopt;
}

} // namespace fxs::partition
