// Reductions over leading dims (column reductions, loop_ir.h's Kernel::columns): sum, mean,
// amax and amin whose dims are leading dims of the kernel's index space F — or any dims but the
// trailing ones, F then permuted so that they lead (permuteColumns) — and the weight and bias
// gradients of native_layer_norm_backward. The kernel's outer dims become the reduced range and
// its inner dims the kept columns; pointwise producers fuse into the pass over the rows and
// their outputs are stored from it. Not the row reductions (lower_ops.cpp).
#include "core/codegen/lowerer.h"
#include "core/graph/node_arguments.h"

#include <algorithm>
#include <set>

namespace fxs::codegen::detail {
namespace {

// The F dims the reduced dims of x run along (size-1 dims of x along none); -2 when x does not
// fit F.
std::set<int> coveredDims(const Lowerer& lw, const Val& x, const std::vector<int>& dims)
{
    std::set<int> covered;
    for (int d : dims) {
        if (d < 0 || d >= int(x.shape.size())) {
            covered.insert(-2);
            continue;
        }
        const auto [first, count] = fdimsOfDim(lw, x, std::size_t(d));
        if (first == -2 || (count > 0 && first < 0)) {
            covered.insert(-2);
        }
        for (int i = 0; i < count && first >= 0; ++i) {
            covered.insert(first + i);
        }
    }
    return covered;
}

// k: the length of the leading run of F dims that are covered or of size 1.
int leadingRun(const Lowerer& lw, const std::set<int>& covered)
{
    int k = 0;
    while (k < int(lw.F.size()) && (covered.count(k) || lw.F[std::size_t(k)] == 1)) {
        ++k;
    }
    return k;
}

// True when an expression reads a reduction's result (a RowRef), directly or through operands.
bool readsReduction(const Kernel& k, int expr)
{
    if (expr < 0) {
        return false;
    }
    std::vector<bool> reads(std::size_t(expr) + 1, false);
    for (std::size_t i = 0; i <= std::size_t(expr); ++i) {
        const Expr& e = k.exprs[i];
        bool r = e.kind == ExprKind::RowRef;
        for (int a : e.args) {
            r = r || reads[std::size_t(a)];
        }
        reads[i] = r;
    }
    return reads[std::size_t(expr)];
}

bool hasMergedDims(const Val& v)
{
    return std::any_of(v.fspan.begin(), v.fspan.end(), [](int s) { return s > 1; });
}

} // namespace

std::pair<int, int> fdimsOfDim(const Lowerer& lw, const Val& v, std::size_t j)
{
    if (j >= v.shape.size() || v.shape[j] == 1) {
        return {-1, 0};
    }
    if (v.kind == Val::Kind::Computed && j < v.fspan.size() && v.fspan[j] > 1) {
        return {v.fdim[j], v.fspan[j]};
    }
    const std::vector<int> fd = lw.fdimOf(v);
    return {j < fd.size() ? fd[j] : -2, 1};
}

std::vector<std::int64_t> storeStrides(const Lowerer& lw, const Val& v,
                                       const std::vector<std::int64_t>& cs)
{
    std::vector<std::int64_t> strides(lw.F.size(), 0);
    for (std::size_t j = 0; j < v.shape.size(); ++j) {
        const auto [first, count] = fdimsOfDim(lw, v, j);
        std::int64_t step = cs[j];
        for (int i = count - 1; i >= 0 && first >= 0; --i) {
            strides[std::size_t(first + i)] = step;
            step *= lw.F[std::size_t(first + i)];
        }
    }
    return strides;
}

bool mergeDims(const Lowerer& lw, const Val& x, const std::vector<std::int64_t>& shape, Val& out)
{
    if (x.kind != Val::Kind::Computed || hasMergedDims(x) || lw.partial(x)) {
        return false;
    }
    // x's dims of size > 1 as (size, F dim), in order.
    std::vector<std::pair<std::int64_t, int>> dims;
    for (std::size_t j = 0; j < x.shape.size(); ++j) {
        if (x.shape[j] != 1) {
            if (x.fdim[j] < 0 || x.shape[j] != lw.F[std::size_t(x.fdim[j])]) {
                return false; // a broadcast: merging it would need a copy
            }
            dims.emplace_back(x.shape[j], x.fdim[j]);
        }
    }
    Val v = x;
    v.shape = shape;
    v.fdim.clear();
    v.fspan.clear();
    std::size_t k = 0;
    for (auto size : shape) {
        if (size == 1) {
            v.fdim.push_back(-1);
            v.fspan.push_back(1);
            continue;
        }
        if (k >= dims.size()) {
            return false;
        }
        const int first = dims[k].second;
        std::int64_t product = 1;
        int span = 0;
        while (k < dims.size() && product < size && dims[k].second == first + span) {
            product *= dims[k].first;
            ++span;
            ++k;
        }
        if (product != size) {
            return false;
        }
        v.fdim.push_back(first);
        v.fspan.push_back(span);
    }
    if (k != dims.size() || !hasMergedDims(v)) {
        return false;
    }
    out = std::move(v);
    return true;
}

bool reducesColumnDims(const Lowerer& lw, const Val& x, const std::vector<int>& dims)
{
    if (x.kind == Val::Kind::Scalar || x.kind == Val::Kind::Tuple || lw.F.size() < 2 ||
        trailingCover(lw, x, dims) != 0) {
        return false;
    }
    const std::set<int> covered = coveredDims(lw, x, dims);
    if (covered.empty() || covered.count(-2) || covered.count(-1)) {
        return false;
    }
    for (int d = 0; d < int(lw.F.size()); ++d) {
        if (!covered.count(d) && lw.F[std::size_t(d)] != 1) {
            return true; // a kept dim: the columns
        }
    }
    return false;
}

bool reducesLeadingDims(const Lowerer& lw, const Val& x, const std::vector<int>& dims)
{
    if (x.kind == Val::Kind::Scalar || x.kind == Val::Kind::Tuple || lw.F.size() < 2) {
        return false;
    }
    const std::set<int> covered = coveredDims(lw, x, dims);
    if (covered.empty() || covered.count(-2) || covered.count(-1)) {
        return false;
    }
    const int k = leadingRun(lw, covered);
    // Every covered dim in the leading run, and some dim of F left as columns.
    return *covered.rbegin() < k && k < int(lw.F.size()) && !covered.count(int(lw.F.size()) - 1);
}

Result<std::int64_t> claimOuterDims(Lowerer& lw, const graph::Node& n, const Val& x,
                                    const std::vector<int>& dims)
{
    if (lw.partial(x)) {
        return lw.unsupported(n, "reduces a value that does not fill the kernel's index space");
    }
    if (lw.reducedDims >= 0) {
        return lw.unsupported(n, "a column reduction (over other dims than the trailing ones) in a "
                                 "kernel with row reductions");
    }
    const std::set<int> covered = coveredDims(lw, x, dims);
    const int k = leadingRun(lw, covered);
    std::vector<int> rows;
    for (int d = 0; d < int(lw.F.size()); ++d) {
        if (d < k || covered.count(d)) {
            rows.push_back(d); // the leading run, size-1 dims in it included, and covered dims
        }
    }
    if (lw.columnDims >= 0 && lw.columnRows != rows) {
        return lw.unsupported(n, "reduces other dims than another column reduction of the "
                                 "region");
    }
    lw.columnRows = rows;
    lw.columnDims = int(rows.size());
    std::int64_t count = 1;
    for (int d : dims) {
        count *= x.shape[std::size_t(d)];
    }
    return count;
}

Status checkColumnValue(Lowerer& lw, const graph::Node& n)
{
    if (lw.columnDims < 0) {
        return {};
    }
    auto it = lw.values.find(n.id);
    if (it == lw.values.end()) {
        return {};
    }
    std::vector<Val> vals{it->second};
    if (it->second.kind == Val::Kind::Tuple) {
        vals = it->second.items;
    }
    for (const Val& v : vals) {
        if (v.kind != Val::Kind::Computed || !readsReduction(lw.kernel, v.expr)) {
            continue;
        }
        for (std::size_t j = 0; j < v.fdim.size() && j < v.shape.size(); ++j) {
            const auto [first, count] = fdimsOfDim(lw, v, j);
            bool alongRows = false;
            for (int i = 0; i < count && first >= 0; ++i) {
                alongRows = alongRows || std::find(lw.columnRows.begin(), lw.columnRows.end(),
                                                   first + i) != lw.columnRows.end();
            }
            if (alongRows) {
                return lw.unsupported(n, "reads the result of a reduction over leading dims "
                                         "along the reduced dims (a second pass over the rows)");
            }
        }
    }
    return {};
}

void permuteColumns(Lowerer& lw)
{
    std::vector<int> order = lw.columnRows;
    for (int d = 0; d < int(lw.F.size()); ++d) {
        if (std::find(order.begin(), order.end(), d) == order.end()) {
            order.push_back(d);
        }
    }
    std::vector<int> to(order.size());
    bool identity = true;
    for (std::size_t i = 0; i < order.size(); ++i) {
        to[std::size_t(order[i])] = int(i);
        identity = identity && order[i] == int(i);
    }
    if (lw.columnDims < 0 || identity) {
        return;
    }
    Kernel& k = lw.kernel;
    auto permuted = [&](const std::vector<std::int64_t>& v) {
        std::vector<std::int64_t> out;
        for (int d : order) {
            out.push_back(v[std::size_t(d)]);
        }
        return out;
    };
    auto permute = [&](Access& a) {
        a.strides = permuted(a.strides);
        for (Guard& g : a.guards) {
            g.dim = to[std::size_t(g.dim)];
        }
    };
    for (Load& l : k.loads) {
        permute(l.access);
    }
    for (Store& st : k.stores) {
        permute(st.access);
    }
    for (Expr& e : k.exprs) {
        e.index = e.kind == ExprKind::Index ? to[std::size_t(e.index)] : e.index;
    }
    k.shape = permuted(k.shape);
    lw.F = k.shape;
    lw.columnRows.clear();
    for (int i = 0; i < lw.columnDims; ++i) {
        lw.columnRows.push_back(i);
    }
}

// grad_weight = sum over the rows of grad_out * xhat, grad_bias = sum over the rows of
// grad_out, xhat = (input - mean) * rstd; the rows are the dims before the normalized ones.
Status lowerLayerNormBackwardColumns(Lowerer& lw, const graph::Node& n)
{
    auto x = lw.operand(n, 1);
    if (!x) {
        return x.error();
    }
    const std::size_t normalized = normalizedDims(n, 2, x->shape.size()).size();
    std::vector<int> rows;
    for (int d = 0; d + normalized < x->shape.size(); ++d) {
        rows.push_back(d);
    }
    if (rows.empty() || !reducesLeadingDims(lw, *x, rows)) {
        return lw.unsupported(n, "the weight and bias gradients do not reduce leading dims");
    }
    auto count = claimOuterDims(lw, n, *x, rows);
    const ComputeType f = floatingFor(computeTypeOf(x->type));
    auto ops = count ? floatOperands(lw, n, *x, {0, 1, 3, 4}, f) // grad_out, input, mean, rstd
                     : Result<std::vector<int>>(count.error());
    if (!ops) {
        return ops.error();
    }
    const std::vector<int>& e = *ops;
    const int xhat = lw.op("mul", f, {lw.op("sub", f, {e[1], e[2]}), e[3]});
    const int gw = reduce(lw, ReduceKind::Sum, lw.op("mul", f, {e[0], xhat}), f);
    const int gb = reduce(lw, ReduceKind::Sum, e[0], f);
    Val gi;
    gi.kind = Val::Kind::Deferred; // the row kernel's
    Val t;
    t.kind = Val::Kind::Tuple;
    // The getitems' meta gives the items' element type (the weight's).
    t.items = {gi, rowValue(lw, *x, rows, false, gw, x->type),
               rowValue(lw, *x, rows, false, gb, x->type)};
    lw.values[n.id] = std::move(t);
    return {};
}

} // namespace fxs::codegen::detail
