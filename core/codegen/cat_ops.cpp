// Index arithmetic beyond views: cat as a select chain over its inputs moved to their ranges
// along its dim (each input's expression shifted, its loads guarded to the range, so nothing is
// read outside it), select_backward and slice_backward as the gradient placed at its index or
// range along the dim (shifted likewise) and 0 elsewhere, and the constructors (scalar_tensor,
// full, zeros/ones and their new_/_like forms, arange) as values of a virtual buffer that views
// apply to and that become constants or index expressions in the kernels that read them. Also
// the pass that drops what no store or reduction needs (the unshifted forms the shifting leaves
// behind).
#include "core/codegen/lowerer.h"
#include "core/codegen/row_cache.h"
#include "core/graph/node_arguments.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace fxs::codegen::detail {
namespace {

const std::set<std::string_view> kConstructors = {
    "scalar_tensor", "full", "new_full", "full_like", "zeros", "new_zeros", "zeros_like",
    "ones", "new_ones", "ones_like", "arange"};

std::optional<double> numberOf(const graph::Argument* a)
{
    if (!a) {
        return std::nullopt;
    }
    switch (a->kind) {
    case graph::ArgKind::Int: return double(a->i);
    case graph::ArgKind::Float: return a->f;
    case graph::ArgKind::Bool: return a->b ? 1.0 : 0.0;
    default: return std::nullopt;
    }
}

// The fill value of a constant constructor as written (before conversion to its dtype).
std::optional<double> fillValue(const graph::Node& n, std::string_view base)
{
    if (base == "scalar_tensor") {
        return numberOf(graph::argumentOf(n, 0, "s"));
    }
    if (base == "full" || base == "full_like") {
        return numberOf(graph::argumentOf(n, 1, "fill_value"));
    }
    if (base == "new_full") {
        return numberOf(graph::argumentOf(n, 2, "fill_value"));
    }
    return base.find("zeros") != std::string_view::npos ? 0.0 : 1.0;
}

// The value a tensor of type t holds for v (integers truncate like a cast); nullopt when it has
// none (a non-finite or out-of-range integer).
std::optional<double> valueAs(double v, ScalarType t)
{
    if (t == ScalarType::Bool) {
        return v != 0 ? 1.0 : 0.0;
    }
    if (t == ScalarType::Int64) {
        constexpr double kLimit = 9.2e18;
        if (!std::isfinite(v) || std::fabs(v) > kLimit) {
            return std::nullopt;
        }
        return std::trunc(v);
    }
    return v;
}

// A floating value computed in `from` stored as t: f16/bf16 round it (their compute type is
// float), float32 and float64 are their compute types.
int roundTo(Lowerer& lw, int expr, ComputeType from, ScalarType t)
{
    if (t == ScalarType::Float16 || t == ScalarType::BFloat16) {
        const int f = lw.cast(expr, ComputeType::Float);
        return lw.op(t == ScalarType::Float16 ? "round_f16" : "round_bf16", ComputeType::Float,
                     {f});
    }
    return from == computeTypeOf(t) ? expr : lw.cast(expr, computeTypeOf(t));
}

Status lowerArange(Lowerer& lw, const graph::Node& n, Val& v)
{
    const std::string_view overload = graph::opOverload(n.target);
    std::optional<double> start = 0.0;
    std::optional<double> step = 1.0;
    std::optional<double> end;
    if (overload == "start" || overload == "start_step" || overload == "start_out") {
        start = numberOf(graph::argumentOf(n, 0, "start"));
        end = numberOf(graph::argumentOf(n, 1, "end"));
        if (overload == "start_step") {
            step = numberOf(graph::argumentOf(n, 2, "step"));
        }
    } else {
        end = numberOf(graph::argumentOf(n, 0, "end"));
    }
    if (!start || !end || !step || *step == 0 || !std::isfinite(*start) || !std::isfinite(*end) ||
        !std::isfinite(*step)) {
        return lw.unsupported(n, "arange with arguments that are not finite numbers");
    }
    const double count = std::ceil((*end - *start) / *step);
    if (v.shape.size() != 1 || count != double(v.shape[0])) {
        return lw.unsupported(n, "arange whose printed shape is not its length");
    }
    if (!isFloating(computeTypeOf(v.type)) &&
        (std::trunc(*start) != *start || std::trunc(*step) != *step)) {
        return lw.unsupported(n, "an integer arange with a fractional start or step");
    }
    v.strides = {1};
    v.start = *start;
    v.step = *step;
    return {};
}

} // namespace

bool isCatOp(std::string_view base)
{
    return base == "cat" || base == "select_backward" || base == "slice_backward";
}

bool isConstructorOp(std::string_view base) { return kConstructors.count(base) != 0; }

bool Lowerer::partial(const Val& v) const
{
    if (v.kind == Val::Kind::Scalar || v.kind == Val::Kind::Tuple) {
        return false;
    }
    const std::vector<int> fd = fdimOf(v);
    for (std::size_t j = 0; j < fd.size() && j < v.shape.size(); ++j) {
        if (fd[j] >= 0 && v.shape[j] < F[std::size_t(fd[j])]) {
            return true;
        }
    }
    return false;
}

// The expressions `root` needs rewritten along F dim `dim`: an Index along it and each load by
// the callbacks (a load returns its replacement expression, or its own id to stay), operations
// over rewritten operands made again. A reduction's result moves along dim only when dim is one
// its reduction runs along (a row kernel's inner dims): else unsupported (`what` says why).
Result<int> Lowerer::rewrittenAlong(int root, int dim, const std::function<int(int)>& onIndex,
                                    const std::function<int(int, const Load&)>& onLoad,
                                    const std::string& what)
{
    const std::vector<bool> need = neededExprs(kernel, {root}, {});
    const bool innerDim = reducedDims >= 0 && dim >= int(F.size()) - reducedDims;
    std::vector<int> map(std::size_t(root) + 1, -1);
    for (int id = 0; id <= root; ++id) {
        if (!need[std::size_t(id)]) {
            continue;
        }
        const Expr e = kernel.exprs[std::size_t(id)]; // a copy: adding expressions moves them
        int to = id;
        if (e.kind == ExprKind::RowRef && !innerDim) {
            return makeError(ErrorCode::Unsupported, what, req.regionId);
        }
        if (e.kind == ExprKind::Index && e.index == dim) {
            to = onIndex(id);
        } else if (e.kind == ExprKind::Load) {
            to = onLoad(id, kernel.loads[std::size_t(e.index)]);
        } else if (e.kind == ExprKind::Op) {
            std::vector<int> args;
            for (int a : e.args) {
                args.push_back(map[std::size_t(a)]);
            }
            if (args != e.args) {
                to = op(e.op, e.type, std::move(args));
            }
        }
        map[std::size_t(id)] = to;
    }
    return map[std::size_t(root)];
}

Result<int> Lowerer::shifted(int root, int dim, std::int64_t off, std::int64_t size)
{
    auto onIndex = [&](int id) {
        return op("sub", ComputeType::Int64, {id, constant(double(off), ComputeType::Int64)});
    };
    auto onLoad = [&](int id, Load l) {
        const std::int64_t stride = l.access.strides[std::size_t(dim)];
        if (stride == 0) {
            return id;
        }
        l.access.offset -= off * stride;
        for (Guard& g : l.access.guards) {
            if (g.dim == dim) {
                g.lo += off;
                g.hi += off;
            }
        }
        l.access.guards.push_back(Guard{dim, off, off + size});
        Expr load = kernel.exprs[std::size_t(id)];
        load.index = addLoad(l);
        return addExpr(std::move(load));
    };
    return rewrittenAlong(root, dim, onIndex, onLoad,
                          "a cat along a dim a reduction's result does not run along");
}

Result<int> Lowerer::pinned(int root, int dim, std::int64_t at)
{
    auto onIndex = [&](int) { return constant(double(at), ComputeType::Int64); };
    auto onLoad = [&](int id, Load l) {
        const Expr e = kernel.exprs[std::size_t(id)]; // a copy: adding expressions moves them
        const std::int64_t stride = l.access.strides[std::size_t(dim)];
        const bool guarded = std::any_of(l.access.guards.begin(), l.access.guards.end(),
                                         [&](const Guard& g) { return g.dim == dim; });
        if (stride == 0 && !guarded) {
            return id;
        }
        // A guard on dim is decided here: the fill where index `at` is outside it.
        for (const Guard& g : l.access.guards) {
            if (g.dim == dim && (at < g.lo || at >= g.hi)) {
                return constant(l.access.fill, e.type);
            }
        }
        std::erase_if(l.access.guards, [&](const Guard& g) { return g.dim == dim; });
        l.access.offset += at * stride;
        l.access.strides[std::size_t(dim)] = 0;
        Expr load = e;
        load.index = addLoad(l);
        return addExpr(std::move(load));
    };
    return rewrittenAlong(root, dim, onIndex, onLoad,
                          "reads a reduction's result at another index of a dim it does not "
                          "reduce");
}

Result<int> synthExpr(Lowerer& lw, const Val& v, ComputeType t)
{
    const ComputeType own = computeTypeOf(v.type);
    if (v.step == 0) {
        return lw.cast(roundTo(lw, lw.constant(v.start, own), own, v.type), t);
    }
    const int n = static_cast<int>(lw.F.size());
    const int m = static_cast<int>(v.shape.size());
    int element = lw.constant(double(v.offset), ComputeType::Int64);
    for (int j = 0; j < m; ++j) {
        const int d = n - m + j;
        if (v.shape[std::size_t(j)] == 1) {
            continue;
        }
        if (d < 0 || v.shape[std::size_t(j)] > lw.F[std::size_t(d)]) {
            return makeError(ErrorCode::Unsupported,
                             "an arange does not broadcast into the kernel's shape",
                             lw.req.regionId);
        }
        if (v.strides[std::size_t(j)] != 0) {
            const int term = lw.op("mul", ComputeType::Int64,
                                   {lw.index(d), lw.constant(double(v.strides[std::size_t(j)]),
                                                             ComputeType::Int64)});
            element = lw.op("add", ComputeType::Int64, {element, term});
        }
    }
    if (!isFloating(own)) {
        const ComputeType i = ComputeType::Int64;
        const int value = lw.op("add", i, {lw.constant(v.start, i),
                                           lw.op("mul", i, {lw.constant(v.step, i), element})});
        return lw.cast(lw.cast(value, own), t);
    }
    // PyTorch computes start + step * i in double for float tensors, then rounds.
    const ComputeType dbl = ComputeType::Double;
    const int value = lw.op("add", dbl, {lw.constant(v.start, dbl),
                                         lw.op("mul", dbl, {lw.constant(v.step, dbl),
                                                            lw.cast(element, dbl)})});
    return lw.cast(roundTo(lw, value, dbl, v.type), t);
}

Status lowerConstructor(Lowerer& lw, const graph::Node& n)
{
    auto meta = lw.outMeta(n);
    if (!meta) {
        return meta.error();
    }
    Val v;
    v.kind = Val::Kind::Synth;
    v.type = meta->first;
    v.shape = meta->second;
    v.strides.assign(v.shape.size(), 0);
    const std::string_view base = graph::opBaseName(n.target);
    if (base == "arange") {
        if (Status s = lowerArange(lw, n, v); !s) {
            return s;
        }
    } else {
        const std::optional<double> written = fillValue(n, base);
        const std::optional<double> value = written ? valueAs(*written, v.type) : std::nullopt;
        if (!value) {
            return lw.unsupported(n, written ? "a fill value its integer dtype cannot hold"
                                             : "a fill value that is not a number");
        }
        v.start = *value;
    }
    lw.values[n.id] = std::move(v);
    return {};
}

namespace {

struct Piece {
    Val value;
    std::int64_t offset = 0; // first index along the cat dim
    std::int64_t size = 0;
};

// The inputs of a cat with something along its dim, checked against its output (rank, sizes
// outside the dim, dtype, and the F dims they run along: outFd).
Result<std::vector<Piece>> catPieces(Lowerer& lw, const graph::Node& n,
                                     const std::vector<std::int64_t>& out, ScalarType type,
                                     std::size_t d, const std::vector<int>& outFd)
{
    const graph::Argument* list = graph::argumentOf(n, 0, "tensors");
    if (!list || !list->isSequence()) {
        return lw.unsupported(n, "cat without a list of tensors");
    }
    std::vector<Piece> pieces;
    std::int64_t offset = 0;
    for (const auto& item : list->items) {
        auto it = item.isNode() ? lw.values.find(item.node) : lw.values.end();
        if (it == lw.values.end() || it->second.kind == Val::Kind::Scalar ||
            it->second.kind == Val::Kind::Tuple) {
            return lw.unsupported(n, "a cat input that is not a lowered tensor");
        }
        const Val& v = it->second;
        if (v.shape.size() == 1 && v.shape[0] == 0 && out.size() != 1) {
            continue; // PyTorch skips 1-D empty inputs whatever the other inputs' rank
        }
        if (v.type != type) {
            return lw.unsupported(n, "a cat of inputs of different dtypes");
        }
        if (v.shape.size() != out.size()) {
            return lw.unsupported(n, "a cat of inputs of different ranks");
        }
        const std::vector<int> fd = lw.fdimOf(v);
        for (std::size_t j = 0; j < out.size(); ++j) {
            if (j != d && v.shape[j] != out[j]) {
                return lw.unsupported(n, "a cat of inputs whose sizes differ outside its dim");
            }
            if (v.shape[j] != 1 && fd[j] != outFd[j]) {
                return lw.unsupported(n, "a cat input runs along other dims of the kernel");
            }
        }
        if (v.shape[d] > 0) {
            pieces.push_back({v, offset, v.shape[d]});
            offset += v.shape[d];
        }
    }
    if (offset != out[d]) {
        return lw.unsupported(n, "the cat's inputs do not add up to its printed size");
    }
    return pieces;
}

// A number argument (by position, else keyword); nullopt when absent or not an int.
std::optional<std::int64_t> intArg(const graph::Node& n, std::size_t pos, std::string_view key)
{
    const graph::Argument* a = graph::argumentOf(n, pos, key);
    if (!a || a->kind != graph::ArgKind::Int) {
        return std::nullopt;
    }
    return a->i;
}

// The gradient of a select (dim d, one index) seen with d inserted as a size-1 dim, which
// broadcasts along d.
std::optional<Val> withDimInserted(Val v, std::size_t d)
{
    if (v.kind == Val::Kind::Scalar || v.kind == Val::Kind::Tuple || d > v.shape.size()) {
        return std::nullopt;
    }
    v.shape.insert(v.shape.begin() + std::ptrdiff_t(d), 1);
    if (v.kind == Val::Kind::Computed) {
        v.fdim.insert(v.fdim.begin() + std::ptrdiff_t(d), -1);
    } else {
        v.strides.insert(v.strides.begin() + std::ptrdiff_t(d), 0);
    }
    return v;
}

// select_backward(grad, input_sizes, dim, index) and slice_backward(grad, input_sizes, dim,
// start, end, step=1): the output (of input_sizes, the node's meta) holds grad at the index or
// range along dim and 0 elsewhere — where(in range, grad moved there, 0).
Status lowerPlaced(Lowerer& lw, const graph::Node& n, bool select)
{
    auto meta = lw.outMeta(n);
    if (!meta) {
        return meta.error();
    }
    const std::vector<std::int64_t>& out = meta->second;
    const auto rank = std::int64_t(out.size());
    const auto dim = intArg(n, 2, "dim");
    auto grad = lw.operand(n, 0);
    if (!grad) {
        return grad.error();
    }
    if (!dim || rank == 0 || *dim < -rank || *dim >= rank || grad->type != meta->first) {
        return lw.unsupported(n, "a gradient placement with an unusual dim or dtype");
    }
    const auto d = std::size_t(*dim < 0 ? *dim + rank : *dim);
    std::int64_t lo = 0, size = 1;
    Val placed = *grad;
    if (select) {
        const auto index = intArg(n, 3, "index");
        auto v = withDimInserted(*grad, d);
        if (!index || !v) {
            return lw.unsupported(n, "select_backward without an int index");
        }
        lo = *index < 0 ? *index + out[d] : *index;
        placed = *v;
    } else {
        const auto start = intArg(n, 3, "start");
        const auto end = intArg(n, 4, "end");
        const auto step = intArg(n, 5, "step").value_or(1);
        if (!start || !end || step != 1 || grad->shape.size() != out.size()) {
            return lw.unsupported(n, "slice_backward other than of a step-1 slice");
        }
        lo = std::clamp<std::int64_t>(*start < 0 ? *start + out[d] : *start, 0, out[d]);
        const std::int64_t hi =
            std::clamp<std::int64_t>(*end < 0 ? *end + out[d] : *end, lo, out[d]);
        size = hi - lo;
        if (size != grad->shape[d]) {
            return lw.unsupported(n, "a slice_backward whose gradient is not its range");
        }
    }
    const auto outFd = lw.alignToF(out);
    if (!outFd || lo < 0 || lo + size > out[d]) {
        return lw.unsupported(n, "its shape does not fit the kernel's index space");
    }
    const std::vector<int> fd = lw.fdimOf(placed);
    for (std::size_t j = 0; j < out.size() && j < placed.shape.size(); ++j) {
        if (j != d && placed.shape[j] != 1 &&
            (placed.shape[j] != out[j] || fd[j] != (*outFd)[j])) {
            return lw.unsupported(n, "its gradient runs along other dims of the kernel");
        }
    }
    const ComputeType t = computeTypeOf(meta->first);
    auto e = lw.exprOf(placed, t);
    if (!e) {
        return e.error();
    }
    const int D = (*outFd)[d];
    int r = *e;
    if (D >= 0 && (select || size < out[d])) {
        if (!select) {
            auto moved = lw.shifted(*e, D, lo, size);
            if (!moved) {
                return lw.unsupported(n, moved.error().message);
            }
            r = *moved;
        }
        const ComputeType i64 = ComputeType::Int64;
        const int from =
            lw.op("ge", ComputeType::Bool, {lw.index(D), lw.constant(double(lo), i64)});
        const int below =
            lw.op("lt", ComputeType::Bool, {lw.index(D), lw.constant(double(lo + size), i64)});
        const int inside = lw.op("logical_and", ComputeType::Bool, {from, below});
        r = lw.op("where", t, {inside, r, lw.constant(0, t)});
    }
    auto v = lw.computed(n, r);
    if (!v) {
        return v.error();
    }
    lw.values[n.id] = *v;
    return {};
}

} // namespace

Status lowerCat(Lowerer& lw, const graph::Node& n)
{
    const std::string_view base = graph::opBaseName(n.target);
    if (base != "cat") {
        return lowerPlaced(lw, n, base == "select_backward");
    }
    auto meta = lw.outMeta(n);
    if (!meta) {
        return meta.error();
    }
    const std::vector<std::int64_t>& out = meta->second;
    const auto rank = std::int64_t(out.size());
    const graph::Argument* dimArg = graph::argumentOf(n, 1, "dim");
    const std::int64_t dim = dimArg && dimArg->kind == graph::ArgKind::Int ? dimArg->i : 0;
    if (rank == 0 || dim < -rank || dim >= rank) {
        return lw.unsupported(n, "a cat dim out of range");
    }
    const auto d = std::size_t(dim < 0 ? dim + rank : dim);
    const auto outFd = lw.alignToF(out);
    if (!outFd) {
        return lw.unsupported(n, "its shape does not fit the kernel's index space");
    }
    auto pieces = catPieces(lw, n, out, meta->first, d, *outFd);
    if (!pieces) {
        return pieces.error();
    }
    const ComputeType t = computeTypeOf(meta->first);
    int r = -1;
    if (pieces->empty()) {
        r = lw.constant(0, t); // nothing to hold: the output has no element
    } else if (pieces->size() == 1) {
        auto e = lw.exprOf(pieces->front().value, t);
        if (!e) {
            return e.error();
        }
        r = *e;
    } else {
        const int D = (*outFd)[d];
        std::vector<int> e;
        for (const Piece& p : *pieces) {
            auto x = lw.exprOf(p.value, t);
            auto s = x ? lw.shifted(*x, D, p.offset, p.size) : Result<int>(x.error());
            if (!s) {
                return lw.unsupported(n, s.error().message);
            }
            e.push_back(*s);
        }
        r = e.back();
        for (std::size_t i = e.size() - 1; i-- > 0;) {
            const int bound = lw.constant(double((*pieces)[i + 1].offset), ComputeType::Int64);
            const int before = lw.op("lt", ComputeType::Bool, {lw.index(D), bound});
            r = lw.op("where", t, {before, e[i], r});
        }
    }
    auto v = lw.computed(n, r);
    if (!v) {
        return v.error();
    }
    lw.values[n.id] = *v;
    return {};
}

void pruneDeadCode(Kernel& k)
{
    std::vector<int> roots;
    for (const auto& st : k.stores) {
        roots.push_back(st.expr);
    }
    for (const auto& r : k.reductions) {
        roots.push_back(r.operand);
    }
    const std::vector<bool> need = neededExprs(k, roots, {});
    std::vector<int> exprMap(k.exprs.size(), -1);
    std::vector<int> loadMap(k.loads.size(), -1);
    std::vector<Expr> exprs;
    std::vector<Load> loads;
    for (std::size_t id = 0; id < k.exprs.size(); ++id) {
        if (!need[id]) {
            continue;
        }
        Expr e = k.exprs[id];
        for (int& a : e.args) {
            a = exprMap[std::size_t(a)];
        }
        if (e.kind == ExprKind::Load) {
            int& to = loadMap[std::size_t(e.index)];
            if (to < 0) {
                to = int(loads.size());
                loads.push_back(k.loads[std::size_t(e.index)]);
            }
            e.index = to;
        }
        exprMap[id] = int(exprs.size());
        exprs.push_back(std::move(e));
    }
    for (auto& st : k.stores) {
        st.expr = exprMap[std::size_t(st.expr)];
    }
    for (auto& r : k.reductions) {
        r.operand = exprMap[std::size_t(r.operand)];
    }
    k.exprs = std::move(exprs);
    k.loads = std::move(loads);
}

} // namespace fxs::codegen::detail
