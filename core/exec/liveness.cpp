// Liveness: a value dies right after its last user runs. Returned values and values the caller
// keeps live to the end; a value nobody uses dies right after it is made.
#include "core/exec/execution_plan.h"

#include <algorithm>

namespace fxs::exec::detail {

std::vector<std::vector<graph::NodeId>> computeFrees(const graph::Graph& graph,
                                                     const std::vector<graph::NodeId>& keep)
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
    std::vector<std::vector<graph::NodeId>> frees(n);
    for (const auto& node : graph.nodes()) {
        if (pinned[node.id] || node.isOutput()) {
            continue;
        }
        graph::NodeId last = node.id;
        for (auto user : node.users) {
            last = std::max(last, user);
        }
        frees[last].push_back(node.id);
    }
    return frees;
}

} // namespace fxs::exec::detail
