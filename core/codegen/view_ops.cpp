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

// Applies the view op to an input view's (shape, strides, offset); false when not a pure view.
bool applyToInputView(const graph::Node& n, std::string_view base, Val& v)
{
    auto& sz = v.shape;
    auto& st = v.strides;
    if (base == "view" || base == "_unsafe_view" || base == "reshape") {
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
        auto ns = viewStrides(sz, st, shape);
        if (!ns) {
            return false;
        }
        sz = shape;
        st = *ns;
    } else if (base == "expand") {
        const auto shape = intList(graph::argumentOf(n, 1, "size"));
        if (shape.size() < sz.size()) {
            return false;
        }
        std::vector<std::int64_t> nsz(shape.size()), nst(shape.size(), 0);
        const std::size_t lead = shape.size() - sz.size();
        for (std::size_t i = 0; i < shape.size(); ++i) {
            const bool old = i >= lead;
            const std::int64_t cur = old ? sz[i - lead] : 1;
            nsz[i] = shape[i] == -1 ? cur : shape[i];
            nst[i] = old && cur == nsz[i] ? st[i - lead] : 0;
            if (old && cur != nsz[i] && cur != 1) {
                return false;
            }
        }
        sz = nsz;
        st = nst;
    } else if (base == "permute") {
        const auto perm = intList(graph::argumentOf(n, 1, "dims"));
        if (perm.size() != sz.size()) {
            return false;
        }
        std::vector<std::int64_t> nsz, nst;
        for (auto p : perm) {
            nsz.push_back(sz[std::size_t(wrapDim(p, sz.size()))]);
            nst.push_back(st[std::size_t(wrapDim(p, sz.size()))]);
        }
        sz = nsz;
        st = nst;
    } else if (base == "transpose" || base == "t") {
        const auto a = std::size_t(wrapDim(intArg(n, 1, "dim0", 0), sz.size()));
        const auto b = std::size_t(wrapDim(intArg(n, 2, "dim1", 1), sz.size()));
        if (sz.size() >= 2) {
            std::swap(sz[a], sz[b]);
            std::swap(st[a], st[b]);
        }
    } else if (base == "unsqueeze") {
        const auto d = std::size_t(wrapDim(intArg(n, 1, "dim", 0), sz.size() + 1));
        sz.insert(sz.begin() + std::ptrdiff_t(d), 1);
        st.insert(st.begin() + std::ptrdiff_t(d), 1);
    } else if (base == "squeeze") {
        std::vector<std::int64_t> dims = intList(graph::argumentOf(n, 1, "dim"));
        std::vector<std::int64_t> nsz, nst;
        for (std::size_t i = 0; i < sz.size(); ++i) {
            const bool listed = dims.empty() || std::any_of(dims.begin(), dims.end(), [&](auto d) {
                                    return std::size_t(wrapDim(d, sz.size())) == i;
                                });
            if (!(listed && sz[i] == 1)) {
                nsz.push_back(sz[i]);
                nst.push_back(st[i]);
            }
        }
        sz = nsz;
        st = nst;
    } else if (base == "slice") {
        const auto d = std::size_t(wrapDim(intArg(n, 1, "dim", 0), sz.size()));
        const std::int64_t size = sz[d];
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
        v.offset += start * st[d];
        sz[d] = (end - start + step - 1) / step;
        st[d] *= step;
    } else if (base == "select") {
        const auto d = std::size_t(wrapDim(intArg(n, 1, "dim", 0), sz.size()));
        std::int64_t idx = intArg(n, 2, "index", 0);
        idx = idx < 0 ? idx + sz[d] : idx;
        if (idx < 0 || idx >= sz[d]) {
            return false;
        }
        v.offset += idx * st[d];
        sz.erase(sz.begin() + std::ptrdiff_t(d));
        st.erase(st.begin() + std::ptrdiff_t(d));
    } else {
        return false;
    }
    return true;
}

std::vector<std::int64_t> nonOnes(const std::vector<std::int64_t>& s)
{
    std::vector<std::int64_t> out;
    std::copy_if(s.begin(), s.end(), std::back_inserter(out), [](auto d) { return d != 1; });
    return out;
}

// A view of a computed value that only inserts/drops size-1 dims: F dims carry over in order.
bool relabel(const Val& x, const std::vector<std::int64_t>& shape, Val& out)
{
    if (nonOnes(x.shape) != nonOnes(shape) ||
        std::any_of(x.fspan.begin(), x.fspan.end(), [](int s) { return s > 1; })) {
        return false;
    }
    std::vector<int> carried;
    for (std::size_t j = 0; j < x.shape.size(); ++j) {
        if (x.shape[j] != 1) {
            carried.push_back(x.fdim[j]);
        }
    }
    out = x;
    out.shape = shape;
    out.fdim.clear();
    std::size_t k = 0;
    for (auto s : shape) {
        out.fdim.push_back(s == 1 ? -1 : carried[k++]);
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
    } else if (!relabel(*x, meta->second, out) && !mergeDims(lw, *x, meta->second, out)) {
        return lw.unsupported(n, "a view of a computed value that moves elements");
    }
    lw.values[n.id] = std::move(out);
    return {};
}

} // namespace fxs::codegen::detail

namespace fxs::codegen {

std::vector<std::int64_t> contiguousStrides(const std::vector<std::int64_t>& sizes)
{
    std::vector<std::int64_t> st(sizes.size(), 1);
    for (std::size_t i = sizes.size(); i-- > 1;) {
        st[i - 1] = st[i] * std::max<std::int64_t>(sizes[i], 1);
    }
    return st;
}

} // namespace fxs::codegen
