// The Lowerer's operations on values (lowerer.h): operands and output meta, expressions and
// loads, a value's alignment with the kernel's index space F and the F dims of computed results.
// The driver that chooses F and lowers a region's nodes in order is lowering.cpp.
#include "core/codegen/lowerer.h"

#include <algorithm>
#include <set>

namespace fxs::codegen {
namespace detail {

Error Lowerer::unsupported(const graph::Node& n, const std::string& why) const
{
    Error e = makeError(ErrorCode::Unsupported, why, req.regionId + ":" + n.name);
    e.found = n.target;
    return e;
}

Result<std::pair<ScalarType, std::vector<std::int64_t>>> Lowerer::outMeta(
    const graph::Node& n) const
{
    const graph::TensorMeta* m = n.tensorMeta();
    if (!m || m->hasSymbolicSizes()) {
        return unsupported(n, "the node has no concrete tensor meta");
    }
    auto t = scalarTypeOf(m->dtype);
    if (!t) {
        return unsupported(n, "dtype " + std::string(graph::dtypeTorchName(m->dtype)) +
                                  " is not supported by the code generator");
    }
    std::vector<std::int64_t> sizes;
    for (const auto& s : m->sizes) {
        sizes.push_back(s.value);
    }
    return std::make_pair(*t, sizes);
}

Result<Val> Lowerer::operand(const graph::Node& n, std::size_t argIndex) const
{
    if (argIndex >= n.args.size()) {
        return unsupported(n, "missing argument " + std::to_string(argIndex));
    }
    const graph::Argument& a = n.args[argIndex];
    Val v;
    switch (a.kind) {
    case graph::ArgKind::Node: {
        auto it = values.find(a.node);
        if (it == values.end()) {
            return unsupported(n, "argument " + std::to_string(argIndex) + " is not available");
        }
        return it->second;
    }
    case graph::ArgKind::Int:
    case graph::ArgKind::Bool:
        v.kind = Val::Kind::Scalar;
        v.number = a.kind == graph::ArgKind::Int ? double(a.i) : double(a.b);
        v.integral = true;
        return v;
    case graph::ArgKind::Float:
        v.kind = Val::Kind::Scalar;
        v.number = a.f;
        return v;
    default:
        return unsupported(n, "argument " + std::to_string(argIndex) + " is not a tensor or number");
    }
}

Result<Val> Lowerer::kwargOrArg(const graph::Node& n, std::string_view key,
                                std::size_t argIndex) const
{
    for (std::size_t k = 0; k < n.kwargs.size(); ++k) {
        if (n.kwargs[k].first == key) {
            graph::Node tmp;
            tmp.name = n.name;
            tmp.target = n.target;
            tmp.args = {n.kwargs[k].second};
            return operand(tmp, 0);
        }
    }
    return operand(n, argIndex);
}

int Lowerer::addExpr(Expr e)
{
    // Reuse identical expressions (common subexpressions: the same load or op twice).
    for (std::size_t i = 0; i < kernel.exprs.size(); ++i) {
        const Expr& o = kernel.exprs[i];
        if (o.kind == e.kind && o.type == e.type && o.op == e.op && o.args == e.args &&
            o.index == e.index && (o.value == e.value || (o.value != o.value && e.value != e.value))) {
            return static_cast<int>(i);
        }
    }
    kernel.exprs.push_back(std::move(e));
    return static_cast<int>(kernel.exprs.size() - 1);
}

int Lowerer::constant(double v, ComputeType t)
{
    Expr e;
    e.kind = ExprKind::Const;
    e.type = t;
    e.value = t == ComputeType::Bool ? double(v != 0) : v;
    return addExpr(std::move(e));
}

int Lowerer::op(std::string name, ComputeType t, std::vector<int> args)
{
    Expr e;
    e.kind = ExprKind::Op;
    e.type = t;
    e.op = std::move(name);
    e.args = std::move(args);
    return addExpr(std::move(e));
}

int Lowerer::cast(int expr, ComputeType to)
{
    return typeOfExpr(expr) == to ? expr : op("cast", to, {expr});
}

std::optional<std::vector<int>> Lowerer::alignToF(const std::vector<std::int64_t>& shape) const
{
    const int n = static_cast<int>(F.size());
    const int m = static_cast<int>(shape.size());
    if (m > n) {
        return std::nullopt;
    }
    std::vector<int> fd(shape.size(), -1);
    for (int j = 0; j < m; ++j) {
        const int d = n - m + j;
        if (shape[j] != 1 && shape[j] <= F[d]) {
            fd[j] = d; // shorter than F[d]: partial
        } else if (shape[j] != 1) {
            return std::nullopt;
        }
    }
    return fd;
}

std::vector<int> Lowerer::fdimOf(const Val& v) const
{
    if (v.kind == Val::Kind::Computed) {
        std::vector<int> fd = v.fdim;
        for (std::size_t j = 0; j < v.fspan.size() && j < fd.size(); ++j) {
            fd[j] = v.fspan[j] > 1 ? -2 : fd[j]; // merged dims: stores and reductions only
        }
        return fd;
    }
    if (v.kind == Val::Kind::InputView || v.kind == Val::Kind::Synth) {
        return alignToF(v.shape).value_or(std::vector<int>(v.shape.size(), -2));
    }
    return {};
}

bool Lowerer::consistent(const Val& operand, const std::vector<int>& resultFdim,
                         const std::vector<std::int64_t>& resultShape) const
{
    if (operand.kind == Val::Kind::Scalar) {
        return true;
    }
    const std::vector<int> fd = fdimOf(operand);
    const int m = static_cast<int>(operand.shape.size());
    const int r = static_cast<int>(resultShape.size());
    for (int j = 0; j < m; ++j) {
        if (operand.shape[j] == 1) {
            continue;
        }
        const int i = r - m + j;
        if (i < 0 || operand.shape[j] != resultShape[i] || fd[j] != resultFdim[i]) {
            return false;
        }
    }
    return true;
}

Result<int> Lowerer::exprOf(const Val& v, ComputeType t)
{
    switch (v.kind) {
    case Val::Kind::Scalar: return constant(v.number, t);
    case Val::Kind::Computed: return cast(v.expr, t);
    case Val::Kind::Tuple:
        return makeError(ErrorCode::Unsupported, "a tuple value used as a tensor", req.regionId);
    case Val::Kind::Deferred:
        return makeError(ErrorCode::Unsupported, "a value another kernel of the program makes",
                         req.regionId);
    case Val::Kind::Synth: return synthExpr(*this, v, t);
    case Val::Kind::InputView: break;
    }
    if (!v.parts.empty()) {
        return makeError(ErrorCode::Unsupported, "a load of a view whose dims are not one stride "
                                                 "each", req.regionId);
    }
    const int n = static_cast<int>(F.size());
    const int m = static_cast<int>(v.shape.size());
    Load load;
    load.type = v.type;
    load.access.buffer = v.input;
    load.access.offset = v.offset;
    load.access.strides.assign(F.size(), 0);
    for (int j = 0; j < m; ++j) {
        const int d = n - m + j;
        if (d >= 0 && v.shape[j] != 1 && v.shape[j] <= F[d]) {
            load.access.strides[d] = v.strides[j]; // shorter than F[d]: partial
        } else if (v.shape[j] != 1) {
            return makeError(ErrorCode::Unsupported,
                             "an input view does not broadcast into the kernel's shape",
                             req.regionId);
        }
    }
    Expr e;
    e.kind = ExprKind::Load;
    e.type = computeTypeOf(v.type);
    e.index = addLoad(load);
    return cast(addExpr(std::move(e)), t);
}

int Lowerer::addLoad(const Load& load)
{
    for (std::size_t i = 0; i < kernel.loads.size(); ++i) {
        const Load& o = kernel.loads[i];
        if (o.type == load.type && o.access.buffer == load.access.buffer &&
            o.access.offset == load.access.offset && o.access.strides == load.access.strides &&
            o.access.guards == load.access.guards &&
            (o.access.fill == load.access.fill || o.access.guards.empty())) {
            return static_cast<int>(i);
        }
    }
    kernel.loads.push_back(load);
    return static_cast<int>(kernel.loads.size() - 1);
}

int Lowerer::index(int dim)
{
    Expr e;
    e.kind = ExprKind::Index;
    e.type = ComputeType::Int64;
    e.index = dim;
    return addExpr(std::move(e));
}

std::optional<std::vector<int>> Lowerer::fdimsFromOperands(
    const std::vector<std::int64_t>& shape, const std::vector<Val>& operands) const
{
    std::vector<int> fd(shape.size(), -1);
    std::vector<bool> given(shape.size(), false);
    for (const Val& o : operands) {
        if (o.kind == Val::Kind::Scalar) {
            continue;
        }
        const std::vector<int> od = fdimOf(o);
        if (o.shape.size() > shape.size() || od.size() != o.shape.size()) {
            return std::nullopt;
        }
        const std::size_t lead = shape.size() - o.shape.size();
        for (std::size_t j = 0; j < o.shape.size(); ++j) {
            const std::size_t i = lead + j;
            if (o.shape[j] == 1) {
                continue;
            }
            if (od[j] < 0 || (given[i] && fd[i] != od[j])) {
                return std::nullopt;
            }
            fd[i] = od[j];
            given[i] = true;
        }
    }
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] != 1 && !given[i]) {
            return std::nullopt;
        }
        // Two dims of the result along one F dim would read only its diagonal.
        for (std::size_t j = 0; j < i; ++j) {
            if (shape[i] != 1 && shape[j] != 1 && fd[i] == fd[j]) {
                return std::nullopt;
            }
        }
    }
    return fd;
}

Result<Val> Lowerer::computed(const graph::Node& n, int expr,
                              const std::vector<Val>& operands) const
{
    auto meta = outMeta(n);
    if (!meta) {
        return meta.error();
    }
    auto fd = operands.empty() ? std::nullopt : fdimsFromOperands(meta->second, operands);
    fd = fd ? fd : alignToF(meta->second);
    if (!fd) {
        return unsupported(n, "its shape does not fit the kernel's index space");
    }
    Val v;
    v.kind = Val::Kind::Computed;
    v.type = meta->first;
    v.shape = meta->second;
    v.expr = expr;
    v.fdim = *fd;
    return v;
}

} // namespace detail

} // namespace fxs::codegen
