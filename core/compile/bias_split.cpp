#include "core/compile/bias_split.h"

#include "core/codegen/lowering.h"
#include "core/graph/graph_builder.h"
#include "core/graph/node_remap.h"
#include "core/graph/op_category.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fxs::compile {
namespace {

using graph::Argument;
using graph::Graph;
using graph::Node;
using graph::NodeId;

bool isOne(const Argument& a)
{
    return (a.kind == graph::ArgKind::Int && a.i == 1) ||
           (a.kind == graph::ArgKind::Float && a.f == 1.0);
}

// A reshape whose result keeps the last size of its operand: the bias still runs along it.
bool keepsLastSize(const Node& n, const graph::SymInt& last)
{
    const std::string_view base = graph::opBaseName(n.target);
    const bool reshape = base == "view" || base == "_unsafe_view" || base == "reshape";
    const graph::TensorMeta* m = n.tensorMeta();
    return reshape && n.isCallFunction() && m && m->rank() > 0 && m->sizes.back() == last;
}

// A pointwise op the code generator lowers: an add before it lands in its kernel.
bool fusedReader(const Node& user)
{
    return graph::categorize(user) == graph::OpCategory::Pointwise && !codegen::opRefusal(user);
}

// Pointwise ops that are lowered read `id` (and, with returned, the output node may too: the
// kernel then stores the value besides, as a training forward saves a gelu's input).
bool onlyFusedReaders(const Graph& g, NodeId id, bool returned = false)
{
    const auto& users = g.node(id).users;
    const auto fused = [&](NodeId u) { return fusedReader(g.node(u)); };
    return std::any_of(users.begin(), users.end(), fused) &&
           std::all_of(users.begin(), users.end(), [&](NodeId u) {
               return fused(u) || (returned && g.node(u).isOutput());
           });
}

// Where the add goes: after the addmm, when pointwise ops read it; after each of its views,
// when only reshapes that keep the last size read it and only pointwise ops read those (an add
// on the matmul's 2-D shape would not fuse into a kernel that iterates the view's shape).
enum class SplitAt : std::uint8_t { None, Addmm, Views };

SplitAt splitAt(const Graph& g, const Node& n)
{
    if (!n.isCallFunction() || n.target != "aten::addmm.default" || n.args.size() != 3) {
        return SplitAt::None;
    }
    for (const auto& [key, value] : n.kwargs) {
        if ((key != "beta" && key != "alpha") || !isOne(value)) {
            return SplitAt::None;
        }
    }
    const graph::TensorMeta* out = n.tensorMeta();
    if (!out || out->rank() == 0 || !graph::isFloatingPoint(out->dtype) || !n.args[0].isNode()) {
        return SplitAt::None;
    }
    const graph::TensorMeta* bias = g.node(n.args[0].node).tensorMeta();
    if (!bias || bias->rank() != 1 || bias->sizes[0] != out->sizes.back() ||
        bias->dtype != out->dtype) {
        return SplitAt::None;
    }
    if (onlyFusedReaders(g, n.id)) { // the output node is no pointwise op: not when returned
        return SplitAt::Addmm;
    }
    const auto& users = n.users;
    const bool views = !users.empty() && std::all_of(users.begin(), users.end(), [&](NodeId u) {
        return keepsLastSize(g.node(u), out->sizes.back()) && onlyFusedReaders(g, u, true);
    });
    return views ? SplitAt::Views : SplitAt::None;
}

// `<name>_mm`, or `<name>_mm_<k>` for the first k that no node has.
std::string freshName(const std::string& name, std::unordered_set<std::string>& taken)
{
    std::string candidate = name + "_mm";
    for (int k = 1; taken.count(candidate) != 0; ++k) {
        candidate = name + "_mm_" + std::to_string(k);
    }
    taken.insert(candidate);
    return candidate;
}

// `value + bias` as node n (its name, meta, source), in the graph being built.
NodeId addAfter(graph::GraphBuilder& b, Node n, NodeId value, NodeId bias)
{
    n.target = "aten::add.Tensor";
    n.args = {Argument::ref(value), Argument::ref(bias)};
    n.kwargs.clear();
    n.statement.clear();
    return b.add(std::move(n));
}

} // namespace

Result<graph::GraphPtr> splitBiasEpilogues(const Graph& g, BiasSplitCounts* counts)
{
    BiasSplitCounts local;
    BiasSplitCounts& c = counts ? *counts : local;
    c = {};
    std::unordered_set<std::string> taken;
    for (const Node& n : g.nodes()) {
        taken.insert(n.name);
    }
    graph::GraphBuilder b(g.name());
    b.reserve(g.size() + 8);
    b.setSource(g.sourcePath(), g.firstLine(), g.text());
    for (const auto& sub : g.submodules()) {
        b.addSubmodule(sub);
    }
    std::vector<NodeId> ids(g.size(), graph::kNoNode);
    const auto newId = [&](NodeId r) { return ids.at(r); };
    std::unordered_map<NodeId, NodeId> biasAfter; // a view of a split addmm -> its bias
    for (const Node& old : g.nodes()) {
        Node n = graph::remappedNode(old, newId);
        if (auto it = biasAfter.find(old.id); it != biasAfter.end()) {
            Node view = n; // the view of the mm, under a fresh name; the add takes the view's
            view.name = freshName(old.name, taken);
            view.statement.clear();
            ids[old.id] = addAfter(b, std::move(n), b.add(std::move(view)), ids[it->second]);
            continue;
        }
        const SplitAt at = splitAt(g, old);
        c.addmms += n.isCallFunction() && n.target == "aten::addmm.default" ? 1 : 0;
        if (at == SplitAt::None) {
            ids[old.id] = b.add(std::move(n));
            continue;
        }
        ++c.split;
        Node mm = n; // same meta, source, module stack and annotation
        mm.name = freshName(old.name, taken);
        mm.target = "aten::mm.default";
        mm.args = {n.args[1], n.args[2]};
        mm.kwargs.clear();
        mm.statement.clear();
        const NodeId mmId = b.add(std::move(mm));
        if (at == SplitAt::Views) {
            ids[old.id] = mmId; // only the views read it: they read the mm now
            for (NodeId u : old.users) {
                biasAfter[u] = old.args[0].node;
            }
            continue;
        }
        const NodeId bias = n.args[0].node;
        ids[old.id] = addAfter(b, std::move(n), mmId, bias);
    }
    return b.build();
}

} // namespace fxs::compile
