// Input synthesis and the inputs file. Hints come from how the graph uses an input: following
// view-like ops, an input that indexes a table (embedding, gather, index, nll_loss) is bounded
// by the indexed size; one used as a variance or inverse std is kept positive.
#include "core/exec/input_synth.h"
#include "core/exec/executor.h"
#include "core/exec/torch_bridge.h"
#include "core/exec/torch_save.h"
#include "core/util/checked_int.h"
#include "core/util/int_expr.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <set>

namespace fxs::exec::detail {
namespace {

using graph::ArgKind;
using graph::Node;

const std::set<std::string_view> kViewLike = {
    "view", "_unsafe_view", "reshape", "expand", "clone", "contiguous", "t", "transpose",
    "permute", "unsqueeze", "squeeze", "flatten", "select", "slice", "alias", "detach",
    "_to_copy", "lift_fresh_copy"};

struct PositiveUse {
    std::string_view op;
    std::size_t arg;
};
const PositiveUse kPositive[] = {
    {"native_batch_norm", 4}, {"_native_batch_norm_legit_functional", 4},
    {"_native_batch_norm_legit_no_training", 4}, {"_native_batch_norm_legit", 4},
    {"batch_norm", 4}, {"native_batch_norm_backward", 4}, {"native_batch_norm_backward", 6},
    {"native_layer_norm_backward", 4}, {"sqrt", 0}, {"rsqrt", 0}, {"log", 0}};

std::optional<std::int64_t> sizeOf(const graph::Graph& g, const graph::Argument& a,
                                   std::int64_t dim, const SizeEnv& sizes)
{
    if (!a.isNode()) {
        return std::nullopt;
    }
    const auto* m = g.node(a.node).tensorMeta();
    const auto rank = m ? static_cast<std::int64_t>(m->rank()) : 0;
    if (!m || rank == 0) {
        return std::nullopt;
    }
    dim = dim < 0 ? dim + rank : dim;
    if (dim < 0 || dim >= rank) {
        return std::nullopt;
    }
    const auto& s = m->sizes[dim];
    if (!s.isSymbolic()) {
        return s.value;
    }
    auto v = evalSymExpr(s.expr, sizes);
    return v.ok() ? std::optional<std::int64_t>(*v) : std::nullopt;
}

// "x (line 12)": the node whose size expression failed, and its line in the graph text.
std::string whereOf(const Node& node)
{
    return node.line > 0 ? node.name + " (line " + std::to_string(node.line) + ")" : node.name;
}

// The bound an index tensor at args[pos] (item `item` of a list, or -1) must stay below.
std::optional<std::int64_t> indexBound(const graph::Graph& g, const Node& u, std::size_t pos,
                                       int item, const SizeEnv& sizes)
{
    const auto op = graph::opBaseName(u.target);
    const auto& a = u.args;
    auto intArg = [&](std::size_t i) -> std::optional<std::int64_t> {
        return i < a.size() && a[i].kind == ArgKind::Int ? std::optional(a[i].i) : std::nullopt;
    };
    if (op == "embedding" && pos == 1) {
        return sizeOf(g, a[0], 0, sizes);
    }
    if (op == "embedding_dense_backward" && pos == 1) {
        return intArg(2);
    }
    static const std::set<std::string_view> dimIndexed = {
        "gather", "index_select", "scatter", "scatter_add", "scatter_reduce", "index_add",
        "index_copy", "index_fill"};
    if (dimIndexed.count(op) && pos == 2) {
        auto dim = intArg(1);
        return dim ? sizeOf(g, a[0], *dim, sizes) : std::nullopt;
    }
    if ((op == "index" || op == "_unsafe_index" || op == "index_put") && pos == 1 && item >= 0) {
        return sizeOf(g, a[0], item, sizes);
    }
    if ((op == "nll_loss_forward" || op == "nll_loss" || op == "cross_entropy_loss") && pos == 1) {
        const auto* m = a[0].isNode() ? g.node(a[0].node).tensorMeta() : nullptr;
        return sizeOf(g, a[0], m && m->rank() >= 2 ? 1 : 0, sizes);
    }
    if (op == "max_pool2d_with_indices_backward" && pos == 7) {
        auto h = sizeOf(g, a[1], -2, sizes);
        auto w = sizeOf(g, a[1], -1, sizes);
        const CheckedInt hw = h && w ? checkedMul(*h, *w) : CheckedInt{0, IntFault::Overflow};
        return hw.ok() ? std::optional(hw.value) : std::nullopt;
    }
    return std::nullopt;
}

// The fan-in of a weight operand: convolution/linear weights [out, in, ...], mm/addmm/matmul
// right operands [in, out] (what `t(weight)` gives). 0 when the use is not a weight.
std::int64_t weightFanIn(const graph::Graph& g, graph::NodeId value, std::string_view op,
                         std::size_t pos, const SizeEnv& sizes)
{
    const graph::Argument ref = graph::Argument::ref(value);
    const auto* m = g.node(value).tensorMeta();
    if (!m || m->rank() < 2) {
        return 0;
    }
    if ((op == "convolution" || op == "conv2d" || op == "conv1d" || op == "linear") && pos == 1) {
        std::int64_t fan = 1;
        for (std::size_t d = 1; d < m->rank(); ++d) {
            const CheckedInt next =
                checkedMul(fan, sizeOf(g, ref, static_cast<std::int64_t>(d), sizes).value_or(1));
            if (!next.ok()) {
                return 0; // no fan-in scaling for a weight whose size does not fit
            }
            fan = next.value;
        }
        return fan;
    }
    if (((op == "mm" || op == "matmul") && pos == 1) || (op == "addmm" && pos == 2)) {
        return sizeOf(g, ref, 0, sizes).value_or(0);
    }
    return 0;
}

void visitUses(const graph::Graph& g, graph::NodeId value, InputHint& hint, const SizeEnv& sizes,
               int depth)
{
    if (depth > 16) {
        return;
    }
    for (auto userId : g.node(value).users) {
        const Node& u = g.node(userId);
        const auto op = graph::opBaseName(u.target);
        for (std::size_t pos = 0; pos < u.args.size(); ++pos) {
            const auto& a = u.args[pos];
            int item = -1;
            bool refers = a.isNode() && a.node == value;
            for (std::size_t k = 0; !refers && a.isSequence() && k < a.items.size(); ++k) {
                if (a.items[k].isNode() && a.items[k].node == value) {
                    refers = true;
                    item = static_cast<int>(k);
                }
            }
            if (!refers) {
                continue;
            }
            if (auto b = indexBound(g, u, pos, item, sizes)) {
                hint.bound = hint.bound ? std::min(*hint.bound, *b) : *b;
            }
            if (auto fan = weightFanIn(g, value, op, pos, sizes); fan > 0 && !hint.fanIn) {
                hint.fanIn = fan;
            }
            for (const auto& p : kPositive) {
                hint.positive = hint.positive || (op == p.op && pos == p.arg);
            }
            if (pos == 0 && kViewLike.count(op)) {
                visitUses(g, userId, hint, sizes, depth + 1);
            }
        }
    }
}

Result<std::vector<std::int64_t>> evalAll(const std::vector<graph::SymInt>& dims,
                                          const SizeEnv& sizes)
{
    std::vector<std::int64_t> out;
    for (const auto& d : dims) {
        if (!d.isSymbolic()) {
            out.push_back(d.value);
            continue;
        }
        auto v = evalSymExpr(d.expr, sizes);
        if (!v.ok()) {
            return v.error();
        }
        out.push_back(*v);
    }
    return out;
}

at::Tensor randomValues(at::IntArrayRef sizes, at::ScalarType st, const InputHint& hint,
                        at::Generator& gen)
{
    const auto cpu = at::TensorOptions().device(at::kCPU);
    if (st == at::kBool) {
        return at::randint(0, 2, sizes, gen, cpu.dtype(at::kLong)).to(at::kBool);
    }
    if (at::isIntegralType(st, false)) {
        return at::randint(0, hint.bound.value_or(8), sizes, gen, cpu.dtype(at::kLong)).to(st);
    }
    if (hint.positive) {
        return (at::rand(sizes, gen, cpu.dtype(at::kFloat)) + 0.5).to(st);
    }
    at::Tensor t = at::randn(sizes, gen, cpu.dtype(at::kFloat));
    if (hint.fanIn > 0) {
        t.mul_(1.0 / std::sqrt(static_cast<double>(hint.fanIn)));
    }
    return t.to(st);
}

} // namespace

std::vector<InputHint> inferInputHints(const graph::Graph& graph, const SizeEnv& sizes)
{
    std::vector<InputHint> hints(graph.size());
    for (const auto& node : graph.nodes()) {
        if (node.isPlaceholder() || node.op == graph::OpKind::GetAttr) {
            visitUses(graph, node.id, hints[node.id], sizes, 0);
        }
    }
    return hints;
}

Result<std::int64_t> evalSymExpr(std::string_view expr, const SizeEnv& sizes)
{
    return evalIntExpr(expr, [&sizes](std::string_view name) -> std::optional<std::int64_t> {
        const auto it = sizes.find(std::string(name));
        return it == sizes.end() ? std::nullopt : std::optional(it->second);
    });
}

Result<c10::IValue> synthesizeInput(const graph::Node& node, const graph::ValueMeta& meta,
                                    const InputHint& hint, const SizeEnv& sizes,
                                    c10::Device device, at::Generator& gen)
{
    if (meta.kind == graph::ValueMeta::Kind::Sym) {
        std::string_view t = meta.text;
        if (t.rfind("Sym(", 0) == 0 && t.size() > 5) {
            t = t.substr(4, t.size() - 5);
        }
        auto v = evalSymExpr(t, sizes);
        if (!v.ok()) {
            Error e = v.error();
            e.where = whereOf(node);
            return e;
        }
        return c10::IValue(*v);
    }
    if (!meta.isTensor()) {
        return makeError(ErrorCode::Invalid,
                         "input '" + node.name + "' has no tensor meta to synthesise it from; "
                         "give it in an inputs file", node.name);
    }
    const auto& tm = meta.tensor;
    auto st = toScalarType(tm.dtype);
    if (!st) {
        return makeError(ErrorCode::Unsupported,
                         "input '" + node.name + "' has a dtype this LibTorch lacks", node.name);
    }
    auto dims = evalAll(tm.sizes, sizes);
    if (!dims.ok()) {
        Error e = dims.error();
        e.where = whereOf(node);
        return e;
    }
    at::Tensor t = randomValues(*dims, *st, hint, gen);
    if (tm.strides && tm.strides->size() == dims->size()) {
        auto strides = evalAll(*tm.strides, sizes);
        if (strides.ok() && at::IntArrayRef(*strides) != t.strides()) {
            at::Tensor strided = at::empty_strided(*dims, *strides, t.options());
            strided.copy_(t);
            t = strided;
        }
    }
    return c10::IValue(t.to(device));
}

Result<std::map<std::string, c10::IValue>> loadInputsFile(const std::string& path)
{
    auto v = readTorchSave(path); // the gate: a FIFO is refused at once, sizes capped (2 GiB)
    if (!v.ok()) {
        Error err = v.error();
        err.message = "cannot read inputs file: " + err.message;
        if (err.expected.empty()) {
            err.expected = "a file written by torch.save({name: tensor}, path)";
        }
        return err;
    }
    std::map<std::string, c10::IValue> out;
    if (v->isGenericDict()) {
        for (const auto& kv : v->toGenericDict()) {
            if (!kv.key().isString()) {
                return makeError(ErrorCode::Parse, "inputs file keys must be strings", path);
            }
            out[kv.key().toStringRef()] = kv.value();
        }
    } else if (v->isTuple() || v->isList()) {
        const auto elems = v->isTuple() ? v->toTupleRef().elements().vec() : v->toList().vec();
        for (std::size_t i = 0; i < elems.size(); ++i) {
            out[std::to_string(i)] = elems[i];
        }
    } else if (v->isTensor()) {
        out["0"] = *v;
    } else {
        return makeError(ErrorCode::Parse,
                         "inputs file must hold a dict {name: tensor} or a list of tensors", path);
    }
    return out;
}

} // namespace fxs::exec::detail
