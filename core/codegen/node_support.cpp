// nodeRefusal: whether the code generator takes one node, asked by the automatic proposal so
// that it proposes only what region schedules generate; opRefusal, its first question.
#include "core/codegen/lowering.h"

#include "core/codegen/lowerer.h"

#include <algorithm>

namespace fxs::codegen {
namespace {

bool concrete(const graph::TensorMeta* m) { return m && !m->hasSymbolicSizes(); }

// The node and the getitems that unpack it, in graph order; the values that leave it.
void probeNodes(const graph::Graph& g, const graph::Node& n, std::vector<graph::NodeId>& order,
                std::vector<graph::NodeId>& outputs)
{
    order.push_back(n.id);
    for (graph::NodeId u : n.users) {
        if (g.node(u).getitemOf == n.id) {
            order.push_back(u);
            outputs.push_back(u);
        }
    }
    if (outputs.empty()) {
        outputs.push_back(n.id);
    }
}

} // namespace

std::optional<Refusal> nodeRefusal(const graph::Graph& g, graph::NodeId id)
{
    const graph::Node& n = g.node(id);
    if (auto r = opRefusal(n)) {
        return r;
    }
    if (isViewNode(n)) {
        // A view is index arithmetic fused into the kernels that read it, or a free LibTorch
        // view where only LibTorch steps read it: never a kernel of its own to try.
        return std::nullopt;
    }
    for (graph::NodeId in : n.inputs) {
        const graph::TensorMeta* m = g.node(in).tensorMeta();
        if (!concrete(m)) {
            return std::nullopt; // shapes unknown: the op and dtype decide
        }
        if (!scalarTypeOf(m->dtype)) {
            return Refusal{RefusalKind::Dtype,
                           "reads " + g.node(in).name + " of dtype " +
                               std::string(graph::dtypeTorchName(m->dtype)) +
                               ", which the code generator does not support"};
        }
    }
    LoweringRequest req{&g, "", {}, n.inputs, {}, {}};
    probeNodes(g, n, req.order, req.outputs);
    const bool metaKnown = std::all_of(req.outputs.begin(), req.outputs.end(), [&](auto o) {
        return concrete(g.node(o).tensorMeta());
    });
    if (!metaKnown) {
        return std::nullopt;
    }
    auto program = lowerRegion(req);
    if (!program && program.error().code == ErrorCode::Unsupported) {
        return Refusal{RefusalKind::Shape, program.error().message};
    }
    return std::nullopt;
}

bool isViewNode(const graph::Node& node)
{
    return node.op == graph::OpKind::CallFunction &&
           detail::isViewOp(graph::opBaseName(node.target));
}

std::optional<Refusal> opRefusal(const graph::Node& node)
{
    if (node.op != graph::OpKind::CallFunction) {
        return Refusal{RefusalKind::Op, "only call_function nodes are lowered"};
    }
    const std::string_view base = graph::opBaseName(node.target);
    if (base != "getitem" && !detail::isPointwiseOp(base) && !detail::isReductionOp(base) &&
        !detail::isViewOp(base) && !detail::isCatOp(base) && !detail::isConstructorOp(base) &&
        !detail::isBatchNormOp(base) && !detail::isPoolOp(base)) {
        return Refusal{RefusalKind::Op, "op " + node.target +
                                            " is not lowered by the code generator (it stays a "
                                            "LibTorch call)"};
    }
    if (const graph::TensorMeta* m = node.tensorMeta(); m && !scalarTypeOf(m->dtype)) {
        return Refusal{RefusalKind::Dtype, "dtype " + std::string(graph::dtypeTorchName(m->dtype)) +
                                               " is not supported by the code generator"};
    }
    return std::nullopt;
}

} // namespace fxs::codegen
