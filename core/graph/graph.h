// An immutable FX graph snapshot: nodes in topological (printed) order, name lookup, derived
// users/inputs, nested submodule graphs (HOP bodies, regional submodules). Built only by
// GraphBuilder; shared as GraphPtr between threads without locking.
#pragma once

#include "core/graph/node.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fxs::graph {

class Graph;
using GraphPtr = std::shared_ptr<const Graph>;

class Graph {
public:
    const std::string& name() const { return m_name; } // class name: "GraphModule", "inner_f"
    const std::vector<Node>& nodes() const { return m_nodes; }
    std::size_t size() const { return m_nodes.size(); }
    const Node& node(NodeId id) const { return m_nodes.at(id); }
    std::optional<NodeId> find(std::string_view name) const;

    const std::vector<NodeId>& placeholders() const { return m_placeholders; }
    NodeId outputNode() const { return m_output; } // kNoNode when the graph has no output
    // Nodes referenced by the output node, in return order.
    std::vector<NodeId> returnedNodes() const;

    const std::vector<GraphPtr>& submodules() const { return m_submodules; }
    GraphPtr submodule(std::string_view name) const;

    std::size_t countOf(OpKind op) const;
    // call_function/call_method targets and how often each occurs.
    std::map<std::string, int> opHistogram() const;

    // Where the graph text came from (for diagnostics and the code panel).
    const std::string& sourcePath() const { return m_sourcePath; }
    int firstLine() const { return m_firstLine; }
    const std::string& text() const { return m_text; } // the printed text, when kept

private:
    friend class GraphBuilder;
    std::string m_name;
    std::vector<Node> m_nodes;
    std::unordered_map<std::string, NodeId> m_byName;
    std::vector<NodeId> m_placeholders;
    NodeId m_output = kNoNode;
    std::vector<GraphPtr> m_submodules;
    std::string m_sourcePath;
    int m_firstLine = 1;
    std::string m_text;
};

} // namespace fxs::graph
