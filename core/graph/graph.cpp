#include "core/graph/graph.h"

namespace fxs::graph {

std::optional<NodeId> Graph::find(std::string_view name) const
{
    const auto it = m_byName.find(std::string(name));
    if (it == m_byName.end()) {
        return std::nullopt;
    }
    return it->second;
}

std::vector<NodeId> Graph::returnedNodes() const
{
    std::vector<NodeId> out;
    if (m_output == kNoNode) {
        return out;
    }
    for (const auto& a : m_nodes[m_output].args) {
        a.forEachNode([&](NodeId id) { out.push_back(id); });
    }
    return out;
}

GraphPtr Graph::submodule(std::string_view name) const
{
    for (const auto& g : m_submodules) {
        if (g->name() == name) {
            return g;
        }
    }
    return nullptr;
}

std::size_t Graph::countOf(OpKind op) const
{
    std::size_t n = 0;
    for (const auto& node : m_nodes) {
        n += node.op == op ? 1 : 0;
    }
    return n;
}

std::map<std::string, int> Graph::opHistogram() const
{
    std::map<std::string, int> h;
    for (const auto& node : m_nodes) {
        if (node.op == OpKind::CallFunction || node.op == OpKind::CallMethod) {
            ++h[node.target];
        }
    }
    return h;
}

} // namespace fxs::graph
