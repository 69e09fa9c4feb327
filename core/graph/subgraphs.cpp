#include "core/graph/subgraphs.h"

#include <algorithm>
#include <set>

namespace fxs::graph {

namespace {

constexpr std::string_view kPrefix = "higher_order.";
constexpr int kMaxNesting = 32;

void collect(const Graph& g, const std::string& parent, std::vector<Subgraph>& out,
             std::set<const Graph*>& seen, int depth)
{
    std::vector<std::size_t> mine;
    for (const auto& body : g.submodules()) {
        if (!seen.insert(body.get()).second) {
            continue;
        }
        mine.push_back(out.size());
        out.push_back({body->name(), {}, body, {}, parent});
    }
    for (const auto& n : g.nodes()) {
        for (const auto& body : bodiesCalledBy(g, n)) {
            for (const std::size_t i : mine) {
                Subgraph& s = out[i];
                if (s.graph != body ||
                    (!s.callSites.empty() && s.callSites.back() == n.id)) {
                    continue;
                }
                if (s.hop.empty()) {
                    s.hop = std::string(higherOrderName(n));
                }
                s.callSites.push_back(n.id);
            }
        }
    }
    if (depth >= kMaxNesting) {
        return;
    }
    for (const std::size_t i : mine) {
        const GraphPtr body = out[i].graph; // out grows below
        collect(*body, body->name(), out, seen, depth + 1);
    }
}

} // namespace

bool isHigherOrderCall(const Node& node)
{
    return node.op == OpKind::CallFunction && node.target.starts_with(kPrefix);
}

std::string_view higherOrderName(const Node& node)
{
    return isHigherOrderCall(node) ? std::string_view(node.target).substr(kPrefix.size())
                                   : std::string_view();
}

std::vector<GraphPtr> bodiesCalledBy(const Graph& graph, const Node& node)
{
    std::vector<GraphPtr> out;
    if (!isHigherOrderCall(node)) {
        return out;
    }
    const auto visit = [&](NodeId id) {
        const Node& attr = graph.node(id);
        if (attr.op != OpKind::GetAttr) {
            return;
        }
        if (auto body = graph.submodule(attr.target);
            body && std::find(out.begin(), out.end(), body) == out.end()) {
            out.push_back(std::move(body));
        }
    };
    for (const auto& a : node.args) {
        a.forEachNode(visit);
    }
    for (const auto& [key, a] : node.kwargs) {
        a.forEachNode(visit);
    }
    return out;
}

std::vector<Subgraph> listSubgraphs(const Graph& graph)
{
    std::vector<Subgraph> out;
    std::set<const Graph*> seen;
    collect(graph, {}, out, seen, 0);
    return out;
}

} // namespace fxs::graph
