#include "core/compile/bias_split.h"

#include "core/codegen/lowering.h"
#include "core/graph/graph_builder.h"
#include "core/graph/node_remap.h"
#include "core/graph/op_category.h"

#include <string>
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

// Every reader of `id`, through reshapes that keep the last size, is a pointwise op the code
// generator lowers: the add lands in a kernel that runs anyway.
bool onlyFusedReaders(const Graph& g, NodeId id, const graph::SymInt& last)
{
    for (NodeId u : g.node(id).users) {
        const Node& user = g.node(u);
        if (keepsLastSize(user, last)) {
            if (!onlyFusedReaders(g, u, last)) {
                return false;
            }
            continue;
        }
        if (graph::categorize(user) != graph::OpCategory::Pointwise ||
            codegen::opRefusal(user)) {
            return false;
        }
    }
    return !g.node(id).users.empty();
}

bool splits(const Graph& g, const Node& n)
{
    if (!n.isCallFunction() || n.target != "aten::addmm.default" || n.args.size() != 3) {
        return false;
    }
    for (const auto& [key, value] : n.kwargs) {
        if ((key != "beta" && key != "alpha") || !isOne(value)) {
            return false;
        }
    }
    const graph::TensorMeta* out = n.tensorMeta();
    if (!out || out->rank() == 0 || !graph::isFloatingPoint(out->dtype) || !n.args[0].isNode()) {
        return false;
    }
    const graph::TensorMeta* bias = g.node(n.args[0].node).tensorMeta();
    if (!bias || bias->rank() != 1 || bias->sizes[0] != out->sizes.back() ||
        bias->dtype != out->dtype) {
        return false;
    }
    for (NodeId r : g.returnedNodes()) {
        if (r == n.id) {
            return false;
        }
    }
    return onlyFusedReaders(g, n.id, out->sizes.back());
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
    for (const Node& old : g.nodes()) {
        Node n = graph::remappedNode(old, newId);
        const bool addmm = n.isCallFunction() && n.target == "aten::addmm.default";
        c.addmms += addmm ? 1 : 0;
        if (!addmm || !splits(g, old)) {
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
        n.target = "aten::add.Tensor";
        n.args = {Argument::ref(mmId), n.args[0]};
        n.kwargs.clear();
        n.statement.clear();
        ids[old.id] = b.add(std::move(n));
    }
    return b.build();
}

} // namespace fxs::compile
