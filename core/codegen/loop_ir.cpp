#include "core/codegen/loop_ir.h"

#include <algorithm>

namespace fxs::codegen {

std::string_view scalarTypeName(ScalarType t)
{
    switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Int64: return "int64";
    case ScalarType::Float16: return "float16";
    case ScalarType::BFloat16: return "bfloat16";
    case ScalarType::Float32: return "float32";
    case ScalarType::Float64: return "float64";
    }
    return "?";
}

ComputeType computeTypeOf(ScalarType t)
{
    switch (t) {
    case ScalarType::Bool: return ComputeType::Bool;
    case ScalarType::Int64: return ComputeType::Int64;
    case ScalarType::Float64: return ComputeType::Double;
    default: return ComputeType::Float;
    }
}

int scalarTypeSize(ScalarType t)
{
    switch (t) {
    case ScalarType::Bool: return 1;
    case ScalarType::Int64: return 8;
    case ScalarType::Float16:
    case ScalarType::BFloat16: return 2;
    case ScalarType::Float32: return 4;
    case ScalarType::Float64: return 8;
    }
    return 0;
}

bool isFloating(ComputeType t) { return t == ComputeType::Float || t == ComputeType::Double; }

ComputeType floatingFor(ComputeType t)
{
    return t == ComputeType::Double ? ComputeType::Double : ComputeType::Float;
}

std::int64_t Kernel::rows() const
{
    std::int64_t r = 1;
    for (std::size_t d = 0; d + std::size_t(innerDims) < shape.size(); ++d) {
        r *= shape[d];
    }
    return r;
}

std::int64_t Kernel::inner() const
{
    std::int64_t c = 1;
    for (std::size_t d = shape.size() - std::size_t(innerDims); d < shape.size(); ++d) {
        c *= shape[d];
    }
    return c;
}

std::string describeKernel(const Kernel& k)
{
    std::string s = k.columns ? "col" : k.reductions.empty() ? "pw" : "row";
    std::vector<std::string_view> ops;
    for (const Expr& e : k.exprs) {
        if (e.kind != ExprKind::Op || e.op == "cast" || ops.size() == 4 ||
            std::find(ops.begin(), ops.end(), e.op) != ops.end()) {
            continue;
        }
        ops.push_back(e.op);
    }
    for (const Reduction& r : k.reductions) {
        const std::string_view name = r.kind == ReduceKind::Sum ? "sum"
                                      : r.kind == ReduceKind::Max ? "max"
                                                                  : "min";
        if (std::find(ops.begin(), ops.end(), name) == ops.end()) {
            ops.push_back(name);
        }
    }
    for (std::string_view op : ops) {
        s += '_';
        for (char c : op) { // the table's names are [a-z0-9_] already; anything else is dropped
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') {
                s += c;
            }
        }
    }
    s += '_' + (k.reductions.empty() && !k.columns
                    ? std::to_string(k.rows() * k.inner())
                    : std::to_string(k.rows()) + "x" + std::to_string(k.inner()));
    return s;
}

bool isColumnResult(const Kernel& k, const Store& s)
{
    const std::size_t outer = k.shape.size() - std::size_t(k.innerDims);
    for (std::size_t d = 0; d < outer && d < s.access.strides.size(); ++d) {
        if (s.access.strides[d] != 0 && k.shape[d] != 1) {
            return false;
        }
    }
    return true;
}

std::vector<int> columnPassRoots(const Kernel& k)
{
    std::vector<int> roots;
    for (const auto& r : k.reductions) {
        roots.push_back(r.operand);
    }
    for (const auto& st : k.stores) {
        if (!isColumnResult(k, st)) {
            roots.push_back(st.expr);
        }
    }
    return roots;
}

} // namespace fxs::codegen
