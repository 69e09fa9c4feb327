#include "core/graph/graph_builder.h"

#include <algorithm>

namespace fxs::graph {

GraphBuilder::GraphBuilder(std::string name) : m_graph(std::make_shared<Graph>())
{
    m_graph->m_name = std::move(name);
}

NodeId GraphBuilder::add(Node node)
{
    node.id = static_cast<NodeId>(m_graph->m_nodes.size());
    m_graph->m_nodes.push_back(std::move(node));
    return m_graph->m_nodes.back().id;
}

void GraphBuilder::reserve(std::size_t n)
{
    m_graph->m_nodes.reserve(n);
}

NodeId GraphBuilder::placeholder(std::string name, std::optional<TensorMeta> meta)
{
    Node n;
    n.op = OpKind::Placeholder;
    n.target = name;
    n.name = std::move(name);
    if (meta) {
        n.meta.kind = ValueMeta::Kind::Tensor;
        n.meta.tensor = *meta;
        n.meta.text = meta->toString();
    }
    return add(std::move(n));
}

NodeId GraphBuilder::call(std::string name, std::string target, std::vector<Argument> args,
                          std::vector<std::pair<std::string, Argument>> kwargs,
                          std::optional<TensorMeta> meta)
{
    Node n;
    n.op = OpKind::CallFunction;
    n.name = std::move(name);
    n.target = std::move(target);
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    if (meta) {
        n.meta.kind = ValueMeta::Kind::Tensor;
        n.meta.tensor = *meta;
        n.meta.text = meta->toString();
    }
    return add(std::move(n));
}

NodeId GraphBuilder::getitem(std::string name, NodeId parent, int index,
                             std::optional<TensorMeta> meta)
{
    return call(std::move(name), "operator.getitem",
                {Argument::ref(parent), Argument::integer(index)}, {}, std::move(meta));
}

NodeId GraphBuilder::output(std::vector<Argument> returned)
{
    Node n;
    n.op = OpKind::Output;
    n.name = "output";
    n.target = "output";
    n.args.push_back(Argument::tuple(std::move(returned)));
    return add(std::move(n));
}

void GraphBuilder::addSubmodule(GraphPtr sub) { m_graph->m_submodules.push_back(std::move(sub)); }

void GraphBuilder::setSource(std::string path, int firstLine, std::string text)
{
    m_graph->m_sourcePath = std::move(path);
    m_graph->m_firstLine = firstLine;
    m_graph->m_text = std::move(text);
}

std::optional<NodeId> GraphBuilder::find(std::string_view name) const
{
    for (const auto& n : m_graph->m_nodes) {
        if (n.name == name) {
            return n.id;
        }
    }
    return std::nullopt;
}

Result<GraphPtr> GraphBuilder::build()
{
    auto g = std::move(m_graph);
    m_graph = std::make_shared<Graph>();
    auto& nodes = g->m_nodes;
    g->m_byName.reserve(nodes.size());
    for (auto& n : nodes) {
        if (!g->m_byName.emplace(n.name, n.id).second) {
            return makeError(ErrorCode::Invalid, "duplicate node name '" + n.name + "'",
                             g->m_sourcePath + ":" + std::to_string(n.line));
        }
        if (n.op == OpKind::Placeholder) {
            g->m_placeholders.push_back(n.id);
        }
        if (n.op == OpKind::Output) {
            if (g->m_output != kNoNode || n.id + 1 != nodes.size()) {
                return makeError(ErrorCode::Invalid, "output must be the last and only output node",
                                 g->m_sourcePath + ":" + std::to_string(n.line));
            }
            g->m_output = n.id;
        }
    }
    for (auto& n : nodes) {
        n.inputs.clear();
        n.users.clear();
    }
    for (auto& n : nodes) {
        std::string bad;
        auto visit = [&](NodeId ref) {
            if (ref >= n.id) {
                bad = ref < nodes.size() ? nodes[ref].name : std::string("<invalid>");
                return;
            }
            if (std::find(n.inputs.begin(), n.inputs.end(), ref) == n.inputs.end()) {
                n.inputs.push_back(ref);
            }
        };
        for (const auto& a : n.args) {
            a.forEachNode(visit);
        }
        for (const auto& kv : n.kwargs) {
            kv.second.forEachNode(visit);
        }
        if (!bad.empty()) {
            return makeError(ErrorCode::Invalid,
                             "node '" + n.name + "' uses '" + bad + "' before it is defined",
                             g->m_sourcePath + ":" + std::to_string(n.line));
        }
        for (NodeId in : n.inputs) {
            nodes[in].users.push_back(n.id);
        }
    }
    // Multi-output: `x = parent[i]` where parent has no tensor meta of its own (a tuple).
    for (auto& n : nodes) {
        if (n.op != OpKind::CallFunction || n.target != "operator.getitem" || n.args.size() != 2 ||
            !n.args[0].isNode() || n.args[1].kind != ArgKind::Int) {
            continue;
        }
        auto& parent = nodes[n.args[0].node];
        if (parent.meta.isTensor() || parent.op == OpKind::Placeholder) {
            continue; // indexing a tensor, not unpacking a tuple
        }
        parent.multiOutput = true;
        n.getitemOf = parent.id;
        n.getitemIndex = static_cast<int>(n.args[1].i);
    }
    return GraphPtr(std::move(g));
}

} // namespace fxs::graph
