// Liveness: a value dies right after its last user runs. Returned values and values the caller
// keeps live to the end; a value nobody uses dies right after it is made.
#include "core/exec/execution_plan.h"

#include <algorithm>

namespace fxs::exec::detail {

std::vector<std::vector<graph::NodeId>> computeFrees(const graph::Graph& graph,
                                                     const std::vector<graph::NodeId>& keep)
{
    std::vector<std::size_t> position(graph.size());
    for (std::size_t i = 0; i < position.size(); ++i) {
        position[i] = i;
    }
    return computeFreesAt(graph, keep, position, graph.size());
}

std::vector<std::vector<graph::NodeId>> computeFreesAt(const graph::Graph& graph,
                                                       const std::vector<graph::NodeId>& keep,
                                                       const std::vector<std::size_t>& position,
                                                       std::size_t steps)
{
    const auto n = graph.size();
    std::vector<bool> pinned(n, false);
    for (auto id : keep) {
        if (id < n) {
            pinned[id] = true;
        }
    }
    if (graph.outputNode() != graph::kNoNode) {
        for (auto id : graph.node(graph.outputNode()).inputs) {
            pinned[id] = true;
        }
    }
    std::vector<std::vector<graph::NodeId>> frees(steps);
    for (const auto& node : graph.nodes()) {
        if (pinned[node.id] || node.isOutput()) {
            continue;
        }
        std::size_t last = position[node.id];
        for (auto user : node.users) {
            last = std::max(last, position[user]);
        }
        frees[last].push_back(node.id);
    }
    return frees;
}

} // namespace fxs::exec::detail
