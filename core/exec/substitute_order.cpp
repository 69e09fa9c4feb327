// Kahn's algorithm over units (a group or a node), the smallest first node id first: without
// groups this is graph order, and with them nodes move only as far as a group needs.
#include "core/exec/substitute_order.h"

#include <functional>
#include <queue>
#include <set>
#include <utility>

namespace fxs::exec::detail {
namespace substitute_order_detail {

struct Units {
    std::vector<int> unitOf;              // per node
    std::vector<OrderedUnit> units;
    std::vector<graph::NodeId> firstNode; // per unit: its smallest node id
};

Result<Units> makeUnits(const graph::Graph& graph, const std::vector<Substitute>& substitutes)
{
    Units u;
    u.unitOf.assign(graph.size(), -1);
    for (std::size_t s = 0; s < substitutes.size(); ++s) {
        const Substitute& sub = substitutes[s];
        if (sub.nodes.empty()) {
            return makeError(ErrorCode::Invalid, "a substituted group has no nodes", sub.name);
        }
        const int unit = int(u.units.size());
        graph::NodeId first = sub.nodes.front();
        for (graph::NodeId n : sub.nodes) {
            if (n >= graph.size() || u.unitOf[n] != -1) {
                return makeError(ErrorCode::Invalid,
                                 "a substituted group names a node that is not in the graph or "
                                 "is in another group",
                                 sub.name);
            }
            u.unitOf[n] = unit;
            first = std::min(first, n);
        }
        u.units.push_back({int(s), graph::kNoNode});
        u.firstNode.push_back(first);
    }
    for (const auto& node : graph.nodes()) {
        if (u.unitOf[node.id] == -1) {
            u.unitOf[node.id] = int(u.units.size());
            u.units.push_back({-1, node.id});
            u.firstNode.push_back(node.id);
        }
    }
    return u;
}

} // namespace substitute_order_detail

Result<std::vector<OrderedUnit>> orderWithSubstitutes(const graph::Graph& graph,
                                                      const std::vector<Substitute>& substitutes)
{
    using namespace substitute_order_detail;
    auto made = makeUnits(graph, substitutes);
    if (!made) {
        return made.error();
    }
    const Units& u = *made;
    const std::size_t n = u.units.size();
    std::vector<std::set<int>> readers(n); // unit -> units that read a value it makes
    std::vector<int> pending(n, 0);        // unit -> units it still waits for
    for (const auto& node : graph.nodes()) {
        const int to = u.unitOf[node.id];
        for (graph::NodeId in : node.inputs) {
            const int from = u.unitOf[in];
            if (from != to && readers[std::size_t(from)].insert(to).second) {
                ++pending[std::size_t(to)];
            }
        }
    }
    using Ready = std::pair<graph::NodeId, int>;
    std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
    for (std::size_t i = 0; i < n; ++i) {
        if (pending[i] == 0) {
            ready.push({u.firstNode[i], int(i)});
        }
    }
    std::vector<OrderedUnit> order;
    order.reserve(n);
    while (!ready.empty()) {
        const int unit = ready.top().second;
        ready.pop();
        order.push_back(u.units[std::size_t(unit)]);
        for (int r : readers[std::size_t(unit)]) {
            if (--pending[std::size_t(r)] == 0) {
                ready.push({u.firstNode[std::size_t(r)], r});
            }
        }
    }
    if (order.size() != n) {
        for (std::size_t i = 0; i < n; ++i) {
            if (pending[i] > 0 && u.units[i].substitute >= 0) {
                return makeError(ErrorCode::Unsupported,
                                 "the group is not convex: a path leaves it and comes back",
                                 substitutes[std::size_t(u.units[i].substitute)].name);
            }
        }
        return makeError(ErrorCode::Internal, "the graph has a cycle", graph.name());
    }
    return order;
}

} // namespace fxs::exec::detail
