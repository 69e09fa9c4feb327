#include "core/cache/region_canon.h"

#include <algorithm>
#include <unordered_set>

namespace fxs::cache {
namespace {

struct Canon {
    const graph::Graph& g;
    std::unordered_set<graph::NodeId> inRegion;
    std::vector<std::string> names;
    RegionSignature sig;
    int nextInput = 0;
    int nextValue = 0;

    void visitInput(graph::NodeId id)
    {
        if (names[id].empty()) {
            names[id] = "in" + std::to_string(nextInput++);
            sig.inputs.push_back(id);
        }
    }

    // Iterative post-order DFS: deep chains must not overflow the stack.
    void visit(graph::NodeId root)
    {
        std::vector<std::pair<graph::NodeId, std::size_t>> stack{{root, 0}};
        while (!stack.empty()) {
            auto& [id, next] = stack.back();
            if (!names[id].empty()) {
                stack.pop_back();
                continue;
            }
            const auto& inputs = g.node(id).inputs;
            if (next < inputs.size()) {
                const graph::NodeId in = inputs[next++];
                if (inRegion.count(in) == 0) {
                    visitInput(in);
                } else if (names[in].empty()) {
                    stack.emplace_back(in, 0);
                }
                continue;
            }
            names[id] = "v" + std::to_string(nextValue++);
            sig.order.push_back(id);
            stack.pop_back();
        }
    }

    std::string line(graph::NodeId id) const
    {
        const graph::Node& n = g.node(id);
        std::string s = names[id] + " = " + std::string(graph::opKindName(n.op)) + " " +
                        n.target + "(";
        bool first = true;
        for (const auto& a : n.args) {
            s += (first ? "" : ", ") + graph::argumentToString(a, names);
            first = false;
        }
        for (const auto& [k, a] : n.kwargs) {
            s += (first ? "" : ", ") + k + "=" + graph::argumentToString(a, names);
            first = false;
        }
        return s + ")\n";
    }
};

std::string joinInts(const std::vector<std::int64_t>& v)
{
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        s += (i ? "," : "") + std::to_string(v[i]);
    }
    return s + "]";
}

} // namespace

RegionSignature canonicalizeRegion(const graph::Graph& graph,
                                   const std::vector<graph::NodeId>& nodes)
{
    Canon c{graph, {nodes.begin(), nodes.end()}, std::vector<std::string>(graph.size()), {}};
    std::vector<graph::NodeId> sorted(nodes);
    std::sort(sorted.begin(), sorted.end());
    for (graph::NodeId id : sorted) {
        const auto& users = graph.node(id).users;
        const bool usedOutside = users.empty() || std::any_of(users.begin(), users.end(),
            [&](graph::NodeId u) { return c.inRegion.count(u) == 0; });
        if (usedOutside) {
            c.sig.outputs.push_back(id);
        }
    }
    for (graph::NodeId out : c.sig.outputs) {
        c.visit(out);
    }
    std::string& t = c.sig.text;
    t = "inputs " + std::to_string(c.sig.inputs.size()) + "\n";
    for (graph::NodeId id : c.sig.order) {
        t += c.line(id);
    }
    t += "return (";
    for (std::size_t i = 0; i < c.sig.outputs.size(); ++i) {
        t += (i ? ", " : "") + c.names[c.sig.outputs[i]];
    }
    t += ")\n";
    return std::move(c.sig);
}

std::string canonicalTensorMeta(std::string_view dtype, const std::vector<std::int64_t>& sizes,
                                const std::vector<std::int64_t>& strides,
                                std::string_view device)
{
    return "dtype=" + std::string(dtype) + ";sizes=" + joinInts(sizes) +
           ";strides=" + joinInts(strides) + ";device=" + std::string(device);
}

std::string canonicalTensorMeta(const graph::TensorMeta& meta)
{
    auto dims = [](const std::vector<graph::SymInt>& v) {
        std::string s = "[";
        for (std::size_t i = 0; i < v.size(); ++i) {
            s += (i ? "," : "") + v[i].toString();
        }
        return s + "]";
    };
    std::string strides = "?";
    if (meta.strides) {
        strides = dims(*meta.strides);
    } else if (!meta.hasSymbolicSizes()) {
        std::vector<std::int64_t> st(meta.sizes.size(), 1);
        for (std::size_t i = meta.sizes.size(); i-- > 1;) {
            st[i - 1] = st[i] * std::max<std::int64_t>(meta.sizes[i].value, 1);
        }
        strides = joinInts(st);
    }
    return "dtype=" + std::string(graph::dtypeTorchName(meta.dtype)) + ";sizes=" +
           dims(meta.sizes) + ";strides=" + strides + ";device=" +
           (meta.device ? meta.device->toString() : std::string("cpu"));
}

} // namespace fxs::cache
