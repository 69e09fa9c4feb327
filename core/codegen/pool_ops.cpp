// Max pooling (max_pool2d, and max_pool2d_with_indices when only its values are read) as index
// arithmetic: each output element is the largest of its kh x kw window, NaN propagating as in
// eager. A pool of a region input reads each window position through one guarded load whose
// padding reads as -inf. A pool of a computed value (the batch norm and relu before ResNet's
// stem pool) recomputes that value at each window position, as Inductor does: the kernel's index
// space becomes the pool's output, so the values computed before the pool are not available to
// later nodes nor as outputs of the kernel (the pool is refused there, the scheduler cuts).
// Stride, padding and kernel size of any value; dilation 1 and ceil_mode false only.
#include "core/codegen/lowerer.h"
#include "core/codegen/row_cache.h"
#include "core/graph/node_arguments.h"

#include <array>
#include <limits>

namespace fxs::codegen::detail {
namespace {

using Pair = std::array<std::int64_t, 2>;

// An int[2] argument: one int, or a list of one (both dims) or two; `fallback` when absent or
// an empty list (stride: the kernel size); nullopt otherwise.
std::optional<Pair> pairArg(const graph::Node& n, std::size_t pos, std::string_view key,
                            std::optional<Pair> fallback)
{
    const graph::Argument* a = graph::argumentOf(n, pos, key);
    if (!a || a->kind == graph::ArgKind::None) {
        return fallback;
    }
    if (a->kind == graph::ArgKind::Int) {
        return Pair{a->i, a->i};
    }
    if (!a->isSequence() || a->items.size() > 2) {
        return std::nullopt;
    }
    for (const auto& item : a->items) {
        if (item.kind != graph::ArgKind::Int) {
            return std::nullopt;
        }
    }
    if (a->items.empty()) {
        return fallback;
    }
    return Pair{a->items.front().i, a->items.back().i};
}

struct PoolArgs {
    Pair kernel{}, stride{}, padding{};
};

// kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False; why not, when refused.
Result<PoolArgs> poolArgs(const Lowerer& lw, const graph::Node& n)
{
    const auto kernel = pairArg(n, 1, "kernel_size", std::nullopt);
    const auto stride = kernel ? pairArg(n, 2, "stride", kernel) : std::nullopt;
    const auto padding = pairArg(n, 3, "padding", Pair{0, 0});
    const auto dilation = pairArg(n, 4, "dilation", Pair{1, 1});
    const graph::Argument* ceil = graph::argumentOf(n, 5, "ceil_mode");
    if (!kernel || !stride || !padding || !dilation) {
        return lw.unsupported(n, "a max pool whose kernel size, stride, padding or dilation is "
                                 "not one or two ints");
    }
    if ((*dilation)[0] != 1 || (*dilation)[1] != 1) {
        return lw.unsupported(n, "a max pool with dilation other than 1");
    }
    if (ceil && !(ceil->kind == graph::ArgKind::Bool && !ceil->b) &&
        !(ceil->kind == graph::ArgKind::Int && ceil->i == 0)) {
        return lw.unsupported(n, "a max pool with ceil_mode");
    }
    for (int d = 0; d < 2; ++d) {
        if ((*kernel)[d] < 1 || (*stride)[d] < 1 || (*padding)[d] < 0 ||
            2 * (*padding)[d] > (*kernel)[d]) {
            return lw.unsupported(n, "a max pool with a kernel size, stride or padding eager "
                                     "rejects");
        }
    }
    return PoolArgs{*kernel, *stride, *padding};
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return -floorDiv(-a, b); }

// One spatial dim of the window: old index = scale * new index + shift, for new indices in
// 0 <= i < newSize; the old index is valid in 0 <= old < oldSize.
struct Affine {
    int dim = 0;
    std::int64_t scale = 1;
    std::int64_t shift = 0;
    std::int64_t oldSize = 0;
    std::int64_t newSize = 0;
    // The new indices whose old index lies in [lo, hi).
    Guard range(std::int64_t lo, std::int64_t hi) const
    {
        const std::int64_t from = std::max<std::int64_t>(0, ceilDiv(lo - shift, scale));
        const std::int64_t to = std::min(newSize, floorDiv(hi - 1 - shift, scale) + 1);
        return Guard{dim, from, std::max(from, to)};
    }
    Guard window() const { return range(0, oldSize); }
    bool full(const Guard& g) const { return g.lo == 0 && g.hi == newSize; }
};

// A load moved to a window position: strides and offset along the spatial dims follow the map,
// its own guards too, and it is guarded to the window's valid range (where it moves along it).
Load movedLoad(Load l, const std::array<Affine, 2>& maps, double fill)
{
    if (l.access.guards.empty()) {
        l.access.fill = fill; // a guarded load keeps its own fill (a pool's padding: -inf)
    }
    for (const Affine& m : maps) {
        const std::int64_t stride = l.access.strides[std::size_t(m.dim)];
        if (stride == 0) {
            continue;
        }
        l.access.offset += m.shift * stride;
        l.access.strides[std::size_t(m.dim)] = stride * m.scale;
        for (Guard& g : l.access.guards) {
            if (g.dim == m.dim) {
                g = m.range(g.lo, g.hi);
            }
        }
        if (const Guard w = m.window(); !m.full(w)) {
            l.access.guards.push_back(w);
        }
    }
    return l;
}

// The expression `root` of the old index space evaluated at a window position of the new one.
Result<int> atWindow(Lowerer& lw, int root, const std::array<Affine, 2>& maps)
{
    const std::vector<bool> need = neededExprs(lw.kernel, {root}, {});
    std::vector<int> map(std::size_t(root) + 1, -1);
    for (int id = 0; id <= root; ++id) {
        if (!need[std::size_t(id)]) {
            continue;
        }
        const Expr e = lw.kernel.exprs[std::size_t(id)]; // a copy: adding expressions moves them
        int to = id;
        if (e.kind == ExprKind::RowRef) {
            return makeError(ErrorCode::Unsupported, "a max pool of a reduction's result",
                             lw.req.regionId);
        }
        if (e.kind == ExprKind::Load) {
            Expr load = e;
            load.index = lw.addLoad(movedLoad(lw.kernel.loads[std::size_t(e.index)], maps, 0));
            to = lw.addExpr(std::move(load));
        } else if (e.kind == ExprKind::Index) {
            for (const Affine& m : maps) {
                if (m.dim == e.index) {
                    const ComputeType i64 = ComputeType::Int64;
                    to = lw.op("add", i64,
                               {lw.op("mul", i64, {id, lw.constant(double(m.scale), i64)}),
                                lw.constant(double(m.shift), i64)});
                }
            }
        } else if (e.kind == ExprKind::Op) {
            std::vector<int> args;
            for (int a : e.args) {
                args.push_back(map[std::size_t(a)]);
            }
            if (args != e.args) {
                to = lw.op(e.op, e.type, std::move(args));
            }
        }
        map[std::size_t(id)] = to;
    }
    return map[std::size_t(root)];
}

// A region input read at one window position: -inf where the window lies in the padding.
int inputAtWindow(Lowerer& lw, const Val& x, const std::array<Affine, 2>& maps, ComputeType t)
{
    Load load;
    load.type = x.type;
    load.access.buffer = x.input;
    load.access.offset = x.offset;
    for (std::size_t j = 0; j < x.shape.size(); ++j) {
        load.access.strides.push_back(x.shape[j] == 1 ? 0 : x.strides[j]);
    }
    Expr e;
    e.kind = ExprKind::Load;
    e.type = computeTypeOf(x.type);
    e.index = lw.addLoad(movedLoad(load, maps, -std::numeric_limits<double>::infinity()));
    return lw.cast(lw.addExpr(std::move(e)), t);
}

// A computed value at one window position: where the window lies in the padding, -inf (its
// loads are guarded too, so nothing outside the input is read).
Result<int> computedAtWindow(Lowerer& lw, const Val& x, const std::array<Affine, 2>& maps,
                             ComputeType t)
{
    auto moved = atWindow(lw, lw.cast(x.expr, t), maps);
    if (!moved) {
        return moved;
    }
    int inside = -1;
    const ComputeType i64 = ComputeType::Int64;
    for (const Affine& m : maps) {
        const Guard w = m.window();
        std::vector<int> tests;
        if (w.lo > 0) {
            tests.push_back(lw.op("ge", ComputeType::Bool,
                                  {lw.index(m.dim), lw.constant(double(w.lo), i64)}));
        }
        if (w.hi < m.newSize) {
            tests.push_back(lw.op("lt", ComputeType::Bool,
                                  {lw.index(m.dim), lw.constant(double(w.hi), i64)}));
        }
        for (int test : tests) {
            inside = inside < 0 ? test : lw.op("logical_and", ComputeType::Bool, {inside, test});
        }
    }
    if (inside < 0) {
        return *moved;
    }
    return lw.op("where", t,
                 {inside, *moved, lw.constant(-std::numeric_limits<double>::infinity(), t)});
}

// The kernel iterates the pool's output from here on: the values computed in the old index
// space are dropped (a later node reading one is refused and starts a new kernel), which is
// refused when one of them leaves the kernel or a reduction already ran.
Status enterIndexSpace(Lowerer& lw, const graph::Node& n, const std::vector<std::int64_t>& out)
{
    if (lw.F == out) {
        return {};
    }
    if (lw.reducedDims >= 0) {
        return lw.unsupported(n, "a max pool after a reduction in the same kernel");
    }
    for (graph::NodeId o : lw.req.outputs) {
        const auto it = lw.values.find(o);
        if (it != lw.values.end() && (it->second.kind == Val::Kind::Computed ||
                                      it->second.kind == Val::Kind::Tuple)) {
            return lw.unsupported(n, "a max pool whose input's producers also leave the kernel "
                                     "(the pool iterates its own output)");
        }
    }
    std::erase_if(lw.values, [](const auto& kv) {
        return kv.second.kind == Val::Kind::Computed || kv.second.kind == Val::Kind::Tuple;
    });
    lw.F = out;
    lw.kernel.shape = out;
    return {};
}

// The pool's operand and output shape, checked.
Result<std::vector<std::int64_t>> poolShape(Lowerer& lw, const graph::Node& n, const Val& x,
                                            const PoolArgs& p)
{
    if (x.kind != Val::Kind::InputView && x.kind != Val::Kind::Computed) {
        return lw.unsupported(n, "a max pool of a value that is not a tensor the kernel reads");
    }
    if (x.shape.size() != 3 && x.shape.size() != 4) {
        return lw.unsupported(n, "a max pool of a value that is not 3-D or 4-D");
    }
    if (!isFloating(computeTypeOf(x.type))) {
        return lw.unsupported(n, "a max pool of integers (no -inf for its padding)");
    }
    if (x.kind == Val::Kind::Computed &&
        (x.shape != lw.F || lw.fdimOf(x) != *lw.alignToF(x.shape))) {
        return lw.unsupported(n, "a max pool of a computed value that does not span the "
                                 "kernel's index space");
    }
    std::vector<std::int64_t> out = x.shape;
    for (int d = 0; d < 2; ++d) {
        const std::size_t j = x.shape.size() - 2 + std::size_t(d);
        out[j] = (x.shape[j] + 2 * p.padding[d] - p.kernel[d]) / p.stride[d] + 1;
        if (x.shape[j] + 2 * p.padding[d] < p.kernel[d] || out[j] < 1) {
            return lw.unsupported(n, "a max pool whose window is larger than its input");
        }
    }
    for (graph::NodeId u : n.users) { // the printed values' meta, when there is one
        const graph::Node& item = lw.g.node(u);
        const graph::TensorMeta* m = item.getitemOf == n.id && item.getitemIndex == 0
                                         ? item.tensorMeta()
                                         : nullptr;
        if (m && !m->hasSymbolicSizes() && m->sizes.size() == out.size()) {
            for (std::size_t j = 0; j < out.size(); ++j) {
                if (m->sizes[j].value != out[j]) {
                    return lw.unsupported(n, "a max pool whose printed shape is not its window "
                                             "arithmetic's");
                }
            }
        }
    }
    return out;
}

} // namespace

bool isPoolOp(std::string_view base)
{
    return base == "max_pool2d" || base == "max_pool2d_with_indices";
}

Status lowerPool(Lowerer& lw, const graph::Node& n)
{
    auto x = lw.operand(n, 0);
    if (!x) {
        return x.error();
    }
    auto p = poolArgs(lw, n);
    if (!p) {
        return p.error();
    }
    auto out = poolShape(lw, n, *x, *p);
    if (!out) {
        return out.error();
    }
    if (Status s = enterIndexSpace(lw, n, *out); !s) {
        return s;
    }
    const ComputeType t = computeTypeOf(x->type);
    const int h = int(out->size()) - 2;
    int best = -1;
    for (std::int64_t a = 0; a < p->kernel[0]; ++a) {
        for (std::int64_t b = 0; b < p->kernel[1]; ++b) {
            const std::array<Affine, 2> maps{
                Affine{h, p->stride[0], a - p->padding[0], x->shape[std::size_t(h)],
                       (*out)[std::size_t(h)]},
                Affine{h + 1, p->stride[1], b - p->padding[1], x->shape[std::size_t(h) + 1],
                       (*out)[std::size_t(h) + 1]}};
            auto e = x->kind == Val::Kind::InputView ? Result<int>(inputAtWindow(lw, *x, maps, t))
                                                     : computedAtWindow(lw, *x, maps, t);
            if (!e) {
                return lw.unsupported(n, e.error().message);
            }
            // maximum propagates a NaN from either side, as eager's pool does.
            best = best < 0 ? *e : lw.op("maximum", t, {*e, best});
        }
    }
    Val v;
    v.kind = Val::Kind::Computed;
    v.type = x->type;
    v.shape = *out;
    v.expr = best;
    v.fdim = *lw.alignToF(*out);
    if (graph::opBaseName(n.target) == "max_pool2d") {
        lw.values[n.id] = std::move(v);
        return {};
    }
    Val t2;
    t2.kind = Val::Kind::Tuple;
    t2.items = {std::move(v)}; // the indices: not produced (a getitem of them is refused)
    lw.values[n.id] = std::move(t2);
    return {};
}

} // namespace fxs::codegen::detail
