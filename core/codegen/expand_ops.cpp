// An expand of a computed value along dims the kernel's index space does not have (LLaMA's
// repeat_kv: [B, Hkv, S, D] unsqueezed to [B, Hkv, 1, S, D], expanded to n_rep, made contiguous
// and viewed as [B, Hkv * n_rep, S, D]): F gains the expanded dims. Everything lowered before
// does not depend on the new index (its loads stride 0 along it, its index arithmetic and guards
// move with their dims); what comes after runs along it.
#include "core/codegen/lowerer.h"

#include <algorithm>
#include <optional>
#include <set>

namespace fxs::codegen::detail {
namespace {

std::vector<std::int64_t> sizesOf(const graph::Node& n)
{
    std::vector<std::int64_t> s;
    if (const graph::TensorMeta* m = n.tensorMeta(); m && !m->hasSymbolicSizes()) {
        for (const auto& d : m->sizes) {
            s.push_back(d.value);
        }
    }
    return s;
}

// The rank of the value a view chain of the region starts from when it is computed there (not a
// region input nor a constructor's virtual buffer); 0 otherwise.
std::size_t computedRank(const LoweringRequest& req, const std::set<graph::NodeId>& region,
                         graph::NodeId id)
{
    while (region.count(id)) {
        const graph::Node& n = req.graph->node(id);
        const std::string_view base = graph::opBaseName(n.target);
        if (!isViewOp(base)) {
            return isConstructorOp(base) ? 0 : sizesOf(n).size();
        }
        if (n.args.empty() || !n.args[0].isNode()) {
            return 0;
        }
        id = n.args[0].node;
    }
    return 0;
}

bool crossesMergedDim(const Val& v, int p)
{
    if (v.kind == Val::Kind::Tuple) {
        return std::any_of(v.items.begin(), v.items.end(),
                           [&](const Val& i) { return crossesMergedDim(i, p); });
    }
    for (std::size_t j = 0; v.kind == Val::Kind::Computed && j < v.fspan.size(); ++j) {
        if (v.fspan[j] > 1 && v.fdim[j] < p && p < v.fdim[j] + v.fspan[j]) {
            return true;
        }
    }
    return false;
}

void shiftFdims(Val& v, int p)
{
    for (Val& i : v.items) {
        shiftFdims(i, p);
    }
    for (int& f : v.fdim) {
        f = v.kind == Val::Kind::Computed && f >= p ? f + 1 : f;
    }
}

// Inserts a dim of `size` at position p of F; false (nothing changed) when a merged dim of a
// value runs across p or p falls among the reduced trailing dims.
bool insertFDim(Lowerer& lw, int p, std::int64_t size)
{
    const int n = int(lw.F.size());
    if (p < 0 || p > n || (lw.reducedDims > 0 && p > n - lw.reducedDims) ||
        std::any_of(lw.values.begin(), lw.values.end(),
                    [&](const auto& kv) { return crossesMergedDim(kv.second, p); })) {
        return false;
    }
    auto shift = [p](int& d) { d = d >= p ? d + 1 : d; };
    auto widen = [&](Access& a) {
        a.strides.insert(a.strides.begin() + p, 0);
        for (Guard& g : a.guards) {
            shift(g.dim);
        }
    };
    for (Load& l : lw.kernel.loads) {
        widen(l.access);
    }
    for (Store& st : lw.kernel.stores) {
        widen(st.access);
    }
    for (Expr& e : lw.kernel.exprs) {
        if (e.kind == ExprKind::Index) {
            shift(e.index);
        }
    }
    for (auto& kv : lw.values) {
        shiftFdims(kv.second, p);
    }
    for (int& d : lw.grownDims) {
        shift(d);
    }
    lw.grownDims.push_back(p);
    lw.F.insert(lw.F.begin() + p, size);
    lw.kernel.shape = lw.F;
    return true;
}

// The dims of `shape` an expand of x broadcasts (size 1 in x, more in shape), or nullopt when
// x's other dims do not keep their sizes or do not run along F dims in order.
std::optional<std::vector<bool>> broadcastDims(const Lowerer& lw, const Val& x,
                                               const std::vector<std::int64_t>& shape)
{
    const std::size_t lead = shape.size() - x.shape.size();
    const std::vector<int> xf = lw.fdimOf(x);
    std::vector<bool> fresh(shape.size(), false);
    int last = -1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const std::int64_t cur = i >= lead ? x.shape[i - lead] : 1;
        const int f = i >= lead ? xf[i - lead] : -1;
        if (cur == 1 && shape[i] > 1) {
            fresh[i] = true;
        } else if (cur != shape[i] || (cur != 1 && f <= last)) {
            return std::nullopt;
        } else if (cur != 1) {
            last = f;
        }
    }
    return fresh;
}

} // namespace

bool growsIndexSpace(const LoweringRequest& req, const std::set<graph::NodeId>& region,
                     const graph::Node& n)
{
    if (graph::opBaseName(n.target) != "expand" || n.args.empty() || !n.args[0].isNode()) {
        return false;
    }
    const std::vector<std::int64_t> in = sizesOf(req.graph->node(n.args[0].node));
    const std::vector<std::int64_t> out = sizesOf(n);
    const std::size_t from = computedRank(req, region, n.args[0].node);
    if (from == 0 || from >= out.size() || in.size() > out.size()) {
        return false;
    }
    // A size-1 dim after one of size > 1 broadcast: right alignment cannot place it in F.
    const std::size_t lead = out.size() - in.size();
    bool sized = false;
    for (std::size_t j = 0; j < in.size(); ++j) {
        if (in[j] == 1 && out[lead + j] > 1 && sized) {
            return true;
        }
        sized = sized || in[j] > 1;
    }
    return false;
}

Status expandComputed(Lowerer& lw, const graph::Node& n, const std::vector<std::int64_t>& shape,
                      Val& out)
{
    const std::string why = "expand of a computed value along other dims than the kernel's";
    const graph::NodeId src = n.args.empty() ? graph::kNoNode : n.args[0].node;
    const auto it = lw.values.find(src);
    if (it == lw.values.end() || lw.columnDims >= 0 || lw.columnPart ||
        it->second.shape.size() > shape.size() || lw.partial(it->second)) {
        return lw.unsupported(n, why);
    }
    const std::vector<std::int64_t> xs = it->second.shape;
    const std::size_t lead = shape.size() - xs.size();
    const auto fresh = broadcastDims(lw, it->second, shape);
    if (!fresh) {
        return lw.unsupported(n, why);
    }
    std::vector<int> fd(shape.size(), -1);
    int after = -1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const Val& x = lw.values.at(src); // its F dims move as F grows
        if ((*fresh)[i]) {
            if (!insertFDim(lw, after + 1, shape[i])) {
                return lw.unsupported(n, why + " (the new dim would split a merged or reduced "
                                              "dim)");
            }
            fd[i] = ++after;
            lw.grownBy = lw.grownBy == graph::kNoNode ? n.id : lw.grownBy;
        } else if (i >= lead && xs[i - lead] != 1) {
            fd[i] = after = x.fdim[i - lead];
        }
    }
    out = lw.values.at(src);
    out.shape = shape;
    out.fdim = fd;
    out.fspan.clear();
    return {};
}

Status checkGrownStore(const Lowerer& lw, const graph::Node& n, const Store& st)
{
    for (int d : lw.grownDims) {
        if (lw.F[std::size_t(d)] > 1 && st.access.strides[std::size_t(d)] == 0) {
            return lw.unsupported(lw.g.node(lw.grownBy),
                                  "a value stored from the kernel (" + n.name +
                                      ") would be written once per index of the expanded dim");
        }
    }
    return {};
}

} // namespace fxs::codegen::detail
