// Builds an immutable Graph: add nodes in order, then build() validates references and derives
// users, inputs and multi-output links. Not thread-safe; the result is.
#pragma once

#include "core/graph/graph.h"
#include "core/util/result.h"

namespace fxs::graph {

class GraphBuilder {
public:
    explicit GraphBuilder(std::string name = "GraphModule");

    // Adds a node; its id is assigned here. Names must be unique (checked in build()).
    NodeId add(Node node);
    // Room for n nodes in all (a reader that knows how many saves the vector's regrowth).
    void reserve(std::size_t n);
    NodeId placeholder(std::string name, std::optional<TensorMeta> meta = std::nullopt);
    NodeId call(std::string name, std::string target, std::vector<Argument> args,
                std::vector<std::pair<std::string, Argument>> kwargs = {},
                std::optional<TensorMeta> meta = std::nullopt);
    // `name = parent[index]`: an operator.getitem node.
    NodeId getitem(std::string name, NodeId parent, int index,
                   std::optional<TensorMeta> meta = std::nullopt);
    NodeId output(std::vector<Argument> returned);

    void addSubmodule(GraphPtr sub);
    void setSource(std::string path, int firstLine, std::string text = {});

    std::optional<NodeId> find(std::string_view name) const;
    Node& node(NodeId id) { return m_graph->m_nodes.at(id); }
    std::size_t size() const { return m_graph->m_nodes.size(); }

    // Validates (unique names, references only to earlier nodes, at most one output and it is
    // last) and derives users/inputs/multi-output. The builder is empty afterwards.
    Result<GraphPtr> build();

private:
    std::shared_ptr<Graph> m_graph;
};

} // namespace fxs::graph
