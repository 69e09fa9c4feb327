#include "core/codegen/expr_emitter.h"

namespace fxs::codegen::detail {

ExprEmitter::ExprEmitter(const Kernel& k, const Dialect& d, RowCachePlan cache, std::string flat)
    : m_k(k), m_d(d), m_cache(std::move(cache)), m_flat(std::move(flat))
{
}

const std::set<int>& ExprEmitter::reads(int loop) const
{
    static const std::set<int> none;
    return loop >= 0 && m_cache.enabled ? m_cache.reads[std::size_t(loop)] : none;
}

std::vector<bool> ExprEmitter::needed(const std::vector<int>& roots, int loop) const
{
    return neededExprs(m_k, roots, reads(loop));
}

std::string ExprEmitter::statements(const std::vector<int>& roots, int loop,
                                    const std::string& slot, const std::string& indent,
                                    const LoadText& load)
{
    const std::set<int>& fromBuffer = reads(loop);
    const std::vector<bool> need = neededExprs(m_k, roots, fromBuffer);
    const bool cache = loop >= 0 && m_cache.enabled;
    std::string out;
    for (std::size_t id = 0; id < need.size(); ++id) {
        if (!need[id]) {
            continue;
        }
        const Expr& e = m_k.exprs[id];
        const std::string t = "t" + std::to_string(id);
        const std::string buf = "rc" + std::to_string(id) + "[" + slot + "]";
        const bool read = fromBuffer.count(int(id)) != 0;
        out += indent + "const " + computeName(e.type) + " " + t + " = " +
               (read ? buf : text(e, load)) + ";\n";
        if (!read && cache && m_cache.cached.count(int(id)) && m_cache.loopOf[id] == loop) {
            out += indent + buf + " = " + t + ";\n";
        }
    }
    return out;
}

std::string ExprEmitter::text(const Expr& e, const LoadText& load)
{
    switch (e.kind) {
    case ExprKind::Const: return constText(e.value, e.type, m_d);
    case ExprKind::RowRef: return "red" + std::to_string(e.index);
    case ExprKind::Load: return load(e.index);
    case ExprKind::Index: return "((int64_t)" + indexDigitText(m_k, e.index, m_flat) + ")";
    case ExprKind::Op: break;
    }
    std::vector<std::string> args;
    for (int x : e.args) {
        args.push_back("t" + std::to_string(x));
    }
    if (auto op = opText(m_k, e, args, m_d, m_calls)) {
        return *op;
    }
    return "0 /* unknown op */"; // never the op's text: it may come from an input
}

std::string reductionIdentity(const Reduction& r, const Dialect& d)
{
    const bool isFloat = isFloating(r.type);
    switch (r.kind) {
    case ReduceKind::Sum: return isFloat ? (r.type == ComputeType::Double ? "0.0" : "0.0f") : "0";
    case ReduceKind::Max: return isFloat ? "-" + infinityText(r.type, d) : "INT64_MIN";
    case ReduceKind::Min: return isFloat ? infinityText(r.type, d) : "INT64_MAX";
    }
    return "0";
}

std::string loadValue(ScalarType t, const std::string& raw)
{
    switch (t) {
    case ScalarType::BFloat16: return "fxs_bf16_load(" + raw + ")";
    case ScalarType::Float16: return "fxs_f16_load(" + raw + ")";
    default: return raw;
    }
}

std::string storeValue(ScalarType t, const std::string& value)
{
    switch (t) {
    case ScalarType::BFloat16: return "fxs_bf16_store(" + value + ")";
    case ScalarType::Float16: return "fxs_f16_store(" + value + ")";
    default: return value;
    }
}

} // namespace fxs::codegen::detail
