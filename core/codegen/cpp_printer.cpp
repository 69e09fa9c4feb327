#include "core/codegen/cpp_printer.h"

#include "core/codegen/expr_emitter.h"
#include "core/codegen/expr_table.h"
#include "core/codegen/row_cache.h"
#include "core/codegen/source_text.h"

#include <algorithm>
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

class Printer {
public:
    Printer(const Kernel& k, VectorMathUses& vmath)
        : m_k(k), m_vmath(vmath),
          m_emit(k, cppDialect(), k.columns ? detail::RowCachePlan() : detail::planRowCache(k),
                 k.flat ? "(lo + c)" : "c")
    {
    }

    std::string kernelFunction(const RegionProgram& prog);

private:
    const Kernel& m_k;
    VectorMathUses& m_vmath;
    detail::ExprEmitter m_emit;
    std::string m_out;

    std::string rowBase(const Access& a) const;
    std::string innerIndex(const Access& a) const;
    std::string loadText(int index) const;
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
std::string Printer::loadText(int index) const
{
    const Load& l = m_k.loads.at(std::size_t(index));
    const std::string inner = innerIndex(l.access);
    const std::string value =
        detail::loadValue(l.type, "in" + std::to_string(l.access.buffer) + "[b" +
                                      std::to_string(index) +
                                      (inner.empty() ? "" : " + " + inner) + "]");
    return detail::guardedLoadText(m_k, l, value, m_emit.flatIndex(), cppDialect());
}

// The expressions the roots need, row buffers indexed by c (the ExprEmitter's walk).
void Printer::emitExprs(const std::vector<int>& roots, const std::string& indent, int loop)
{
    m_out += m_emit.statements(roots, loop, "c", indent,
                               [this](int index) { return loadText(index); });
}

std::string Printer::storeValue(const Store& s) const
{
    return detail::storeValue(s.type, "t" + std::to_string(s.expr));
}

std::string innerBound(const Kernel& k)
{
    return k.flat ? "len" : std::to_string(k.inner());
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
    m_out += in + "#pragma omp simd " + clause + "\n";
    m_out += in + "for (int64_t c = 0; c < " + innerBound(m_k) + "; ++c) {\n";
    emitExprs({r.operand}, in + "    ", index);
    m_out += in + "    " + combine + "\n" + in + "}\n";
    if (needsNan) {
        m_out += in + "if (" + nan + ") {\n" + in + "    " + red + " = " +
                 detail::nanText(r.type, cppDialect()) + ";\n" + in + "}\n";
    }
}

void Printer::emitRowBody(const std::string& in)
{
    for (std::size_t l = 0; l < m_k.loads.size(); ++l) {
        m_out += in + "const int64_t b" + std::to_string(l) + " = " +
                 rowBase(m_k.loads[l].access) + ";\n";
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
        m_out += in + "#pragma omp simd\n";
        m_out += in + "for (int64_t c = 0; c < " + innerBound(m_k) + "; ++c) {\n";
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
        m_out += in + "}\n";
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
    std::vector<int> roots;
    for (const auto& r : m_k.reductions) {
        roots.push_back(r.operand);
    }
    for (const auto& st : m_k.stores) {
        if (!isColumnResult(m_k, st)) {
            roots.push_back(st.expr);
        }
    }
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
    for (const auto& prog : programs) {
        for (const auto& k : prog.kernels) {
            kernels += Printer(k, vmath).kernelFunction(prog) + "\n";
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
