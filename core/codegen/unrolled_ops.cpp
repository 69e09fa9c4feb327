// Reductions over a few elements along dims that are neither the trailing nor the leading dims
// of the kernel's index space (LLaMA's repeat_kv backward: a sum over n_rep of [B, Hkv, n_rep,
// S, D]), unrolled as Inductor unrolls reductions of at most 8 elements: the operand read at each
// reduced index, combined by pointwise ops. The kernel then iterates the kept dims, so pointwise
// consumers (the rotary embedding's slices, a transpose and its clone) fuse, and producers fuse
// as pinned copies of their expressions. Not the row or column reductions (lower_ops.cpp,
// column_ops.cpp), which run over any number of elements.
#include "core/codegen/lowerer.h"
#include "core/graph/node_arguments.h"

#include <algorithm>

namespace fxs::codegen::detail {
namespace {

// Inductor's unroll_reductions_threshold.
constexpr std::int64_t kUnrollMost = 8;

// The number of elements dims of shape reduce; 0 when a dim is out of range.
std::int64_t reducedCount(const std::vector<std::int64_t>& shape, const std::vector<int>& dims)
{
    std::int64_t count = 1;
    for (int d : dims) {
        if (d < 0 || d >= int(shape.size())) {
            return 0;
        }
        count *= shape[std::size_t(d)];
    }
    return count;
}

// True when the reduced dims of size > 1 are neither all before nor all after the kept ones.
bool middleDims(const std::vector<std::int64_t>& shape, const std::vector<int>& dims)
{
    int firstKept = -1, lastKept = -1, firstReduced = -1, lastReduced = -1;
    for (int j = 0; j < int(shape.size()); ++j) {
        if (shape[std::size_t(j)] == 1) {
            continue;
        }
        const bool reduced = std::find(dims.begin(), dims.end(), j) != dims.end();
        int& first = reduced ? firstReduced : firstKept;
        (reduced ? lastReduced : lastKept) = j;
        first = first < 0 ? j : first;
    }
    return firstReduced >= 0 && firstKept >= 0 && !(lastReduced < firstKept) &&
           !(lastKept < firstReduced);
}

// Advances `at` (an index per reduced dim of x, the last fastest); false after the last.
bool nextIndex(const Val& x, const std::vector<int>& dims, std::vector<std::int64_t>& at)
{
    for (std::size_t i = dims.size(); i-- > 0;) {
        if (++at[i] < x.shape[std::size_t(dims[i])]) {
            return true;
        }
        at[i] = 0;
    }
    return false;
}

// An input view or constructed value at the reduced indices `at`: the reduced dims of size 1
// (keep) or dropped.
Val viewAt(const Val& x, const std::vector<int>& dims, const std::vector<std::int64_t>& at,
           bool keep)
{
    Val v = x;
    for (std::size_t i = dims.size(); i-- > 0;) {
        const auto d = std::size_t(dims[i]);
        v.offset += at[i] * v.strides[d];
        v.shape[d] = 1;
        v.strides[d] = 0;
        if (!keep) {
            v.shape.erase(v.shape.begin() + std::ptrdiff_t(d));
            v.strides.erase(v.strides.begin() + std::ptrdiff_t(d));
        }
    }
    return v;
}

// Whether viewAt keeps the reduced dims of an input view or constructed value: as the node's
// result does (keepdim) when that fits F by right alignment, else the other way (the kernel may
// iterate the kept dims only).
bool keepsDims(const Lowerer& lw, const Val& x, const std::vector<int>& dims, bool keepdim)
{
    const Val v = viewAt(x, dims, std::vector<std::int64_t>(dims.size(), 0), keepdim);
    return lw.alignToF(v.shape) ? keepdim : !keepdim;
}

// x's term at the reduced indices `at`, of type t.
Result<int> termAt(Lowerer& lw, const Val& x, const std::vector<int>& dims,
                   const std::vector<std::int64_t>& at, bool keep, ComputeType t)
{
    if (x.kind != Val::Kind::Computed) {
        return lw.exprOf(viewAt(x, dims, at, keep), t);
    }
    const std::vector<int> fd = lw.fdimOf(x);
    int e = x.expr;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const int D = fd[std::size_t(dims[i])];
        if (x.shape[std::size_t(dims[i])] == 1) {
            continue;
        }
        auto p = lw.pinned(e, D, at[i]);
        if (!p) {
            return p.error();
        }
        e = *p;
    }
    return lw.cast(e, t);
}

// x with the F dims its reduced value runs along: a computed x as it is; an input view or
// constructed value as a computed value whose kept dims run where viewAt's loads put them.
std::optional<Val> carrier(const Lowerer& lw, const Val& x, const std::vector<int>& dims,
                           bool keep)
{
    if (x.kind == Val::Kind::Computed) {
        return x;
    }
    const Val v = viewAt(x, dims, std::vector<std::int64_t>(dims.size(), 0), keep);
    const auto fd = lw.alignToF(v.shape);
    if (!fd) {
        return std::nullopt;
    }
    Val c;
    c.kind = Val::Kind::Computed;
    c.shape = x.shape;
    c.fdim.assign(x.shape.size(), -1);
    for (std::size_t j = 0, k = 0; j < x.shape.size(); ++j) {
        const bool reduced = std::find(dims.begin(), dims.end(), int(j)) != dims.end();
        if (!reduced || v.shape.size() == x.shape.size()) {
            c.fdim[j] = reduced ? -1 : (*fd)[k];
            ++k;
        }
    }
    return c;
}

} // namespace

std::optional<std::vector<std::int64_t>> unrolledSpace(const graph::Node& n,
                                                       const std::vector<std::int64_t>& operand)
{
    const std::string_view base = graph::opBaseName(n.target);
    if (base != "sum" && base != "mean" && base != "amax" && base != "amin") {
        return std::nullopt;
    }
    const std::vector<int> dims = dimList(graph::argumentOf(n, 1, "dim"), int(operand.size()));
    const std::int64_t count = reducedCount(operand, dims);
    if (count < 2 || count > kUnrollMost || !middleDims(operand, dims)) {
        return std::nullopt;
    }
    std::vector<std::int64_t> kept;
    for (int j = 0; j < int(operand.size()); ++j) {
        if (std::find(dims.begin(), dims.end(), j) == dims.end()) {
            kept.push_back(operand[std::size_t(j)]);
        }
    }
    return kept;
}

bool unrollsReduction(const Lowerer& lw, const Val& x, const std::vector<int>& dims)
{
    if (x.kind == Val::Kind::Scalar || x.kind == Val::Kind::Tuple) {
        return false;
    }
    const std::int64_t count = reducedCount(x.shape, dims);
    return count >= 2 && count <= kUnrollMost && !reducesLeadingDims(lw, x, dims) &&
           trailingCover(lw, x, dims) == 0;
}

Result<Val> lowerUnrolled(Lowerer& lw, const graph::Node& n, ReduceKind kind, bool mean,
                          const Val& x, const std::vector<int>& dims, bool keepdim,
                          ScalarType type)
{
    if (lw.partial(x) || (x.kind != Val::Kind::Computed && x.kind != Val::Kind::InputView &&
                          x.kind != Val::Kind::Synth)) {
        return lw.unsupported(n, "reduces a value that does not fill the kernel's index space");
    }
    const std::vector<int> fd = lw.fdimOf(x);
    for (int d : dims) {
        if (x.kind == Val::Kind::Computed && x.shape[std::size_t(d)] != 1 &&
            fd[std::size_t(d)] < 0) {
            return lw.unsupported(n, "reduces merged dims of a computed value");
        }
    }
    const bool keep = x.kind != Val::Kind::Computed && keepsDims(lw, x, dims, keepdim);
    const auto c = carrier(lw, x, dims, keep);
    if (!c) {
        return lw.unsupported(n, "its kept dims do not fit the kernel's index space");
    }
    const ComputeType t = computeTypeOf(type);
    const ComputeType acc = mean ? floatingFor(t) : t;
    const std::string combine = kind == ReduceKind::Sum   ? "add"
                                : kind == ReduceKind::Max ? "maximum"
                                                          : "minimum";
    std::vector<std::int64_t> at(dims.size(), 0);
    int r = -1;
    do {
        auto term = termAt(lw, x, dims, at, keep, acc);
        if (!term) {
            return lw.unsupported(n, term.error().message);
        }
        r = r < 0 ? *term : lw.op(combine, acc, {r, *term});
    } while (nextIndex(x, dims, at));
    if (mean) {
        const double count = double(reducedCount(x.shape, dims));
        r = lw.op("mul", acc, {r, lw.constant(1.0 / count, acc)});
    }
    return rowValue(lw, *c, dims, keepdim, lw.cast(r, t), type);
}

} // namespace fxs::codegen::detail
