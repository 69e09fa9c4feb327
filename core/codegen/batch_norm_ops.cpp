// Inference batch norm as a pointwise op of the lowering:
// _native_batch_norm_legit_no_training(input, weight?, bias?, running_mean, running_var,
// momentum, eps) -> (out, save_mean, save_rstd) with
// out = (x - mean[c]) * rsqrt(var[c] + eps) * weight[c] + bias[c], c = dim 1 of x. The per-
// channel vectors are read as [C, 1, ..., 1] views, so they broadcast along x's channel dim and
// the op fuses with its neighbours (relu, the residual add) like any pointwise op. Only item 0
// is produced: save_mean and save_rstd are empty in eager (size [0]) and a graph that reads
// them leaves the node to LibTorch (lowering.cpp's getitem names the reason).
#include "core/codegen/lowerer.h"
#include "core/graph/node_arguments.h"

namespace fxs::codegen::detail {
namespace {

// A per-channel vector of x (rank >= 2) as a [C, 1, ..., 1] view that broadcasts along x's
// dim 1. Only input views and index arithmetic are re-viewed: a vector the region computes
// runs along the kernel's last dim already.
Result<Val> channelView(Lowerer& lw, const graph::Node& n, std::size_t arg, const Val& x)
{
    auto v = lw.operand(n, arg);
    if (!v) {
        return v.error();
    }
    const std::int64_t channels = x.shape.size() >= 2 ? x.shape[1] : -1;
    if (v->kind != Val::Kind::InputView && v->kind != Val::Kind::Synth) {
        return lw.unsupported(n, "batch norm statistics or affine parameters computed in the "
                                 "region (only the region's inputs are read per channel)");
    }
    if (v->shape.size() != 1 || (v->shape[0] != channels && v->shape[0] != 1)) {
        return lw.unsupported(n, "a batch norm parameter that is not one value per channel");
    }
    for (std::size_t d = 2; d < x.shape.size(); ++d) {
        v->shape.push_back(1);
        v->strides.push_back(0);
    }
    if (!lw.consistent(*v, lw.fdimOf(x), x.shape)) {
        return lw.unsupported(n, "batch norm parameters do not broadcast along the channels");
    }
    return v;
}

bool isNone(const graph::Node& n, std::size_t arg)
{
    return arg >= n.args.size() || n.args[arg].kind == graph::ArgKind::None;
}

double epsOf(const graph::Node& n)
{
    const graph::Argument* a = graph::argumentOf(n, 6, "eps");
    if (a && a->kind == graph::ArgKind::Float) {
        return a->f;
    }
    return a && a->kind == graph::ArgKind::Int ? double(a->i) : 1e-5;
}

} // namespace

bool isBatchNormOp(std::string_view base) { return base == "_native_batch_norm_legit_no_training"; }

Status lowerBatchNorm(Lowerer& lw, const graph::Node& n)
{
    auto x = lw.operand(n, 0);
    if (!x) {
        return x.error();
    }
    if (x->kind == Val::Kind::Scalar || x->kind == Val::Kind::Tuple || x->shape.size() < 2) {
        return lw.unsupported(n, "batch norm of a value with fewer than 2 dims");
    }
    if (lw.partial(*x)) {
        return lw.unsupported(n, "batch norm of a value that does not fill the kernel's index "
                                 "space");
    }
    const ComputeType f = floatingFor(computeTypeOf(x->type));
    auto xe = lw.exprOf(*x, f);
    auto mean = channelView(lw, n, 3, *x);
    auto var = channelView(lw, n, 4, *x);
    if (!xe || !mean || !var) {
        return !xe ? xe.error() : !mean ? mean.error() : var.error();
    }
    auto me = lw.exprOf(*mean, f);
    auto ve = lw.exprOf(*var, f);
    if (!me || !ve) {
        return !me ? me.error() : ve.error();
    }
    const int rstd = lw.op("rsqrt", f, {lw.op("add", f, {*ve, lw.constant(epsOf(n), f)})});
    int out = lw.op("mul", f, {lw.op("sub", f, {*xe, *me}), rstd});
    for (std::size_t arg : {std::size_t(1), std::size_t(2)}) {
        if (isNone(n, arg)) {
            continue;
        }
        auto p = channelView(lw, n, arg, *x);
        auto pe = p ? lw.exprOf(*p, f) : Result<int>(p.error());
        if (!pe) {
            return pe.error();
        }
        out = lw.op(arg == 1 ? "mul" : "add", f, {out, *pe});
    }
    Val o = *x;
    o.kind = Val::Kind::Computed;
    o.fdim = lw.fdimOf(*x);
    o.expr = lw.cast(out, computeTypeOf(x->type));
    Val t;
    t.kind = Val::Kind::Tuple;
    t.items = {o}; // save_mean and save_rstd: empty in eager, not produced
    lw.values[n.id] = std::move(t);
    return {};
}

} // namespace fxs::codegen::detail
