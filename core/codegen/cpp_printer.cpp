#include "core/codegen/cpp_printer.h"

#include "core/codegen/expr_emitter.h"
#include "core/codegen/expr_table.h"
#include "core/codegen/row_cache.h"
#include "core/codegen/source_text.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

namespace fxs::codegen {
namespace {

// The C++ spelling of the expression table's dialect tokens (g++ builtins: no <math.h>).
const detail::Dialect& cppDialect()
{
    static const detail::Dialect d{{{"$fabsf", "__builtin_fabsf"},
                                    {"$fabs", "__builtin_fabs"},
                                    {"$fmaxf", "__builtin_fmaxf"},
                                    {"$fmax", "__builtin_fmax"},
                                    {"$fminf", "__builtin_fminf"},
                                    {"$fmin", "__builtin_fmin"},
                                    {"$sqrtf", "__builtin_sqrtf"},
                                    {"$sqrt", "__builtin_sqrt"},
                                    {"$floorf", "__builtin_floorf"},
                                    {"$floor", "__builtin_floor"},
                                    {"$ceilf", "__builtin_ceilf"},
                                    {"$ceil", "__builtin_ceil"},
                                    {"$truncf", "__builtin_truncf"},
                                    {"$trunc", "__builtin_trunc"},
                                    {"$nearbyintf", "__builtin_nearbyintf"},
                                    {"$nearbyint", "__builtin_nearbyint"},
                                    {"$inff", "__builtin_inff()"},
                                    {"$inf", "__builtin_inf()"},
                                    {"$nanf", "__builtin_nanf(\"\")"},
                                    {"$nan", "__builtin_nan(\"\")"},
                                    {"$round_f16", "(float)(_Float16)"}}};
    return d;
}

using detail::computeName;

const char* storageName(ScalarType t)
{
    switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Int64: return "int64_t";
    case ScalarType::Float16: return "_Float16";
    case ScalarType::BFloat16: return "uint16_t";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    }
    return "void";
}

// The libmvec functions a translation unit calls: base name ("exp") and precision.
using VectorMathUses = detail::MathCalls;

// "__attribute__((simd(...))) double exp(double);" lines, sorted by function name.
std::string vectorMathDeclarations(const VectorMathUses& uses)
{
    std::set<std::string> lines;
    for (const auto& [base, type] : uses) {
        const std::string t = computeName(type);
        const std::string name = detail::mathCallName({base, type});
        const bool two = detail::mathCallArity({base, type}) == 2;
        lines.insert(name + "\t__attribute__((simd(\"notinbranch\"))) " + t + " " + name +
                     (two ? "(" + t + ", " + t + ");\n" : "(" + t + ");\n"));
    }
    std::string out;
    for (const auto& l : lines) {
        out += l.substr(l.find('\t') + 1);
    }
    return out;
}

// Guarded loads (loop_ir.h Access::guards) without a branch in the inner loop (g++ reported
// "not vectorized: control flow in loop" for `guard ? in[..] : fill`): a guard on an outer dim
// is decided once per row (g<load>, the row base clamped into the buffer) and the loop selects
// with it (fxs_sel: both sides made, no branch); a guard on the first inner dim holds on a range
// of c, so the inner loop is split there and each piece knows it (the fill, or a plain load).
// Guards on later inner dims and flat kernels' guards select per element at an address clamped
// into the buffer: branch-free, though g++ 12 does not vectorise that gather. Column kernels keep
// guardedLoadText's conditional read.
bool outerDim(const Kernel& k, int d)
{
    return !k.flat && d < int(k.shape.size()) - k.innerDims;
}

// The access with only its guards on outer dims (outer) or inner dims (!outer).
Access guardsOn(const Kernel& k, const Access& a, bool outer)
{
    Access part = a;
    std::erase_if(part.guards, [&](const Guard& g) { return outerDim(k, g.dim) != outer; });
    return part;
}

// One guard per guarded dim: the intersection of the access's guards on it (a window guard of a
// cat input's guard, moved by a pool, can share a dim with another).
std::vector<Guard> mergedGuards(const std::vector<Guard>& guards)
{
    std::vector<Guard> out;
    for (const Guard& g : guards) {
        auto it = std::find_if(out.begin(), out.end(), [&](const Guard& o) {
            return o.dim == g.dim;
        });
        if (it == out.end()) {
            out.push_back(g);
        } else {
            it->lo = std::max(it->lo, g.lo);
            it->hi = std::min(it->hi, g.hi);
        }
    }
    return out;
}

// The range of the inner index c where guard g holds, when it is one (g on the first inner dim
// of a row kernel: its digit is c / P); nullopt otherwise.
std::optional<std::pair<std::int64_t, std::int64_t>> innerRange(const Kernel& k, const Guard& g)
{
    const int first = int(k.shape.size()) - k.innerDims;
    if (k.flat || k.columns || g.dim != first) {
        return std::nullopt;
    }
    std::int64_t p = 1;
    for (std::size_t d = std::size_t(first) + 1; d < k.shape.size(); ++d) {
        p *= k.shape[d];
    }
    const std::int64_t size = k.shape.at(std::size_t(g.dim));
    return std::pair{std::clamp(g.lo, std::int64_t(0), size) * p,
                     std::clamp(g.hi, std::int64_t(0), size) * p};
}

bool neverHolds(const Access& a)
{
    const auto merged = mergedGuards(a.guards);
    return std::any_of(merged.begin(), merged.end(), [](const Guard& g) { return g.lo >= g.hi; });
}

// The address change that moves each guarded digit of a (outer or inner dims) into its range.
std::string clampText(const Kernel& k, const Access& a, bool outer, const std::string& flat)
{
    std::string s;
    for (const Guard& g : mergedGuards(guardsOn(k, a, outer).guards)) {
        const std::int64_t stride = a.strides.at(std::size_t(g.dim));
        const bool low = g.lo > 0;
        const bool high = g.hi < k.shape.at(std::size_t(g.dim));
        if (stride == 0 || (!low && !high)) {
            continue;
        }
        const std::string d = detail::indexDigitText(k, g.dim, flat);
        const std::string lo = std::to_string(g.lo);
        const std::string top = std::to_string(g.hi - 1);
        std::string delta = low ? d + " < " + lo + " ? " + lo + " - " + d + " : " : "";
        delta += high ? d + " > " + top + " ? " + top + " - " + d + " : 0" : "0";
        s += " + (" + delta + ") * " + std::to_string(stride);
    }
    return s;
}

// The prelude's branch-free select of type t (fxs_sel_f, fxs_sel_d: bitwise, which g++ keeps a
// select; a `g ? v : f` over a row-invariant g it may thread into branches that stop the
// vectoriser).
std::string selectName(ComputeType t)
{
    return t == ComputeType::Float    ? "fxs_sel_f"
           : t == ComputeType::Double ? "fxs_sel_d"
                                      : "fxs_sel<" + std::string(computeName(t)) + ">";
}

std::string innerBound(const Kernel& k)
{
    return k.flat ? "len" : std::to_string(k.inner());
}

class Printer {
public:
    Printer(const Kernel& k, VectorMathUses& vmath)
        : m_k(k), m_vmath(vmath),
          m_emit(k, cppDialect(), k.columns ? detail::RowCachePlan() : detail::planRowCache(k),
                 k.flat ? "(lo + c)" : "c")
    {
    }

    std::string kernelFunction(const RegionProgram& prog);
    bool usesSelect() const { return m_select; }

private:
    const Kernel& m_k;
    VectorMathUses& m_vmath;
    detail::ExprEmitter m_emit;
    std::string m_out;
    bool m_select = false; // a load printed through fxs_sel
    std::int64_t m_segment = -1; // the first c of the inner loop piece being printed

    std::string rowBase(const Access& a) const;
    std::string innerIndex(const Access& a) const;
    std::string loadText(int index);
    std::string selectedLoadText(int index);
    void emitLoadBase(std::size_t index, const std::string& indent);
    void emitInnerLoops(const std::string& indent, const std::string& pragma,
                        const std::function<void()>& body);
    // loop: the reduction phase or epilogue being printed (-1: scalar code, no row cache).
    void emitExprs(const std::vector<int>& roots, const std::string& indent, int loop = -1);
    void emitReduction(int index, const std::string& indent);
    void emitRowBody(const std::string& indent);
    std::string storeValue(const Store& s) const;
    void columnFunction();
    void columnEpilogue();
    void columnBases(const std::string& indent);
    void columnStores(const std::string& indent, bool results);
    std::string columnCombine(int index) const;
};

std::string Printer::rowBase(const Access& a) const
{
    const bool moves = !detail::innerIndexText(m_k, a).empty();
    return detail::rowBaseText(m_k, a) + (m_k.flat && moves ? " + lo" : "");
}

std::string Printer::innerIndex(const Access& a) const { return detail::innerIndexText(m_k, a); }

// A load through its row base (b<load>) and its index along the row.
std::string Printer::loadText(int index)
{
    const Load& l = m_k.loads.at(std::size_t(index));
    if (!m_k.columns && !l.access.guards.empty()) {
        return selectedLoadText(index);
    }
    const std::string inner = innerIndex(l.access);
    const std::string value =
        detail::loadValue(l.type, "in" + std::to_string(l.access.buffer) + "[b" +
                                      std::to_string(index) +
                                      (inner.empty() ? "" : " + " + inner) + "]");
    return detail::guardedLoadText(m_k, l, value, m_emit.flatIndex(), cppDialect());
}

// A guarded load of a row kernel: fxs_sel(guards, load at clamped address, fill). In a segment
// of the inner range (m_segment), a guard on the first inner dim is known: the fill where it
// fails, nothing where it holds.
std::string Printer::selectedLoadText(int index)
{
    const Load& l = m_k.loads.at(std::size_t(index));
    const ComputeType t = computeTypeOf(l.type);
    const std::string fill = l.access.fill == 0
                                 ? "(" + std::string(computeName(t)) + ")0"
                                 : detail::constText(l.access.fill, t, cppDialect());
    Access inner = guardsOn(m_k, l.access, false);
    if (m_segment >= 0) {
        for (const Guard& g : inner.guards) {
            const auto range = innerRange(m_k, g);
            if (range && (m_segment < range->first || m_segment >= range->second)) {
                return fill;
            }
        }
        std::erase_if(inner.guards, [&](const Guard& g) { return innerRange(m_k, g); });
    }
    if (neverHolds(l.access)) {
        return fill;
    }
    const std::string flat = m_emit.flatIndex();
    std::string at = innerIndex(l.access);
    at = (at.empty() ? "" : " + " + at) + clampText(m_k, inner, false, flat);
    const std::string value = detail::loadValue(
        l.type, "in" + std::to_string(l.access.buffer) + "[b" + std::to_string(index) + at + "]");
    std::string guard = detail::guardText(m_k, guardsOn(m_k, l.access, true), flat).empty()
                            ? ""
                            : "g" + std::to_string(index);
    const std::string each = detail::guardText(m_k, inner, flat);
    guard += guard.empty() || each.empty() ? each : " && " + each;
    if (guard.empty()) {
        return value;
    }
    m_select = true;
    return selectName(t) + "(" + guard + ", " + value + ", " + fill + ")";
}

// The inner loop over c, split where a guard on the first inner dim starts or stops holding
// (each piece a loop of its own, its guards known: selectedLoadText); `body` prints one.
void Printer::emitInnerLoops(const std::string& in, const std::string& pragma,
                             const std::function<void()>& body)
{
    std::set<std::int64_t> cuts{0, m_k.inner()};
    for (const Load& l : m_k.loads) {
        for (const Guard& g : m_k.flat || m_k.columns ? std::vector<Guard>{} : l.access.guards) {
            if (const auto range = innerRange(m_k, g)) {
                cuts.insert({std::min(range->first, m_k.inner()),
                             std::min(range->second, m_k.inner())});
            }
        }
    }
    if (cuts.size() == 2) {
        m_out += in + pragma + "\n" + in + "for (int64_t c = 0; c < " + innerBound(m_k) +
                 "; ++c) {\n";
        body();
        m_out += in + "}\n";
        return;
    }
    for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
        m_segment = *it;
        m_out += in + pragma + "\n" + in + "for (int64_t c = " + std::to_string(*it) + "; c < " +
                 std::to_string(*std::next(it)) + "; ++c) {\n";
        body();
        m_out += in + "}\n";
    }
    m_segment = -1;
}

// Row base b<load> of a load; a guarded one's clamped into the buffer, with its outer guards
// decided once per row (g<load>).
void Printer::emitLoadBase(std::size_t l, const std::string& in)
{
    const Access& a = m_k.loads[l].access;
    if (a.guards.empty()) {
        m_out += in + "const int64_t b" + std::to_string(l) + " = " + rowBase(a) + ";\n";
        return;
    }
    if (neverHolds(a)) {
        return; // read as its fill
    }
    const std::string outer = detail::guardText(m_k, guardsOn(m_k, a, true), "");
    if (!outer.empty()) {
        m_out += in + "const bool g" + std::to_string(l) + " = " + outer + ";\n";
    }
    m_out += in + "const int64_t b" + std::to_string(l) + " = " + rowBase(a) +
             clampText(m_k, a, true, "") + ";\n";
}

// The expressions the roots need, row buffers indexed by c (the ExprEmitter's walk).
void Printer::emitExprs(const std::vector<int>& roots, const std::string& indent, int loop)
{
    std::string text = m_emit.statements(roots, loop, "c", indent,
                                         [this](int index) { return loadText(index); });
    // A floating `where` in kernels with guarded loads (a pool's padding test) as the branch-free
    // select: its condition is often row-invariant, which g++ threads into branches.
    for (std::size_t id = 0; id < m_k.exprs.size() && m_select; ++id) {
        const Expr& e = m_k.exprs[id];
        if (e.kind != ExprKind::Op || e.op != "where" || e.args.size() != 3 ||
            !isFloating(e.type)) {
            continue;
        }
        const auto t = [](int a) { return "t" + std::to_string(a); };
        const std::string lhs = " t" + std::to_string(id) + " = ";
        const std::string from = lhs + "(" + t(e.args[0]) + " ? " + t(e.args[1]) + " : " +
                                 t(e.args[2]) + ");";
        const std::string to = lhs + selectName(e.type) + "(" + t(e.args[0]) + ", " +
                               t(e.args[1]) + ", " + t(e.args[2]) + ");";
        for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
            text.replace(at, from.size(), to);
        }
    }
    m_out += text;
}

std::string Printer::storeValue(const Store& s) const
{
    return detail::storeValue(s.type, "t" + std::to_string(s.expr));
}

void Printer::emitReduction(int index, const std::string& in)
{
    const Reduction& r = m_k.reductions[std::size_t(index)];
    const std::string red = "red" + std::to_string(index);
    const std::string nan = "nan" + std::to_string(index);
    const std::string v = "t" + std::to_string(r.operand);
    const bool isFloat = isFloating(r.type);
    const char* type = computeName(r.type);
    const std::string init = detail::reductionIdentity(r, cppDialect());
    std::string clause = "reduction(+:" + red + ")";
    std::string combine = red + " += " + v + ";";
    if (r.kind != ReduceKind::Sum) {
        const bool mx = r.kind == ReduceKind::Max;
        clause = std::string("reduction(") + (mx ? "max:" : "min:") + red + ")";
        combine = red + " = " + red + (mx ? " > " : " < ") + v + " ? " + red + " : " + v + ";";
        if (isFloat) {
            // amax/amin propagate NaN like eager; the lanes only record whether one was seen.
            clause += " reduction(|:" + nan + ")";
            combine += " " + nan + " |= (" + v + " != " + v + ");";
        }
    }
    m_out += in + type + " " + red + " = " + init + ";\n";
    const bool needsNan = r.kind != ReduceKind::Sum && isFloat;
    if (needsNan) {
        m_out += in + "int " + nan + " = 0;\n";
    }
    emitInnerLoops(in, "#pragma omp simd " + clause, [&] {
        emitExprs({r.operand}, in + "    ", index);
        m_out += in + "    " + combine + "\n";
    });
    if (needsNan) {
        m_out += in + "if (" + nan + ") {\n" + in + "    " + red + " = " +
                 detail::nanText(r.type, cppDialect()) + ";\n" + in + "}\n";
    }
}

void Printer::emitRowBody(const std::string& in)
{
    for (std::size_t l = 0; l < m_k.loads.size(); ++l) {
        emitLoadBase(l, in);
    }
    for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
        m_out += in + "const int64_t s" + std::to_string(s) + " = " +
                 rowBase(m_k.stores[s].access) + ";\n";
    }
    for (int id : m_emit.cache().cached) {
        m_out += in + "alignas(64) " + computeName(m_k.exprs[std::size_t(id)].type) + " rc" +
                 std::to_string(id) + "[" + std::to_string(m_k.inner()) + "];\n";
    }
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        m_out += in + "// phase " + std::to_string(i) + ": row reduction\n";
        emitReduction(int(i), in);
    }
    std::vector<int> roots;
    for (const auto& s : m_k.stores) {
        if (!s.perRow) {
            roots.push_back(s.expr);
        }
    }
    if (!roots.empty()) {
        emitInnerLoops(in, "#pragma omp simd", [&] {
            emitExprs(roots, in + "    ", int(m_k.reductions.size()));
            for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
                const Store& st = m_k.stores[s];
                if (!st.perRow) {
                    const std::string inner = innerIndex(st.access);
                    m_out += in + "    out" + std::to_string(st.access.buffer) + "[s" +
                             std::to_string(s) + (inner.empty() ? "" : " + " + inner) + "] = " +
                             storeValue(st) + ";\n";
                }
            }
        });
    }
    for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
        const Store& st = m_k.stores[s];
        if (st.perRow) {
            m_out += in + "{\n";
            emitExprs({st.expr}, in + "    ");
            m_out += in + "    out" + std::to_string(st.access.buffer) + "[s" + std::to_string(s) +
                     "] = " + storeValue(st) + ";\n" + in + "}\n";
        }
    }
}

constexpr std::int64_t kBlock = 8192;         // elements per block in flat kernels
constexpr std::int64_t kParallelMin = 32768;  // fewer elements run on one thread

constexpr std::int64_t kColumnBlock = 256; // columns a column kernel's thread takes at a time

// The statement folding value t<operand> into a column's accumulator (NaN-propagating max/min).
std::string Printer::columnCombine(int index) const
{
    const Reduction& r = m_k.reductions[std::size_t(index)];
    const std::string acc = "acc" + std::to_string(index) + "[c - c0]";
    const std::string v = "t" + std::to_string(r.operand);
    if (r.kind == ReduceKind::Sum) {
        return acc + " += " + v + ";";
    }
    const char* cmp = r.kind == ReduceKind::Max ? " > " : " < ";
    return acc + " = (" + acc + " != " + acc + " || " + acc + cmp + v + ") ? " + acc + " : " + v +
           ";";
}

// Row bases b<load> and s<store> of a column kernel's row r.
void Printer::columnBases(const std::string& in)
{
    for (std::size_t l = 0; l < m_k.loads.size(); ++l) {
        m_out += in + "const int64_t b" + std::to_string(l) + " = " +
                 rowBase(m_k.loads[l].access) + ";\n" + in + "(void)b" + std::to_string(l) +
                 ";\n";
    }
    for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
        m_out += in + "const int64_t s" + std::to_string(s) + " = " +
                 rowBase(m_k.stores[s].access) + ";\n" + in + "(void)s" + std::to_string(s) +
                 ";\n";
    }
}

// The stores of element (r, c): the columns' results, or those that move along the rows.
void Printer::columnStores(const std::string& in, bool results)
{
    for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
        const Store& st = m_k.stores[s];
        if (isColumnResult(m_k, st) != results) {
            continue;
        }
        const std::string inner = innerIndex(st.access);
        m_out += in + "out" + std::to_string(st.access.buffer) + "[s" + std::to_string(s) +
                 (inner.empty() ? "" : " + " + inner) + "] = " + storeValue(st) + ";\n";
    }
}

// A column kernel (loop_ir.h: Kernel::columns): blocks of columns in parallel; each block runs
// over the rows in order, accumulating every reduction per column and storing the outputs that
// move along the rows, then stores the columns' results (epilogue, rows never read there).
void Printer::columnFunction()
{
    const std::int64_t rows = m_k.rows();
    const std::int64_t cols = m_k.inner();
    const std::int64_t blocks = (cols + kColumnBlock - 1) / kColumnBlock;
    if (blocks > 1 && rows * cols >= kParallelMin) {
        m_out += "#pragma omp parallel for schedule(static)\n";
    }
    m_out += "    for (int64_t cb = 0; cb < " + std::to_string(blocks) + "; ++cb) {\n";
    m_out += "        const int64_t c0 = cb * " + std::to_string(kColumnBlock) + ";\n";
    m_out += "        const int64_t c1 = c0 + " + std::to_string(kColumnBlock) + " < " +
             std::to_string(cols) + " ? c0 + " + std::to_string(kColumnBlock) + " : " +
             std::to_string(cols) + ";\n";
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        const Reduction& r = m_k.reductions[i];
        const std::string acc = "acc" + std::to_string(i);
        m_out += std::string("        ") + computeName(r.type) + " " + acc + "[" +
                 std::to_string(kColumnBlock) + "];\n";
        m_out += "        for (int64_t c = c0; c < c1; ++c) {\n            " + acc +
                 "[c - c0] = " + detail::reductionIdentity(r, cppDialect()) + ";\n        }\n";
    }
    const std::vector<int> roots = columnPassRoots(m_k);
    const std::string in = "            ";
    m_out += "        for (int64_t r = 0; r < " + std::to_string(rows) + "; ++r) {\n";
    columnBases(in);
    m_out += in + "#pragma omp simd\n" + in + "for (int64_t c = c0; c < c1; ++c) {\n";
    emitExprs(roots, in + "    ");
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        m_out += in + "    " + columnCombine(int(i)) + "\n";
    }
    columnStores(in + "    ", false);
    m_out += in + "}\n        }\n";
    columnEpilogue();
    m_out += "    }\n";
}

// Each column's results, after the pass over the rows; what they read does not move along them.
void Printer::columnEpilogue()
{
    m_out += "        for (int64_t c = c0; c < c1; ++c) {\n";
    const std::string ep = "            ";
    m_out += ep + "const int64_t r = 0;\n" + ep + "(void)r;\n";
    columnBases(ep);
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        const Reduction& r = m_k.reductions[i];
        m_out += ep + "const " + computeName(r.type) + " red" + std::to_string(i) + " = acc" +
                 std::to_string(i) + "[c - c0];\n";
    }
    std::vector<int> results;
    for (const auto& st : m_k.stores) {
        if (isColumnResult(m_k, st)) {
            results.push_back(st.expr);
        }
    }
    emitExprs(results, ep);
    columnStores(ep, true);
    m_out += "        }\n";
}

std::string Printer::kernelFunction(const RegionProgram& prog)
{
    m_out = detail::kernelComment(m_k);
    m_out += "// index space " + detail::shapeText(m_k.shape) +
             (m_k.flat ? ", flat blocks of " + std::to_string(kBlock)
                       : ", rows " + std::to_string(m_k.rows()) + " x inner " +
                             std::to_string(m_k.inner())) +
             ", " + std::to_string(m_k.reductions.size()) +
             (m_k.columns ? " column reduction(s) over the rows\n" : " row reduction(s)\n");
    m_out += "static void " + source::identifier(m_k.name) + "(";
    for (std::size_t i = 0; i < prog.inputs.size(); ++i) {
        m_out += std::string(i ? ", " : "") + "const " + storageName(prog.inputs[i].type) +
                 "* __restrict in" + std::to_string(i);
    }
    for (std::size_t i = 0; i < prog.outputs.size(); ++i) {
        m_out += std::string(i || !prog.inputs.empty() ? ", " : "") +
                 storageName(prog.outputs[i].type) + "* __restrict out" + std::to_string(i);
    }
    m_out += ")\n{\n";
    if (m_k.columns) {
        columnFunction();
        m_out += "}\n";
        m_vmath.insert(m_emit.calls().begin(), m_emit.calls().end());
        return m_out;
    }
    std::int64_t total = 1;
    for (auto d : m_k.shape) {
        total *= d;
    }
    const std::int64_t rows = m_k.flat ? (total + kBlock - 1) / kBlock : m_k.rows();
    if (rows > 1 && total >= kParallelMin) {
        m_out += "#pragma omp parallel for schedule(static)\n";
    }
    m_out += "    for (int64_t r = 0; r < " + std::to_string(rows) + "; ++r) {\n";
    if (m_k.flat) {
        m_out += "        const int64_t lo = r * " + std::to_string(kBlock) + ";\n";
        m_out += "        const int64_t len = " + std::to_string(total) + " - lo < " +
                 std::to_string(kBlock) + " ? " + std::to_string(total) + " - lo : " +
                 std::to_string(kBlock) + ";\n";
    }
    emitRowBody("        ");
    m_out += "    }\n}\n";
    m_vmath.insert(m_emit.calls().begin(), m_emit.calls().end());
    return m_out;
}

const char* kPrelude = R"cpp(#include <stdint.h>

typedef uint16_t fxs_bf16;
#define fxs_f16_load(v) ((float)(v))
#define fxs_f16_store(f) ((_Float16)(f))
static inline float fxs_bf16_load(uint16_t v)
{
    const uint32_t u = (uint32_t)v << 16;
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}
static inline uint16_t fxs_bf16_store(float f)
{
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return 0x7fc0; // NaN
    }
    u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
    return (uint16_t)(u >> 16);
}
)cpp";

// Branch-free selects (cpp_printer: guarded loads, and `where` next to them): both values made,
// picked bitwise for floating types.
const char* kSelect = R"cpp(template <typename T> static inline T fxs_sel(bool g, T v, T f)
{
    return g ? v : f;
}
static inline float fxs_sel_f(bool g, float v, float f)
{
    uint32_t a, b;
    __builtin_memcpy(&a, &v, 4);
    __builtin_memcpy(&b, &f, 4);
    const uint32_t m = 0u - (uint32_t)g;
    a = (a & m) | (b & ~m);
    __builtin_memcpy(&v, &a, 4);
    return v;
}
static inline double fxs_sel_d(bool g, double v, double f)
{
    uint64_t a, b;
    __builtin_memcpy(&a, &v, 8);
    __builtin_memcpy(&b, &f, 8);
    const uint64_t m = 0u - (uint64_t)g;
    a = (a & m) | (b & ~m);
    __builtin_memcpy(&v, &a, 8);
    return v;
}
)cpp";

} // namespace

std::vector<std::int64_t> entryDims(const std::vector<BufferSpec>& inputs)
{
    std::vector<std::int64_t> d;
    for (const auto& b : inputs) {
        d.push_back(std::int64_t(b.sizes.size()));
        d.insert(d.end(), b.sizes.begin(), b.sizes.end());
        d.insert(d.end(), b.strides.begin(), b.strides.end());
    }
    return d;
}

std::string entrySymbol(int index)
{
    return index == 0 ? std::string(kEntrySymbol)
                      : std::string(kEntrySymbol) + "_" + std::to_string(index);
}

namespace {

std::string entryFunction(const RegionProgram& prog, int index)
{
    const auto dims = entryDims(prog.inputs);
    std::string out = "extern \"C\" int " + entrySymbol(index) +
                      "(void* const* in, void* const* out, const int64_t* dims, int64_t ndims)\n{\n";
    out += "    static const int64_t kDims[] = {0";
    for (auto d : dims) {
        out += ", " + std::to_string(d);
    }
    out += "};\n    if (ndims != " + std::to_string(dims.size()) + ") {\n        return 1;\n    }\n";
    out += "    for (int64_t i = 0; i < ndims; ++i) {\n        if (dims[i] != kDims[i + 1]) {\n"
           "            return 1;\n        }\n    }\n";
    for (const auto& k : prog.kernels) {
        out += "    " + source::identifier(k.name) + "(";
        std::size_t slot = 0;
        for (std::size_t i = 0; i < prog.inputs.size(); ++i, ++slot) {
            out += std::string(slot ? ", " : "") + "(const " + storageName(prog.inputs[i].type) +
                   "*)in[" + std::to_string(i) + "]";
        }
        for (std::size_t i = 0; i < prog.outputs.size(); ++i, ++slot) {
            out += std::string(slot ? ", " : "") + "(" + storageName(prog.outputs[i].type) +
                   "*)out[" + std::to_string(i) + "]";
        }
        out += ");\n";
    }
    out += "    return 0;\n}\n";
    return out;
}

} // namespace

std::string printSchedule(const std::vector<RegionProgram>& programs)
{
    VectorMathUses vmath;
    std::string kernels;
    bool select = false;
    for (const auto& prog : programs) {
        for (const auto& k : prog.kernels) {
            Printer p(k, vmath);
            kernels += p.kernelFunction(prog) + "\n";
            select = select || p.usesSelect();
        }
    }
    // No region id, node name or other input text: the source is a function of the cache key
    // alone (README, security).
    std::string out = "// Generated by fxscope. Plain C++ and OpenMP; no torch headers.\n";
    if (programs.size() > 1) {
        out += "// " + std::to_string(programs.size()) +
               " entries, one per generated step of the region's schedule; the steps between "
               "them are LibTorch calls made by the host.\n";
    }
    out += kPrelude;
    if (select) {
        out += kSelect;
    }
    if (!vmath.empty()) {
        out += "\n// Vectorised by g++ through glibc's libmvec (simd clones, e.g. _ZGVeN16v_expf).\n"
               "extern \"C\" {\n" +
               vectorMathDeclarations(vmath) + "}\n";
    }
    out += "\n" + kernels;
    for (std::size_t i = 0; i < programs.size(); ++i) {
        out += (i ? "\n" : "") + entryFunction(programs[i], int(i));
    }
    return out;
}

std::string printRegion(const RegionProgram& prog) { return printSchedule({prog}); }

} // namespace fxs::codegen
