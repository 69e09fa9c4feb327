// Op handlers of the lowering: pointwise ops (with broadcasting and type promotion) and
// reductions with their composites (softmax, log_softmax, layer_norm, var/std, backward forms).
#include "core/codegen/lowerer.h"
#include "core/graph/node_arguments.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace fxs::codegen::detail {
namespace {

// Unary ops computed in the result's type; the primitive names are cpp_printer's.
const std::set<std::string_view> kUnary = {
    "neg", "abs", "relu", "sigmoid", "tanh", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
    "atanh", "erf", "erfc", "sqrt", "rsqrt", "reciprocal", "sign", "floor", "ceil", "round",
    "trunc", "silu", "square", "bitwise_not", "logical_not", "isnan", "isinf", "isfinite",
    "gelu", "clone", "alias", "detach", "_to_copy", "to", "convert_element_type",
    "lift_fresh_copy", "contiguous", "type_as", "positive"};
const std::set<std::string_view> kBinary = {"add", "sub", "rsub", "mul", "div", "maximum",
                                            "minimum", "pow", "atan2", "fmax", "fmin"};
const std::set<std::string_view> kCompare = {"eq", "ne", "lt", "le", "gt", "ge"};
const std::set<std::string_view> kLogical = {"logical_and", "logical_or", "logical_xor",
                                             "bitwise_and", "bitwise_or", "bitwise_xor"};
const std::set<std::string_view> kOther = {"where", "masked_fill", "clamp", "clamp_min",
                                           "clamp_max", "hardtanh", "leaky_relu",
                                           "threshold_backward", "sigmoid_backward",
                                           "tanh_backward", "gelu_backward",
                                           "silu_backward"};
const std::set<std::string_view> kReductions = {
    "sum", "mean", "amax", "amin", "var", "std", "_softmax", "softmax", "_log_softmax",
    "log_softmax", "native_layer_norm", "layer_norm", "_softmax_backward_data",
    "_log_softmax_backward_data", "native_layer_norm_backward"};

ComputeType valType(const Val& v)
{
    if (v.kind == Val::Kind::Scalar) {
        return v.integral ? ComputeType::Int64 : ComputeType::Float;
    }
    return computeTypeOf(v.type);
}

int category(ComputeType t)
{
    return t == ComputeType::Bool ? 0 : t == ComputeType::Int64 ? 1 : 2;
}

// PyTorch's tiers: dimensioned tensors decide; zero-dim tensors, then Python scalars, only lift
// the category (int tensor + 0.5 -> float; float tensor < double zero-dim tensor: float).
ComputeType promote(const std::vector<Val>& vals)
{
    auto tierOf = [](const Val& v) {
        return v.kind == Val::Kind::Scalar ? 2 : v.shape.empty() ? 1 : 0;
    };
    ComputeType t = ComputeType::Bool;
    bool decided = false;
    for (int tier = 0; tier < 3; ++tier) {
        bool any = false;
        ComputeType best = ComputeType::Bool;
        for (const auto& v : vals) {
            if (tierOf(v) == tier) {
                best = std::max(best, valType(v));
                any = true;
            }
        }
        if (any && (!decided || category(best) > category(t))) {
            t = best;
            decided = true;
        }
    }
    return t;
}

const graph::Argument* kwarg(const graph::Node& n, std::string_view key)
{
    return n.kwarg(key);
}

double numberOr(const graph::Argument* a, double fallback)
{
    if (!a) {
        return fallback;
    }
    switch (a->kind) {
    case graph::ArgKind::Int: return double(a->i);
    case graph::ArgKind::Float: return a->f;
    case graph::ArgKind::Bool: return a->b ? 1 : 0;
    default: return fallback;
    }
}

// Result of an elementwise node: registers the value after checking operand alignment.
Status finish(Lowerer& lw, const graph::Node& n, const std::vector<Val>& operands, int expr)
{
    auto v = lw.computed(n, expr, operands);
    if (!v) {
        return v.error();
    }
    for (const auto& o : operands) {
        if (!lw.consistent(o, v->fdim, v->shape)) {
            return lw.unsupported(n, "an operand broadcasts along other dims than the kernel's");
        }
    }
    lw.values[n.id] = *v;
    return {};
}

// Gathers operands 0..count-1 (tensors or numbers).
Result<std::vector<Val>> operands(Lowerer& lw, const graph::Node& n, std::size_t count)
{
    std::vector<Val> out;
    for (std::size_t i = 0; i < count; ++i) {
        auto v = lw.operand(n, i);
        if (!v) {
            return v.error();
        }
        out.push_back(*v);
    }
    return out;
}

Result<std::vector<int>> exprsOf(Lowerer& lw, const std::vector<Val>& vals, ComputeType t)
{
    std::vector<int> out;
    for (const auto& v : vals) {
        auto e = lw.exprOf(v, t);
        if (!e) {
            return e.error();
        }
        out.push_back(*e);
    }
    return out;
}

// pow with a constant exponent becomes multiplications or sqrt (as eager does for 2, 0.5, ...).
int lowerPow(Lowerer& lw, const Val& exponent, int base, int expo, ComputeType t)
{
    if (exponent.kind == Val::Kind::Scalar) {
        const double p = exponent.number;
        if (p == 1) {
            return base;
        }
        if (p == 2) {
            return lw.op("mul", t, {base, base});
        }
        if (p == 3) {
            return lw.op("mul", t, {lw.op("mul", t, {base, base}), base});
        }
        if (p == 0.5 && isFloating(t)) {
            return lw.op("sqrt", t, {base});
        }
        if (p == -1 && isFloating(t)) {
            return lw.op("reciprocal", t, {base});
        }
    }
    return lw.op("pow", t, {base, expo});
}

Status lowerBinary(Lowerer& lw, const graph::Node& n, std::string_view base, ComputeType t)
{
    auto ops = operands(lw, n, 2);
    if (!ops) {
        return ops.error();
    }
    const ComputeType ct = (base == "div" || base == "atan2") ? floatingFor(t) : t;
    auto e = exprsOf(lw, *ops, ct);
    if (!e) {
        return e.error();
    }
    int a = (*e)[0];
    int b = (*e)[1];
    if (base == "div" && kwarg(n, "rounding_mode") &&
        kwarg(n, "rounding_mode")->kind != graph::ArgKind::None) {
        return lw.unsupported(n, "div with a rounding mode");
    }
    const double alpha = numberOr(kwarg(n, "alpha"), 1.0);
    if (alpha != 1.0 && (base == "add" || base == "sub" || base == "rsub")) {
        const int al = lw.constant(alpha, ct);
        (base == "rsub" ? a : b) = lw.op("mul", ct, {base == "rsub" ? a : b, al});
    }
    int r;
    if (base == "rsub") {
        r = lw.op("sub", ct, {b, a});
    } else if (base == "pow") {
        r = lowerPow(lw, (*ops)[1], a, b, ct);
    } else {
        r = lw.op(std::string(base), ct, {a, b});
    }
    return finish(lw, n, *ops, lw.cast(r, t));
}

Status lowerCompareOrLogical(Lowerer& lw, const graph::Node& n, std::string_view base,
                             ComputeType t)
{
    auto ops = operands(lw, n, 2);
    if (!ops) {
        return ops.error();
    }
    const bool logical = base.rfind("logical_", 0) == 0;
    const ComputeType ct = logical ? ComputeType::Bool : promote(*ops);
    auto e = exprsOf(lw, *ops, ct);
    if (!e) {
        return e.error();
    }
    const int r = lw.op(std::string(base), kCompare.count(base) || logical ? ComputeType::Bool : ct,
                        {(*e)[0], (*e)[1]});
    return finish(lw, n, *ops, lw.cast(r, t));
}

Status lowerUnary(Lowerer& lw, const graph::Node& n, std::string_view base, ComputeType t)
{
    auto ops = operands(lw, n, 1);
    auto meta = lw.outMeta(n);
    if (!ops || !meta) {
        return !ops ? ops.error() : meta.error();
    }
    const bool predicate = base == "isnan" || base == "isinf" || base == "isfinite";
    const ComputeType in = predicate ? promote(*ops) : base == "logical_not" ? ComputeType::Bool : t;
    auto e = exprsOf(lw, *ops, in);
    if (!e) {
        return e.error();
    }
    int x = (*e)[0];
    static const std::set<std::string_view> kIdentity = {
        "clone", "alias", "detach", "_to_copy", "to", "convert_element_type", "lift_fresh_copy",
        "contiguous", "type_as", "positive"};
    int r = x;
    if (base == "gelu") {
        const auto* approx = kwarg(n, "approximate");
        r = lw.op(approx && approx->text == "tanh" ? "gelu_tanh" : "gelu", in, {x});
    } else if (base == "square") {
        r = lw.op("mul", in, {x, x});
    } else if (kIdentity.count(base) != 0) {
        // A copy to another type sees the value as eager stored it: rounded to f16/bf16.
        const Val& src = (*ops)[0];
        if (src.kind != Val::Kind::Scalar && isFloating(t) && meta->first != src.type &&
            (src.type == ScalarType::Float16 || src.type == ScalarType::BFloat16)) {
            const ComputeType f = ComputeType::Float; // rounding works on the float value
            r = lw.cast(lw.op(src.type == ScalarType::Float16 ? "round_f16" : "round_bf16", f,
                              {lw.cast(x, f)}),
                        t);
        }
    } else {
        r = lw.op(std::string(base), predicate || base == "logical_not" ? ComputeType::Bool : in,
                  {x});
    }
    return finish(lw, n, *ops, lw.cast(r, t));
}

// clamp(x, min=None, max=None) and friends; bounds may be numbers or tensors.
Status lowerClamp(Lowerer& lw, const graph::Node& n, std::string_view base, ComputeType t)
{
    auto x = lw.operand(n, 0);
    if (!x) {
        return x.error();
    }
    std::vector<Val> used{*x};
    auto xe = lw.exprOf(*x, t);
    if (!xe) {
        return xe.error();
    }
    int r = *xe;
    auto bound = [&](std::size_t idx, std::string_view key, const char* prim) -> Status {
        const graph::Argument* a = graph::argumentOf(n, idx, key);
        if (!a || a->kind == graph::ArgKind::None) {
            return {};
        }
        auto v = lw.kwargOrArg(n, key, idx);
        if (!v) {
            return v.error();
        }
        used.push_back(*v);
        auto be = lw.exprOf(*v, t);
        if (!be) {
            return be.error();
        }
        r = lw.op(prim, t, {r, *be});
        return {};
    };
    if (base == "hardtanh") {
        r = lw.op("clamp_lo", t, {r, lw.constant(numberOr(graph::argumentOf(n, 1, "min_val"), -1), t)});
        r = lw.op("clamp_hi", t, {r, lw.constant(numberOr(graph::argumentOf(n, 2, "max_val"), 1), t)});
        return finish(lw, n, used, r);
    }
    Status s = base == "clamp_max" ? bound(1, "max", "clamp_hi") : bound(1, "min", "clamp_lo");
    if (s && base == "clamp") {
        s = bound(2, "max", "clamp_hi");
    }
    if (!s) {
        return s;
    }
    return finish(lw, n, used, r);
}

// where, masked_fill, leaky_relu and the pointwise backward ops.
Status lowerOther(Lowerer& lw, const graph::Node& n, std::string_view base, ComputeType t)
{
    if (base == "clamp" || base == "clamp_min" || base == "clamp_max" || base == "hardtanh") {
        return lowerClamp(lw, n, base, t);
    }
    if (base == "gelu_backward") {
        const auto* approx = kwarg(n, "approximate");
        if (approx && approx->text != "none" && approx->text != "'none'") {
            return lw.unsupported(n, "gelu_backward with approximate=" + approx->text);
        }
    }
    const std::size_t arity = base == "where" || base == "masked_fill" || base == "threshold_backward"
                                  ? 3
                              : base == "leaky_relu" ? (n.args.size() > 1 ? 2 : 1)
                                                     : 2;
    auto ops = operands(lw, n, arity);
    if (!ops) {
        return ops.error();
    }
    std::vector<int> e;
    for (std::size_t i = 0; i < ops->size(); ++i) {
        const bool isMask = (base == "where" && i == 0) || (base == "masked_fill" && i == 1);
        const ComputeType ct = isMask ? ComputeType::Bool
                               : base == "threshold_backward" && i == 1 ? promote({(*ops)[1], (*ops)[2]})
                               : base == "threshold_backward" && i == 2 ? promote({(*ops)[1], (*ops)[2]})
                                                                        : t;
        auto x = lw.exprOf((*ops)[i], ct);
        if (!x) {
            return x.error();
        }
        e.push_back(*x);
    }
    int r;
    if (base == "where") {
        r = lw.op("where", t, {e[0], e[1], e[2]});
    } else if (base == "masked_fill") {
        r = lw.op("where", t, {e[1], e[2], e[0]});
    } else if (base == "threshold_backward") {
        // grad where self > threshold, else 0.
        const int keep = lw.op("gt", ComputeType::Bool, {e[1], e[2]});
        r = lw.op("where", t, {keep, lw.cast(e[0], t), lw.constant(0, t)});
    } else if (base == "leaky_relu") {
        const int slope = e.size() > 1 ? e[1] : lw.constant(0.01, t);
        r = lw.op("leaky_relu", t, {e[0], slope});
    } else if (base == "silu_backward") {
        // grad * s * (1 + x * (1 - s)), s = sigmoid(x): ATen's formula.
        const int s = lw.op("sigmoid", t, {e[1]});
        const int one = lw.constant(1, t);
        const int xs = lw.op("mul", t, {e[1], lw.op("sub", t, {one, s})});
        const int inner = lw.op("add", t, {one, xs});
        r = lw.op("mul", t, {lw.op("mul", t, {e[0], s}), inner});
    } else {
        r = lw.op(std::string(base), t, {e[0], e[1]}); // sigmoid/tanh/gelu backward
    }
    return finish(lw, n, *ops, r);
}

} // namespace

// --- reductions -------------------------------------------------------------------------------

std::vector<int> dimList(const graph::Argument* a, int rank)
{
    std::vector<int> dims;
    if (!a || a->kind == graph::ArgKind::None ||
        (a->isSequence() && a->items.empty())) {
        for (int d = 0; d < rank; ++d) {
            dims.push_back(d);
        }
        return dims;
    }
    auto add = [&](std::int64_t d) { dims.push_back(int(d < 0 ? d + rank : d)); };
    if (a->kind == graph::ArgKind::Int) {
        add(a->i);
    }
    for (const auto& it : a->items) {
        add(it.i);
    }
    std::sort(dims.begin(), dims.end());
    return dims;
}

int trailingCover(const Lowerer& lw, const Val& x, const std::vector<int>& dims)
{
    const std::vector<int> fd = lw.fdimOf(x);
    std::set<int> covered;
    for (int d : dims) {
        if (d < 0 || d >= int(x.shape.size())) {
            return -1;
        }
        if (x.shape[std::size_t(d)] != 1) {
            covered.insert(fd[std::size_t(d)]);
        }
    }
    const int n0 = int(lw.F.size());
    int k = 0;
    while (k < n0 && covered.count(n0 - 1 - k)) {
        ++k;
    }
    return int(covered.size()) != k || covered.count(-2) ? 0 : k;
}

// Checks that dims of x cover exactly the trailing dims of F (and fixes k on first use);
// returns the number of reduced elements.
Result<std::int64_t> claimInnerDims(Lowerer& lw, const graph::Node& n, const Val& x,
                                    const std::vector<int>& dims)
{
    if (lw.partial(x)) {
        return lw.unsupported(n, "reduces a value that does not fill the kernel's index space");
    }
    if (lw.columnDims >= 0) {
        return lw.unsupported(n, "a row reduction in a kernel that reduces leading dims");
    }
    const int k = trailingCover(lw, x, dims);
    if (k < 0) {
        return lw.unsupported(n, "reduction dim out of range");
    }
    if (k == 0) {
        return lw.unsupported(n, "reduces other dims than the trailing dims of the kernel (sum, "
                                 "mean, amax and amin also reduce its leading dims, or unroll "
                                 "up to 8 elements along others)");
    }
    if (lw.reducedDims >= 0 && lw.reducedDims != k) {
        return lw.unsupported(n, "reduces a different number of trailing dims than another "
                                 "reduction of the region");
    }
    lw.reducedDims = k;
    std::int64_t count = 1;
    for (int d : dims) {
        count *= x.shape[std::size_t(d)];
    }
    return count;
}

int reduce(Lowerer& lw, ReduceKind kind, int operand, ComputeType t)
{
    int id = -1;
    for (std::size_t i = 0; i < lw.kernel.reductions.size(); ++i) {
        const Reduction& r = lw.kernel.reductions[i];
        if (r.kind == kind && r.operand == operand && r.type == t) {
            id = int(i);
        }
    }
    if (id < 0) {
        lw.kernel.reductions.push_back(Reduction{kind, operand, t});
        id = int(lw.kernel.reductions.size() - 1);
    }
    Expr e;
    e.kind = ExprKind::RowRef;
    e.type = t;
    e.index = id;
    return lw.addExpr(std::move(e));
}

// A per-row value of the given shape (keepdim or collapsed); F dims from x's minus reduced.
Val rowValue(Lowerer& lw, const Val& x, const std::vector<int>& dims, bool keepdim, int expr,
             ScalarType type)
{
    Val v;
    v.kind = Val::Kind::Computed;
    v.type = type;
    v.expr = expr;
    const std::vector<int> fd = lw.fdimOf(x);
    bool merged = false;
    for (std::size_t j = 0; j < x.shape.size(); ++j) {
        const bool reduced = std::find(dims.begin(), dims.end(), int(j)) != dims.end();
        const int span = j < x.fspan.size() ? x.fspan[j] : 1;
        if (!reduced) {
            v.shape.push_back(x.shape[j]);
            v.fdim.push_back(span > 1 ? x.fdim[j] : fd[j]);
            v.fspan.push_back(span);
            merged = merged || span > 1;
        } else if (keepdim) {
            v.shape.push_back(1);
            v.fdim.push_back(-1);
            v.fspan.push_back(1);
        }
    }
    if (!merged) {
        v.fspan.clear();
    }
    return v;
}

namespace {

// mean and (two-pass) variance of x (an expression of floating type f) over the row: returns
// {mean, var} expression ids.
std::pair<int, int> meanVar(Lowerer& lw, int x, std::int64_t count, double correction,
                            ComputeType f)
{
    const int mean = lw.op("mul", f, {reduce(lw, ReduceKind::Sum, x, f),
                                      lw.constant(1.0 / double(count), f)});
    const int d = lw.op("sub", f, {x, mean});
    const double denom = std::max(double(count) - correction, 0.0);
    const int var = lw.op("div", f, {reduce(lw, ReduceKind::Sum, lw.op("mul", f, {d, d}), f),
                                     lw.constant(denom, f)});
    return {mean, var};
}

bool boolArg(const graph::Argument* a, bool fallback)
{
    return a && a->kind == graph::ArgKind::Bool ? a->b : fallback;
}

Status registerRow(Lowerer& lw, const graph::Node& n, Val v)
{
    auto meta = lw.outMeta(n);
    if (!meta) {
        return meta.error();
    }
    if (meta->second != v.shape) {
        return lw.unsupported(n, "reduction result shape differs from the printed meta");
    }
    v.type = meta->first;
    lw.values[n.id] = std::move(v);
    return {};
}

Status lowerSumLike(Lowerer& lw, const graph::Node& n, std::string_view base, const Val& x)
{
    auto meta = lw.outMeta(n);
    if (!meta) {
        return meta.error();
    }
    const std::string_view overload = graph::opOverload(n.target);
    const bool varDim = (base == "var" || base == "std") && overload == "dim";
    const std::vector<int> dims = dimList(graph::argumentOf(n, 1, "dim"), int(x.shape.size()));
    const bool keepdim = boolArg(graph::argumentOf(n, varDim ? 3 : 2, "keepdim"), false);
    const bool simple = base == "sum" || base == "mean" || base == "amax" || base == "amin";
    if (simple && unrollsReduction(lw, x, dims)) {
        const ReduceKind kind = base == "amax"   ? ReduceKind::Max
                                : base == "amin" ? ReduceKind::Min
                                                 : ReduceKind::Sum;
        auto v = lowerUnrolled(lw, n, kind, base == "mean", x, dims, keepdim, meta->first);
        return v ? registerRow(lw, n, *v) : Status(v.error());
    }
    auto count = simple && reducesColumnDims(lw, x, dims) ? claimOuterDims(lw, n, x, dims)
                                                           : claimInnerDims(lw, n, x, dims);
    if (!count) {
        return count.error();
    }
    const ComputeType t = computeTypeOf(meta->first);
    const ComputeType acc = (base == "sum" || base == "amax" || base == "amin") ? t
                                                                                 : floatingFor(t);
    auto xe = lw.exprOf(x, acc);
    if (!xe) {
        return xe.error();
    }
    int r;
    if (base == "sum") {
        r = reduce(lw, ReduceKind::Sum, *xe, acc);
    } else if (base == "amax" || base == "amin") {
        r = reduce(lw, base == "amax" ? ReduceKind::Max : ReduceKind::Min, *xe, acc);
    } else if (base == "mean") {
        r = lw.op("mul", acc, {reduce(lw, ReduceKind::Sum, *xe, acc),
                               lw.constant(1.0 / double(*count), acc)});
    } else {
        const double correction = overload == "correction"
                                      ? numberOr(kwarg(n, "correction"), 1.0)
                                      : (boolArg(graph::argumentOf(n, varDim ? 2 : 1, "unbiased"), true) ? 1 : 0);
        r = meanVar(lw, *xe, *count, correction, acc).second;
        r = base == "std" ? lw.op("sqrt", acc, {r}) : r;
    }
    return registerRow(lw, n, rowValue(lw, x, dims, keepdim, lw.cast(r, t), meta->first));
}

Status lowerSoftmaxLike(Lowerer& lw, const graph::Node& n, std::string_view base, const Val& x)
{
    // Forward: (self, dim, half_to_float); backward: (grad_output, output, dim, input_dtype).
    const bool backward = base.find("backward") != std::string_view::npos;
    const std::vector<int> dims = dimList(graph::argumentOf(n, backward ? 2 : 1, "dim"),
                                          int(x.shape.size()));
    auto count = claimInnerDims(lw, n, x, dims);
    auto meta = lw.outMeta(n);
    if (!count || !meta) {
        return !count ? count.error() : meta.error();
    }
    const ComputeType f =
        floatingFor(std::max(computeTypeOf(x.type), computeTypeOf(meta->first)));
    auto xe = lw.exprOf(x, f);
    if (!xe) {
        return xe.error();
    }
    int r;
    std::vector<Val> used{x};
    if (backward) {
        // args: grad_output, output, dim, input_dtype; x is grad_output here.
        auto y = lw.operand(n, 1);
        auto ye = y ? lw.exprOf(*y, f) : Result<int>(y.error());
        if (!ye) {
            return ye.error();
        }
        used.push_back(*y);
        auto dimsOfY = dimList(graph::argumentOf(n, 2, "dim"), int(y->shape.size()));
        if (auto c = claimInnerDims(lw, n, *y, dimsOfY); !c) {
            return c.error();
        }
        if (base == "_softmax_backward_data") {
            const int s = reduce(lw, ReduceKind::Sum, lw.op("mul", f, {*xe, *ye}), f);
            r = lw.op("mul", f, {*ye, lw.op("sub", f, {*xe, s})});
        } else {
            const int s = reduce(lw, ReduceKind::Sum, *xe, f);
            r = lw.op("sub", f, {*xe, lw.op("mul", f, {lw.op("exp", f, {*ye}), s})});
        }
    } else {
        const int m = reduce(lw, ReduceKind::Max, *xe, f);
        const int shifted = lw.op("sub", f, {*xe, m});
        const int e = lw.op("exp", f, {shifted});
        const int s = reduce(lw, ReduceKind::Sum, e, f);
        r = base.find("log_") != std::string_view::npos
                ? lw.op("sub", f, {shifted, lw.op("log", f, {s})})
                : lw.op("div", f, {e, s});
    }
    return finish(lw, n, used, lw.cast(r, computeTypeOf(meta->first)));
}

} // namespace

// The trailing dims of a rank-`rank` input a layer norm (or its backward) normalizes over.
std::vector<int> normalizedDims(const graph::Node& n, std::size_t argIndex, std::size_t rank)
{
    const graph::Argument* shapeArg = graph::argumentOf(n, argIndex, "normalized_shape");
    const int normDims = shapeArg && shapeArg->isSequence() ? int(shapeArg->items.size()) : 1;
    std::vector<int> dims;
    for (int d = int(rank) - normDims; d < int(rank); ++d) {
        dims.push_back(d);
    }
    return dims;
}

namespace {

Status lowerLayerNorm(Lowerer& lw, const graph::Node& n, std::string_view base, const Val& x)
{
    const std::vector<int> dims = normalizedDims(n, 1, x.shape.size());
    auto count = claimInnerDims(lw, n, x, dims);
    if (!count) {
        return count.error();
    }
    const ComputeType f = floatingFor(computeTypeOf(x.type));
    auto xe = lw.exprOf(x, f);
    if (!xe) {
        return xe.error();
    }
    const double eps = numberOr(graph::argumentOf(n, 4, "eps"), 1e-5);
    const auto [mean, var] = meanVar(lw, *xe, *count, 0.0, f);
    const int rstd = lw.op("rsqrt", f, {lw.op("add", f, {var, lw.constant(eps, f)})});
    int out = lw.op("mul", f, {lw.op("sub", f, {*xe, mean}), rstd});
    for (std::size_t i : {std::size_t(2), std::size_t(3)}) {
        if (i >= n.args.size() || n.args[i].kind == graph::ArgKind::None) {
            continue;
        }
        auto p = lw.operand(n, i);
        auto pe = p ? lw.exprOf(*p, f) : Result<int>(p.error());
        if (!pe || !lw.consistent(*p, lw.fdimOf(x), x.shape)) {
            return pe ? lw.unsupported(n, "weight/bias do not broadcast over the normalized dims")
                      : pe.error();
        }
        out = lw.op(i == 2 ? "mul" : "add", f, {out, *pe});
    }
    Val o = x;
    o.kind = Val::Kind::Computed;
    o.fdim = lw.fdimOf(x);
    o.expr = lw.cast(out, computeTypeOf(x.type));
    if (base == "layer_norm") {
        lw.values[n.id] = o;
        return {};
    }
    Val t;
    t.kind = Val::Kind::Tuple;
    t.items = {o, rowValue(lw, x, dims, true, lw.cast(mean, computeTypeOf(x.type)), x.type),
               rowValue(lw, x, dims, true, lw.cast(rstd, computeTypeOf(x.type)), x.type)};
    lw.values[n.id] = std::move(t);
    return {};
}

} // namespace

// Float expressions of the operands at `indices` (tensors broadcasting like x), in order.
Result<std::vector<int>> floatOperands(Lowerer& lw, const graph::Node& n, const Val& x,
                                       std::initializer_list<std::size_t> indices, ComputeType f)
{
    std::vector<int> e;
    for (std::size_t i : indices) {
        auto v = lw.operand(n, i);
        auto ve = v ? lw.exprOf(*v, f) : Result<int>(v.error());
        if (!ve || !lw.consistent(*v, lw.fdimOf(x), x.shape)) {
            return ve ? lw.unsupported(n, "an operand broadcasts along other dims than the input")
                      : ve.error();
        }
        e.push_back(*ve);
    }
    return e;
}

namespace {

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
// output_mask): grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat)) over the row, with
// xhat = (x - mean) * rstd and g = grad_out * weight. grad_weight and grad_bias sum over the
// rows (not the trailing dims): they are Deferred items here, made by the program's column
// kernel (column_ops.cpp: lowerLayerNormBackwardColumns).
Status lowerLayerNormBackward(Lowerer& lw, const graph::Node& n)
{
    if (lw.columnPart) {
        return lowerLayerNormBackwardColumns(lw, n);
    }
    auto x = lw.operand(n, 1);
    if (!x) {
        return x.error();
    }
    auto count = claimInnerDims(lw, n, *x, normalizedDims(n, 2, x->shape.size()));
    const ComputeType f = floatingFor(computeTypeOf(x->type));
    auto ops = count ? floatOperands(lw, n, *x, {0, 1, 3, 4}, f) // grad_out, input, mean, rstd
                     : Result<std::vector<int>>(count.error());
    if (!ops) {
        return ops.error();
    }
    const std::vector<int>& e = *ops;
    const int xhat = lw.op("mul", f, {lw.op("sub", f, {e[1], e[2]}), e[3]});
    int g = e[0];
    if (n.args.size() > 5 && n.args[5].kind != graph::ArgKind::None) {
        auto w = lw.operand(n, 5);
        auto we = w ? lw.exprOf(*w, f) : Result<int>(w.error());
        if (!we || !lw.consistent(*w, lw.fdimOf(*x), x->shape)) {
            return we ? lw.unsupported(n, "weight does not broadcast over the normalized dims")
                      : we.error();
        }
        g = lw.op("mul", f, {g, *we});
    }
    const int invN = lw.constant(1.0 / double(*count), f);
    const int meanG = lw.op("mul", f, {reduce(lw, ReduceKind::Sum, g, f), invN});
    const int meanGx = lw.op("mul", f, {reduce(lw, ReduceKind::Sum, lw.op("mul", f, {g, xhat}), f),
                                        invN});
    const int inner = lw.op("sub", f, {lw.op("sub", f, {g, meanG}), lw.op("mul", f, {xhat, meanGx})});
    Val gi = *x;
    gi.kind = Val::Kind::Computed;
    gi.fdim = lw.fdimOf(*x);
    gi.expr = lw.cast(lw.op("mul", f, {e[3], inner}), computeTypeOf(x->type));
    Val deferred;
    deferred.kind = Val::Kind::Deferred;
    Val t;
    t.kind = Val::Kind::Tuple;
    t.items = {gi, deferred, deferred};
    lw.values[n.id] = std::move(t);
    return {};
}

} // namespace

bool isPointwiseOp(std::string_view b)
{
    return kUnary.count(b) || kBinary.count(b) || kCompare.count(b) || kLogical.count(b) ||
           kOther.count(b);
}

bool isReductionOp(std::string_view b) { return kReductions.count(b) != 0; }

Status lowerPointwise(Lowerer& lw, const graph::Node& n)
{
    auto meta = lw.outMeta(n);
    if (!meta) {
        return meta.error();
    }
    const ComputeType t = computeTypeOf(meta->first);
    const std::string_view base = graph::opBaseName(n.target);
    if (kBinary.count(base)) {
        return lowerBinary(lw, n, base, t);
    }
    if (kCompare.count(base) || kLogical.count(base)) {
        return lowerCompareOrLogical(lw, n, base, t);
    }
    if (kUnary.count(base)) {
        return lowerUnary(lw, n, base, t);
    }
    return lowerOther(lw, n, base, t);
}

Status lowerReduction(Lowerer& lw, const graph::Node& n)
{
    auto x = lw.operand(n, 0);
    if (!x) {
        return x.error();
    }
    if (x->kind == Val::Kind::Scalar || x->kind == Val::Kind::Tuple) {
        return lw.unsupported(n, "reduction of a non-tensor");
    }
    const std::string_view base = graph::opBaseName(n.target);
    if (base == "native_layer_norm_backward") {
        return lowerLayerNormBackward(lw, n);
    }
    if (base == "native_layer_norm" || base == "layer_norm") {
        return lowerLayerNorm(lw, n, base, *x);
    }
    if (base.find("softmax") != std::string_view::npos) {
        return lowerSoftmaxLike(lw, n, base, *x);
    }
    return lowerSumLike(lw, n, base, *x);
}

} // namespace fxs::codegen::detail
