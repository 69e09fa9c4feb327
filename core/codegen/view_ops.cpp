// Views as index arithmetic: views of region inputs become new (offset, sizes, strides) of the
// same buffer; views of computed values are allowed when they relabel dims (insert or drop
// size-1 dims, broadcast with expand, permute them: the F dims move with the dims), merge dims
// of F, or take a step-1 slice (the expression read further along its F dim, a partial value)
// — anything else that would move elements is not lowered.
#include "core/codegen/lowerer.h"
#include "core/graph/node_arguments.h"

#include <algorithm>
#include <set>

namespace fxs::codegen::detail {
namespace {

const std::set<std::string_view> kViews = {"view", "_unsafe_view", "reshape", "expand",
                                           "permute", "transpose", "t", "unsqueeze", "squeeze",
                                           "slice", "select"};
// Copies that keep the element type: of an input view, the same values.
const std::set<std::string_view> kCopies = {"clone", "contiguous", "alias", "detach",
                                            "lift_fresh_copy", "_to_copy", "to",
                                            "convert_element_type", "positive"};

std::vector<std::int64_t> intList(const graph::Argument* a)
{
    std::vector<std::int64_t> out;
    if (!a) {
        return out;
    }
    if (a->kind == graph::ArgKind::Int) {
        out.push_back(a->i);
    }
    for (const auto& it : a->items) {
        out.push_back(it.i);
    }
    return out;
}

std::int64_t intArg(const graph::Node& n, std::size_t i, std::string_view key, std::int64_t dflt)
{
    const graph::Argument* a = graph::argumentOf(n, i, key);
    return a && a->kind == graph::ArgKind::Int ? a->i : dflt;
}

std::int64_t wrapDim(std::int64_t d, std::size_t rank)
{
    return d < 0 ? d + std::int64_t(rank) : d;
}

using SubDims = std::vector<std::pair<std::int64_t, std::int64_t>>; // (size, stride), outer first

std::vector<SubDims> subDimsOf(const Val& v)
{
    if (!v.parts.empty()) {
        return v.parts;
    }
    std::vector<SubDims> dims;
    for (std::size_t j = 0; j < v.shape.size(); ++j) {
        dims.push_back({{v.shape[j], v.strides[j]}});
    }
    return dims;
}

// Sub-dims that step as one (the outer stride is the inner's size times its stride) merged,
// size-1 ones dropped (a size-1 dim keeps one).
SubDims simplified(const SubDims& s)
{
    SubDims out;
    for (const auto& p : s) {
        if (p.first == 1) {
            continue;
        }
        if (!out.empty() && out.back().second == p.first * p.second) {
            out.back() = {out.back().first * p.first, p.second};
        } else {
            out.push_back(p);
        }
    }
    if (out.empty()) {
        out.push_back(s.empty() ? std::make_pair(std::int64_t(1), std::int64_t(1)) : s.front());
    }
    return out;
}

// v's shape and strides from dims: parts only while some dim is not one stride.
void setSubDims(Val& v, const std::vector<SubDims>& dims)
{
    v.shape.assign(dims.size(), 1);
    v.strides.assign(dims.size(), 0);
    v.parts.clear();
    bool plain = true;
    std::vector<SubDims> simple;
    for (std::size_t j = 0; j < dims.size(); ++j) {
        simple.push_back(dims[j].size() == 1 ? dims[j] : simplified(dims[j]));
        for (const auto& p : dims[j]) {
            v.shape[j] *= p.first;
        }
        v.strides[j] = simple[j].front().second;
        plain = plain && simple[j].size() == 1;
    }
    if (!plain) {
        v.parts = std::move(simple);
    }
}

// A reshape on sub-dims: the sub-dims of size > 1 in order, split where a new dim ends inside
// one; false when a new dim's size is not a product of whole (or split) sub-dims.
bool reshapeSubDims(std::vector<SubDims>& dims, const std::vector<std::int64_t>& shape)
{
    SubDims flat;
    for (const auto& d : dims) {
        for (const auto& p : d) {
            if (p.first == 0) {
                return false;
            }
            if (p.first != 1) {
                flat.push_back(p);
            }
        }
    }
    std::reverse(flat.begin(), flat.end()); // consumed from the back (outermost first)
    std::vector<SubDims> out;
    for (std::int64_t size : shape) {
        SubDims d;
        std::int64_t need = size;
        while (need > 1) {
            if (flat.empty() || need <= 0) {
                return false;
            }
            auto [a, st] = flat.back();
            if (need % a == 0) {
                d.push_back(flat.back());
                flat.pop_back();
                need /= a;
            } else if (a % need == 0) {
                d.emplace_back(need, st * (a / need));
                flat.back() = {a / need, st};
                need = 1;
            } else {
                return false;
            }
        }
        if (size < 1) {
            return false;
        }
        out.push_back(d.empty() ? SubDims{{1, 1}} : d);
    }
    if (!flat.empty()) {
        return false;
    }
    dims = std::move(out);
    return true;
}

std::vector<std::int64_t> viewShape(const graph::Node& n, const std::vector<std::int64_t>& sz)
{
    const graph::Argument* sizeArg =
        n.kwarg("shape") ? n.kwarg("shape") : graph::argumentOf(n, 1, "size");
    std::vector<std::int64_t> shape = intList(sizeArg);
    std::int64_t known = 1, total = 1;
    for (auto s : sz) {
        total *= s;
    }
    for (auto s : shape) {
        known *= s == -1 ? 1 : s;
    }
    for (auto& s : shape) {
        s = s == -1 ? (known ? total / known : 0) : s;
    }
    return shape;
}

bool expandSubDims(const graph::Node& n, std::vector<SubDims>& dims,
                   const std::vector<std::int64_t>& sz)
{
    const auto shape = intList(graph::argumentOf(n, 1, "size"));
    if (shape.size() < sz.size()) {
        return false;
    }
    std::vector<SubDims> out(shape.size());
    const std::size_t lead = shape.size() - sz.size();
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const bool old = i >= lead;
        const std::int64_t cur = old ? sz[i - lead] : 1;
        const std::int64_t size = shape[i] == -1 ? cur : shape[i];
        if (old && cur != size && cur != 1) {
            return false;
        }
        out[i] = old && cur == size ? dims[i - lead] : SubDims{{size, 0}};
    }
    dims = std::move(out);
    return true;
}

bool permuteSubDims(const graph::Node& n, std::string_view base, std::vector<SubDims>& dims)
{
    if (base == "permute") {
        const auto perm = intList(graph::argumentOf(n, 1, "dims"));
        if (perm.size() != dims.size()) {
            return false;
        }
        std::vector<SubDims> out;
        for (auto p : perm) {
            out.push_back(dims[std::size_t(wrapDim(p, dims.size()))]);
        }
        dims = std::move(out);
    } else if (dims.size() >= 2) {
        const auto a = std::size_t(wrapDim(intArg(n, 1, "dim0", 0), dims.size()));
        const auto b = std::size_t(wrapDim(intArg(n, 2, "dim1", 1), dims.size()));
        std::swap(dims[a], dims[b]);
    }
    return true;
}

// slice and select along a dim that is one stride (a dim of sub-dims only when whole).
bool indexSubDims(const graph::Node& n, std::string_view base, std::vector<SubDims>& dims,
                  const std::vector<std::int64_t>& sz, std::int64_t& offset)
{
    const auto d = std::size_t(wrapDim(intArg(n, 1, "dim", 0), sz.size()));
    const std::int64_t size = sz[d];
    if (base == "select") {
        std::int64_t idx = intArg(n, 2, "index", 0);
        idx = idx < 0 ? idx + size : idx;
        if (idx < 0 || idx >= size || dims[d].size() != 1) {
            return false;
        }
        offset += idx * dims[d].front().second;
        dims.erase(dims.begin() + std::ptrdiff_t(d));
        return true;
    }
    auto clampIdx = [&](std::int64_t i) {
        i = i < 0 ? i + size : i;
        return std::clamp<std::int64_t>(i, 0, size);
    };
    const std::int64_t start = clampIdx(intArg(n, 2, "start", 0));
    const std::int64_t end = std::max(start, clampIdx(intArg(n, 3, "end", size)));
    const std::int64_t step = intArg(n, 4, "step", 1);
    if (step <= 0) {
        return false;
    }
    if (start == 0 && end == size && step == 1) {
        return true; // the whole dim
    }
    if (dims[d].size() != 1) {
        return false;
    }
    auto& [len, st] = dims[d].front();
    offset += start * st;
    len = (end - start + step - 1) / step;
    st *= step;
    return true;
}

// Applies the view op to an input view's (shape, strides or sub-dims, offset); false when not
// a pure view. A view, reshape or _unsafe_view whose result is not one stride per dim keeps its
// dims as sub-dims (Val::parts).
bool applyToInputView(const graph::Node& n, std::string_view base, Val& v)
{
    std::vector<SubDims> dims = subDimsOf(v);
    const std::vector<std::int64_t> sz = v.shape;
    if (base == "view" || base == "_unsafe_view" || base == "reshape") {
        const std::vector<std::int64_t> shape = viewShape(n, sz);
        auto ns = v.parts.empty() ? viewStrides(sz, v.strides, shape) : std::nullopt;
        if (ns) {
            v.shape = shape;
            v.strides = *ns;
            return true;
        }
        if (!reshapeSubDims(dims, shape)) {
            return false;
        }
    } else if (base == "expand") {
        if (!expandSubDims(n, dims, sz)) {
            return false;
        }
    } else if (base == "permute" || base == "transpose" || base == "t") {
        if (!permuteSubDims(n, base, dims)) {
            return false;
        }
    } else if (base == "unsqueeze") {
        const auto d = std::size_t(wrapDim(intArg(n, 1, "dim", 0), sz.size() + 1));
        dims.insert(dims.begin() + std::ptrdiff_t(d), SubDims{{1, 1}});
    } else if (base == "squeeze") {
        std::vector<std::int64_t> listed = intList(graph::argumentOf(n, 1, "dim"));
        std::vector<SubDims> kept;
        for (std::size_t i = 0; i < sz.size(); ++i) {
            const bool drop = listed.empty() || std::any_of(listed.begin(), listed.end(), [&](auto d) {
                                  return std::size_t(wrapDim(d, sz.size())) == i;
                              });
            if (!(drop && sz[i] == 1)) {
                kept.push_back(dims[i]);
            }
        }
        dims = std::move(kept);
    } else if (base == "slice" || base == "select") {
        if (!indexSubDims(n, base, dims, sz, v.offset)) {
            return false;
        }
    } else {
        return false;
    }
    setSubDims(v, dims);
    return true;
}

std::vector<std::int64_t> nonOnes(const std::vector<std::int64_t>& s)
{
    std::vector<std::int64_t> out;
    std::copy_if(s.begin(), s.end(), std::back_inserter(out), [](auto d) { return d != 1; });
    return out;
}

// A view of a computed value that only inserts/drops size-1 dims: F dims (and the spans of
// merged dims: a column sum's [1, 1, C] result viewed as [C]) carry over in order.
bool relabel(const Val& x, const std::vector<std::int64_t>& shape, Val& out)
{
    if (nonOnes(x.shape) != nonOnes(shape)) {
        return false;
    }
    std::vector<std::pair<int, int>> carried;
    for (std::size_t j = 0; j < x.shape.size(); ++j) {
        if (x.shape[j] != 1) {
            carried.emplace_back(x.fdim[j], j < x.fspan.size() ? x.fspan[j] : 1);
        }
    }
    out = x;
    out.shape = shape;
    out.fdim.clear();
    out.fspan.clear();
    std::size_t k = 0;
    for (auto s : shape) {
        const auto [fd, span] = s == 1 ? std::make_pair(-1, 1) : carried[k++];
        out.fdim.push_back(fd);
        out.fspan.push_back(span);
    }
    if (std::all_of(out.fspan.begin(), out.fspan.end(), [](int s) { return s == 1; })) {
        out.fspan.clear();
    }
    return true;
}

// The dims of x in the order a permute, transpose or t lists them; empty when they are not a
// permutation of x's dims.
std::vector<std::size_t> permutationOf(const graph::Node& n, std::string_view base, const Val& x)
{
    const std::size_t rank = x.shape.size();
    std::vector<std::size_t> perm;
    if (base == "permute") {
        for (auto p : intList(graph::argumentOf(n, 1, "dims"))) {
            perm.push_back(std::size_t(wrapDim(p, rank)));
        }
    } else {
        for (std::size_t i = 0; i < rank; ++i) {
            perm.push_back(i);
        }
        const auto a = std::size_t(wrapDim(intArg(n, 1, "dim0", 0), rank));
        const auto b = std::size_t(wrapDim(intArg(n, 2, "dim1", 1), rank));
        if (rank >= 2 && (a >= rank || b >= rank)) {
            return {};
        }
        if (rank >= 2) {
            std::swap(perm[a], perm[b]);
        }
    }
    std::vector<std::size_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (sorted[i] != i) {
            return {};
        }
    }
    return sorted.size() == rank ? perm : std::vector<std::size_t>{};
}

// A permutation of a computed value: its dims (and the F dims they run along) reordered; the
// element at each index of F stays where it is, so nothing is copied.
bool permuteComputed(const graph::Node& n, std::string_view base, const Val& x, Val& out)
{
    const std::vector<std::size_t> perm = permutationOf(n, base, x);
    if (perm.empty() && !x.shape.empty()) {
        return false;
    }
    out = x;
    for (std::size_t i = 0; i < perm.size(); ++i) {
        out.shape[i] = x.shape[perm[i]];
        out.fdim[i] = x.fdim[perm[i]];
        if (!x.fspan.empty()) {
            out.fspan[i] = x.fspan[perm[i]];
        }
    }
    return true;
}

// A step-1 slice of a computed value along a dim that runs along one F dim: its expression read
// `start` further along that F dim, a partial value of the slice's length (Val: only a cat or
// a placed gradient moves it further).
Status sliceComputed(Lowerer& lw, const graph::Node& n, const Val& x,
                     const std::vector<std::int64_t>& shape, Val& out)
{
    const std::size_t d = std::size_t(wrapDim(intArg(n, 1, "dim", 0), x.shape.size()));
    const std::vector<int> fd = lw.fdimOf(x);
    if (d >= x.shape.size() || shape.size() != x.shape.size() || intArg(n, 4, "step", 1) != 1 ||
        fd[d] < 0 || lw.partial(x)) {
        return lw.unsupported(n, "a slice of a computed value other than a step-1 slice along "
                                 "one dim of the kernel");
    }
    const std::int64_t size = x.shape[d];
    std::int64_t start = intArg(n, 2, "start", 0);
    start = std::clamp<std::int64_t>(start < 0 ? start + size : start, 0, size);
    if (shape[d] <= 0 || start + shape[d] > size) {
        return lw.unsupported(n, "a slice whose printed size does not fit its value");
    }
    auto moved = lw.shifted(x.expr, fd[d], -start, size);
    if (!moved) {
        return lw.unsupported(n, moved.error().message);
    }
    out = x;
    out.shape[d] = shape[d];
    out.expr = *moved;
    return {};
}

} // namespace

bool isViewOp(std::string_view base) { return kViews.count(base) != 0; }

bool isCopyOp(std::string_view base) { return kCopies.count(base) != 0; }

bool copyOfInputView(Lowerer& lw, const graph::Node& n)
{
    if (!isCopyOp(graph::opBaseName(n.target))) {
        return false;
    }
    auto x = lw.operand(n, 0);
    auto meta = lw.outMeta(n);
    if (!x || !meta || (x->kind != Val::Kind::InputView && x->kind != Val::Kind::Synth) ||
        x->type != meta->first || x->shape != meta->second) {
        return false;
    }
    lw.values[n.id] = *x;
    return true;
}

Status lowerView(Lowerer& lw, const graph::Node& n)
{
    auto x = lw.operand(n, 0);
    if (!x) {
        return x.error();
    }
    const std::string_view base = graph::opBaseName(n.target);
    if (x->kind == Val::Kind::InputView || x->kind == Val::Kind::Synth) {
        Val v = *x;
        if (!applyToInputView(n, base, v)) {
            return lw.unsupported(n, "this view needs a copy");
        }
        lw.values[n.id] = std::move(v);
        return {};
    }
    if (x->kind != Val::Kind::Computed) {
        return lw.unsupported(n, "view of a non-tensor");
    }
    auto meta = lw.outMeta(n);
    if (!meta) {
        return meta.error();
    }
    Val out;
    if (base == "expand") {
        auto fd = lw.alignToF(meta->second);
        out = *x;
        out.shape = meta->second;
        if (!fd || !lw.consistent(*x, *fd, meta->second)) {
            if (Status s = expandComputed(lw, n, meta->second, out); !s) {
                return s;
            }
        } else {
            out.fdim = *fd;
        }
    } else if (base == "permute" || base == "transpose" || base == "t") {
        if (!permuteComputed(n, base, *x, out) || out.shape != meta->second) {
            return lw.unsupported(n, "a permutation of a computed value that does not match "
                                     "its printed shape");
        }
    } else if (base == "slice" && !relabel(*x, meta->second, out)) {
        if (Status s = sliceComputed(lw, n, *x, meta->second, out); !s) {
            return s;
        }
    } else if (!relabel(*x, meta->second, out) && !mergeDims(lw, *x, meta->second, out) &&
               !(permuteToOrderOf(lw, *x) &&
                 mergeDims(lw, lw.values.at(n.args[0].node), meta->second, out))) {
        return lw.unsupported(n, "a view of a computed value that moves elements");
    }
    lw.values[n.id] = std::move(out);
    return {};
}

namespace {

// Every value's F dims (tuple items' too) mapped by inv (old F dim -> new).
void moveFdims(Val& v, const std::vector<int>& inv)
{
    for (int& d : v.fdim) {
        d = d >= 0 ? inv[std::size_t(d)] : d;
    }
    for (Val& item : v.items) {
        moveFdims(item, inv);
    }
}

// True when v's merged dims still run along consecutive F dims in order under inv.
bool mergedStayConsecutive(const Val& v, const std::vector<int>& inv)
{
    for (std::size_t j = 0; j < v.fspan.size() && j < v.fdim.size(); ++j) {
        for (int i = 1; i < v.fspan[j] && v.fdim[j] >= 0; ++i) {
            if (inv[std::size_t(v.fdim[j] + i)] != inv[std::size_t(v.fdim[j])] + i) {
                return false;
            }
        }
    }
    return std::all_of(v.items.begin(), v.items.end(),
                       [&](const Val& item) { return mergedStayConsecutive(item, inv); });
}

} // namespace

bool permuteToOrderOf(Lowerer& lw, const Val& x)
{
    if (x.kind != Val::Kind::Computed || lw.reducedDims >= 0 || lw.columnDims >= 0 ||
        !lw.kernel.reductions.empty()) {
        return false;
    }
    std::vector<int> own;
    for (std::size_t j = 0; j < x.shape.size(); ++j) {
        if (x.shape[j] == 1) {
            continue;
        }
        const bool merged = j < x.fspan.size() && x.fspan[j] > 1;
        if (x.fdim[j] < 0 || merged || x.shape[j] != lw.F[std::size_t(x.fdim[j])]) {
            return false;
        }
        own.push_back(x.fdim[j]);
    }
    std::vector<int> order;
    for (int d = 0; d < int(lw.F.size()); ++d) {
        if (std::find(own.begin(), own.end(), d) == own.end()) {
            order.push_back(d);
        }
    }
    order.insert(order.end(), own.begin(), own.end());
    std::vector<int> inv(order.size());
    bool identity = true;
    for (std::size_t i = 0; i < order.size(); ++i) {
        inv[std::size_t(order[i])] = int(i);
        identity = identity && order[i] == int(i);
    }
    if (identity || std::any_of(lw.values.begin(), lw.values.end(), [&](const auto& kv) {
            return !mergedStayConsecutive(kv.second, inv);
        })) {
        return false;
    }
    permuteIndexSpace(lw.kernel, order);
    lw.F = lw.kernel.shape;
    for (auto& kv : lw.values) {
        moveFdims(kv.second, inv);
    }
    for (int& d : lw.grownDims) {
        d = inv[std::size_t(d)];
    }
    return true;
}

std::vector<std::int64_t> refinedSpace(const Lowerer& lw, const Val& v)
{
    std::vector<std::int64_t> sizes; // v's sub-dims of size > 1, outermost first
    for (const SubDims& d : subDimsOf(v)) {
        for (const auto& p : d) {
            if (p.first != 1) {
                sizes.push_back(p.first);
            }
        }
    }
    std::vector<std::int64_t> out; // built innermost first
    for (std::size_t d = lw.F.size(); d-- > 0;) {
        std::int64_t rest = lw.F[d];
        if (sizes.empty() || rest == 1) {
            out.push_back(rest);
            continue;
        }
        while (rest > 1 && !sizes.empty() && rest % sizes.back() == 0) {
            out.push_back(sizes.back());
            rest /= sizes.back();
            sizes.pop_back();
        }
        if (rest != 1) {
            return {};
        }
    }
    std::reverse(out.begin(), out.end());
    return sizes.empty() && out != lw.F ? out : std::vector<std::int64_t>{};
}

std::optional<Val> materialized(Lowerer& lw, const Val& v)
{
    if (v.kind != Val::Kind::InputView) {
        return std::nullopt; // a Synth value's index arithmetic on sub-dims: not needed so far
    }
    Val out;
    out.kind = Val::Kind::Computed;
    out.type = v.type;
    out.shape = v.shape;
    out.fdim.assign(v.shape.size(), -1);
    out.fspan.assign(v.shape.size(), 1);
    Load load;
    load.type = v.type;
    load.access.buffer = v.input;
    load.access.offset = v.offset;
    load.access.strides.assign(lw.F.size(), 0);
    // Right-aligned as alignToF, a dim taking one F dim per sub-dim (a size-1 dim one F dim).
    int d = int(lw.F.size()) - 1;
    for (std::size_t j = v.shape.size(); j-- > 0;) {
        const SubDims& sub = v.parts.empty() ? SubDims{{v.shape[j], v.strides[j]}} : v.parts[j];
        if (v.shape[j] == 1) {
            --d;
            continue;
        }
        for (std::size_t i = sub.size(); i-- > 0;) {
            const auto [size, stride] = sub[i];
            const bool fits = d >= 0 && (size == lw.F[std::size_t(d)] ||
                                         (sub.size() == 1 && size < lw.F[std::size_t(d)]));
            if (!fits) {
                return std::nullopt;
            }
            load.access.strides[std::size_t(d)] = stride;
            --d;
        }
        out.fdim[j] = d + 1;
        out.fspan[j] = int(sub.size());
    }
    Expr e;
    e.kind = ExprKind::Load;
    e.type = computeTypeOf(v.type);
    e.index = lw.addLoad(load);
    out.expr = lw.addExpr(std::move(e));
    return out;
}

} // namespace fxs::codegen::detail

namespace fxs::codegen {

// ATen's computeStride: strides that view (sizes, strides) as newSizes, or nullopt.
std::optional<std::vector<std::int64_t>> viewStrides(const std::vector<std::int64_t>& sizes,
                                                     const std::vector<std::int64_t>& strides,
                                                     const std::vector<std::int64_t>& newSizes)
{
    std::vector<std::int64_t> ns(newSizes.size(), 1);
    if (sizes.empty()) {
        return ns;
    }
    std::int64_t viewD = std::int64_t(newSizes.size()) - 1;
    std::int64_t chunkBase = strides.back();
    std::int64_t tensorNumel = 1;
    std::int64_t viewNumel = 1;
    for (std::int64_t d = std::int64_t(sizes.size()) - 1; d >= 0; --d) {
        tensorNumel *= sizes[std::size_t(d)];
        if (d == 0 || (sizes[std::size_t(d - 1)] != 1 &&
                       strides[std::size_t(d - 1)] != tensorNumel * chunkBase)) {
            while (viewD >= 0 && (viewNumel < tensorNumel || newSizes[std::size_t(viewD)] == 1)) {
                ns[std::size_t(viewD)] = viewNumel * chunkBase;
                viewNumel *= newSizes[std::size_t(viewD)];
                --viewD;
            }
            if (viewNumel != tensorNumel) {
                return std::nullopt;
            }
            if (d > 0) {
                chunkBase = strides[std::size_t(d - 1)];
                tensorNumel = 1;
                viewNumel = 1;
            }
        }
    }
    if (viewD != -1) {
        return std::nullopt;
    }
    return ns;
}

std::vector<std::int64_t> contiguousStrides(const std::vector<std::int64_t>& sizes)
{
    std::vector<std::int64_t> st(sizes.size(), 1);
    for (std::size_t i = sizes.size(); i-- > 1;) {
        st[i - 1] = st[i] * std::max<std::int64_t>(sizes[i], 1);
    }
    return st;
}

} // namespace fxs::codegen
