#include "core/codegen/ir_printer.h"

#include "core/codegen/source_text.h"

namespace fxs::codegen {
namespace {

std::string ints(const std::vector<std::int64_t>& v)
{
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(v[i]);
    }
    return s + "]";
}

const char* irTypeName(ComputeType t)
{
    switch (t) {
    case ComputeType::Bool: return "bool";
    case ComputeType::Int64: return "int64";
    case ComputeType::Float: return "float";
    case ComputeType::Double: return "double";
    }
    return "?";
}

const char* reduceName(ReduceKind k)
{
    return k == ReduceKind::Sum ? "sum" : k == ReduceKind::Max ? "max" : "min";
}

std::string access(const char* buffer, const Access& a)
{
    std::string s = std::string(buffer) + std::to_string(a.buffer) + " offset " +
                    std::to_string(a.offset) + " strides " + ints(a.strides);
    for (const Guard& g : a.guards) {
        s += " where " + std::to_string(g.lo) + " <= i" + std::to_string(g.dim) + " < " +
             std::to_string(g.hi);
    }
    if (!a.guards.empty() && a.fill != 0) {
        s += " else " + std::to_string(a.fill); // "-inf"
    }
    return s;
}

std::string buffers(const char* what, const std::vector<BufferSpec>& specs)
{
    std::string s;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto& b = specs[i];
        s += "  " + std::string(what) + std::to_string(i) + " = " + source::escapeText(b.node) +
             ": " + std::string(scalarTypeName(b.type)) + ints(b.sizes) + " strides " +
             ints(b.strides) + "\n";
    }
    return s;
}

std::string exprLine(const Kernel& k, std::size_t id)
{
    const Expr& e = k.exprs[id];
    std::string rhs;
    switch (e.kind) {
    case ExprKind::Load: rhs = "load L" + std::to_string(e.index); break;
    case ExprKind::RowRef: rhs = "row red" + std::to_string(e.index); break;
    case ExprKind::Const: rhs = "const " + std::to_string(e.value); break;
    case ExprKind::Index: rhs = "index of dim " + std::to_string(e.index); break;
    case ExprKind::Op:
        rhs = source::escapeText(e.op) + "(";
        for (std::size_t a = 0; a < e.args.size(); ++a) {
            rhs += (a ? ", t" : "t") + std::to_string(e.args[a]);
        }
        rhs += ")";
        break;
    }
    return "    t" + std::to_string(id) + " = " + rhs + " : " + irTypeName(e.type) + "\n";
}

std::string kernelText(const Kernel& k)
{
    std::string nodes;
    for (const auto& n : k.nodes) {
        nodes += (nodes.empty() ? "" : ", ") + source::escapeText(n);
    }
    std::string s = "kernel " + k.name + " (FX nodes " + nodes + ")\n";
    s += "  index space " + ints(k.shape) + ", " +
         (k.flat ? std::string("flat") : "inner dims " + std::to_string(k.innerDims)) +
         (k.columns ? ", column reductions over the outer dims" : "") + "\n";
    for (std::size_t i = 0; i < k.loads.size(); ++i) {
        s += "  L" + std::to_string(i) + " = " + access("in", k.loads[i].access) + " as " +
             std::string(scalarTypeName(k.loads[i].type)) + "\n";
    }
    s += "  exprs\n";
    for (std::size_t i = 0; i < k.exprs.size(); ++i) {
        s += exprLine(k, i);
    }
    for (std::size_t i = 0; i < k.reductions.size(); ++i) {
        const Reduction& r = k.reductions[i];
        s += "  red" + std::to_string(i) + " = " + reduceName(r.kind) +
             (k.columns ? " over the column of t" : " over the row of t") +
             std::to_string(r.operand) + " : " + irTypeName(r.type) +
             (k.columns ? std::string("\n") : " (phase " + std::to_string(i) + ")\n");
    }
    for (const auto& st : k.stores) {
        s += "  store t" + std::to_string(st.expr) + " -> " + access("out", st.access) + " as " +
             std::string(scalarTypeName(st.type)) +
             (k.columns ? (isColumnResult(k, st) ? ", once per column" : "")
                        : (st.perRow ? ", once per row" : "")) +
             "\n";
    }
    return s;
}

} // namespace

std::string printLoopIr(const RegionProgram& p)
{
    std::string s = "program " + source::escapeText(p.region) + "\n";
    s += buffers("in", p.inputs);
    s += buffers("out", p.outputs);
    for (const auto& k : p.kernels) {
        s += kernelText(k);
    }
    return s;
}

} // namespace fxs::codegen
