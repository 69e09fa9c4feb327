// Higher-order-operator bodies of a graph (invoke_subgraph from nested_compile_region, cond,
// while_loop, wrap_with_set_grad_enabled, autograd_function_apply, flex_attention, ...): which
// submodule each HOP node runs, and each body once with its call sites, so a body called for
// each of N layers is shown, listed and compared once. Derived from a Graph on demand; nothing
// here changes the graph.
#pragma once

#include "core/graph/graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::graph {

struct Subgraph {
    std::string name;   // the submodule ("repeated_subgraph0", "true_graph_0")
    std::string hop;    // the operator of its first call ("invoke_subgraph"); "" if uncalled
    GraphPtr graph;     // the body
    std::vector<NodeId> callSites; // HOP nodes of the parent graph that run it, graph order
    std::string parent; // the graph that calls it: "" for the top level, else a body's name
    std::size_t calls() const { return callSites.size(); }
};

// True for call_function nodes of a higher-order operator ("higher_order.cond").
bool isHigherOrderCall(const Node& node);
// "invoke_subgraph" for "higher_order.invoke_subgraph"; "" for other targets.
std::string_view higherOrderName(const Node& node);

// The submodules a HOP node runs: its get_attr arguments that name a body of `graph`, in
// argument order (cond: true then false body). Empty for other nodes.
std::vector<GraphPtr> bodiesCalledBy(const Graph& graph, const Node& node);

// Every body of `graph` and, depth first, of its bodies (each once, nested ones after their
// parent's), with the HOP nodes calling it. Bodies no HOP node calls are listed with no call
// sites (a submodule of a printed graph that is never run).
std::vector<Subgraph> listSubgraphs(const Graph& graph);

} // namespace fxs::graph
