// Diff of two FX graphs, for a cache key whose `gm` component (the graph code) changed: nodes
// matched by name, then compared by op kind, target, arguments (as printed text) and output
// meta. Reports changed, added and removed nodes, not a text blob; descends into higher-order
// bodies (matched by name), so a change inside a nested region names its body and node. Falls
// back to a line diff only when the graph code cannot be parsed. Not a graph isomorphism:
// renamed nodes show up as one removed and one added node.
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::explain {

enum class NodeChangeKind : std::uint8_t { Changed, Added, Removed };

std::string_view nodeChangeKindName(NodeChangeKind k); // "changed", "added", "removed"

struct NodeChange {
    NodeChangeKind change = NodeChangeKind::Changed;
    std::string name;
    // The higher-order body holding the node ("repeated_subgraph0"; nested bodies joined by
    // '/'), "" for the top-level graph.
    std::string body;
    // What differs for Changed nodes, in this order: "op", "target", "args", "meta".
    std::vector<std::string> fields;
    // Each side as text ("call_function aten::sin.default", "(primals_1,)", "f32[64, 64]");
    // the A side is empty for Added, the B side for Removed.
    std::string opA, opB;
    std::string targetA, targetB;
    std::string argsA, argsB; // positional and keyword arguments: "(x, 2, alpha=1)"
    std::string metaA, metaB; // annotation as printed; empty when the code prints none
    // The node in the top-level graph of each side; for a node inside a body, the first
    // higher-order node that runs the body (kNoNode when nothing runs it).
    graph::NodeId idA = graph::kNoNode;
    graph::NodeId idB = graph::kNoNode;
};

struct GraphDiff {
    bool parsed = false;   // both sides parsed as graph code: `nodes` is meaningful
    // Top level first (B's order for changed/added, then removed in A's order), then each body
    // the same way, bodies in B's order, then bodies only A has.
    std::vector<NodeChange> nodes;
    std::size_t nodesA = 0; // nodes of the top-level graph
    std::size_t nodesB = 0;
    std::size_t unchanged = 0; // matched nodes with no difference, bodies included
    // Fallback when a side does not parse: "- line" / "+ line" entries (a longest-common-
    // subsequence diff, at most kMaxLineDiff entries).
    std::vector<std::string> lineDiff;
    graph::GraphPtr graphA; // the parsed graphs, for showing them with changes highlighted
    graph::GraphPtr graphB;

    bool empty() const { return nodes.empty() && lineDiff.empty(); }
    std::size_t count(NodeChangeKind k) const;
    // "2 nodes changed, 1 added, 1 removed (of 9 → 10)"; "graph code differs in 3 lines".
    std::string summary() const;
    // The changes themselves when there are at most maxNodes: "mul(gelu, 2.0) → mul(gelu, 3.0)",
    // "+ cos(x)", "− sin(x)", joined by "; " (short targets, arguments as printed); "" when
    // there are more, none, or the code did not parse.
    std::string changeText(std::size_t maxNodes = 3) const;
};

inline constexpr std::size_t kMaxLineDiff = 200;

// Diffs two parsed graphs: the top-level nodes, then the nodes of every higher-order body.
GraphDiff diffGraphs(const graph::GraphPtr& a, const graph::GraphPtr& b);

// Parses both texts with io::parseGraphCode (the bare `GraphModule()\n\n\n\ndef forward(...)`
// form of a `gm` component included) and diffs the graphs; a side that yields no graph or
// leaves lines unparsed makes it a line diff instead. Never throws.
GraphDiff diffGraphCode(std::string_view a, std::string_view b);

} // namespace fxs::explain
