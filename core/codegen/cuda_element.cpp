#include "core/codegen/cuda_element.h"

#include <algorithm>
#include <cstdlib>

namespace fxs::codegen::detail {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

// The text of element `v` of a chunk whose words (32-bit, or 16-bit when `half`) are w[0..].
std::string fromWords(ScalarType t, int v, const std::vector<std::string>& w, bool half)
{
    const int bits = half ? 16 : 32;
    switch (scalarTypeSize(t)) {
    case 8: {
        const std::string bits64 =
            "(((uint64_t)" + w[std::size_t(2 * v + 1)] + " << 32) | " + w[std::size_t(2 * v)] + ")";
        return t == ScalarType::Float64 ? "__longlong_as_double((long long)" + bits64 + ")"
                                        : "(int64_t)" + bits64;
    }
    case 4: return "__uint_as_float(" + w[std::size_t(v)] + ")";
    case 2: {
        const int per = bits / 16;
        const std::string word = w[std::size_t(v / per)];
        const int shift = (v % per) * 16;
        return "(uint16_t)(" + word + (shift ? " >> " + str(shift) : "") + ")";
    }
    default: {
        const int per = bits / 8;
        const int shift = (v % per) * 8;
        return "(((" + w[std::size_t(v / per)] + (shift ? " >> " + str(shift) : "") +
               ") & 0xffu) != 0)";
    }
    }
}

// The word `i` (32-bit, or 16-bit when `half`) of a chunk of values o[0..V) of type t.
std::string toWord(ScalarType t, int i, const std::string& o, bool half)
{
    const int bytes = half ? 2 : 4;
    const int size = scalarTypeSize(t);
    const std::string cast = half ? "(uint16_t)" : "(uint32_t)";
    if (size == 8) {
        const std::string e = o + "[" + str(i / 2) + "]";
        const std::string v =
            "(uint64_t)" + (t == ScalarType::Float64 ? "__double_as_longlong(" + e + ")" : e);
        return i % 2 ? cast + "(" + v + " >> 32)" : cast + v;
    }
    if (size == 4) {
        return "__float_as_uint(" + o + "[" + str(i) + "])";
    }
    std::string s;
    const int per = bytes / size;
    for (int k = 0; k < per; ++k) {
        const std::string e = cast + o + "[" + str(i * per + k) + "]";
        s += (k ? " | " : "") + (k ? "(" + e + " << " + str(k * size * 8) + ")" : e);
    }
    return per > 1 ? "(" + s + ")" : s;
}

// The unit of a vector access of `bytes` bytes: CUDA type, bytes, 32-bit words (or 16-bit).
struct Unit {
    const char* type;
    int bytes;
    std::vector<const char*> fields;
};

Unit unitFor(int bytes)
{
    if (bytes >= 16) {
        return {"uint4", 16, {".x", ".y", ".z", ".w"}};
    }
    if (bytes == 8) {
        return {"uint2", 8, {".x", ".y"}};
    }
    if (bytes == 4) {
        return {"uint32_t", 4, {""}};
    }
    return {"uint16_t", 2, {""}};
}

std::string storageDecl(ScalarType t)
{
    return t == ScalarType::BFloat16 || t == ScalarType::Float16 ? "uint16_t" : cudaStorageName(t);
}

} // namespace

const Dialect& cudaDialect()
{
    static const Dialect d{{{"$fabsf", "fabsf"},
                            {"$fabs", "fabs"},
                            {"$fmaxf", "fmaxf"},
                            {"$fmax", "fmax"},
                            {"$fminf", "fminf"},
                            {"$fmin", "fmin"},
                            {"$sqrtf", "sqrtf"},
                            {"$sqrt", "sqrt"},
                            {"$floorf", "floorf"},
                            {"$floor", "floor"},
                            {"$ceilf", "ceilf"},
                            {"$ceil", "ceil"},
                            {"$truncf", "truncf"},
                            {"$trunc", "trunc"},
                            {"$nearbyintf", "rintf"},
                            {"$nearbyint", "rint"},
                            {"$inff", "__int_as_float(0x7f800000)"},
                            {"$inf", "__longlong_as_double(0x7ff0000000000000LL)"},
                            {"$nanf", "__int_as_float(0x7fc00000)"},
                            {"$nan", "__longlong_as_double(0x7ff8000000000000LL)"},
                            {"$round_f16", "fxs_f16_round"}}};
    return d;
}

const char* cudaStorageName(ScalarType t)
{
    switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Int64: return "int64_t";
    case ScalarType::Float16:
    case ScalarType::BFloat16: return "uint16_t";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    }
    return "void";
}

AccessShape accessShape(const Kernel& k, const Access& a)
{
    const std::string inner = innerIndexText(k, a);
    // A guarded load is read element by element, each behind its test (a vector word would be
    // read whole, in its range or not).
    return inner.empty()                      ? AccessShape::Broadcast
           : inner == "c" && a.guards.empty() ? AccessShape::Contiguous
                                              : AccessShape::Gather;
}

bool isRowStore(const Kernel& k, const Store& s)
{
    return s.perRow || accessShape(k, s.access) == AccessShape::Broadcast;
}

int vectorWidth(const Kernel& k, std::int64_t limit)
{
    int minSize = 16;
    std::vector<std::pair<const Access*, int>> contiguous;
    for (const auto& l : k.loads) {
        if (accessShape(k, l.access) == AccessShape::Contiguous) {
            contiguous.push_back({&l.access, scalarTypeSize(l.type)});
        }
    }
    for (const auto& s : k.stores) {
        if (!isRowStore(k, s) && accessShape(k, s.access) == AccessShape::Contiguous) {
            contiguous.push_back({&s.access, scalarTypeSize(s.type)});
        }
    }
    for (const auto& [a, size] : contiguous) {
        minSize = std::min(minSize, size);
    }
    if (contiguous.empty()) {
        return 1;
    }
    const std::size_t outer = k.flat ? 0 : k.shape.size() - std::size_t(k.innerDims);
    auto allows = [&](std::int64_t v) {
        if (v > limit || (!k.flat && k.inner() % v != 0)) {
            return false;
        }
        for (const auto& [a, size] : contiguous) {
            if (a->offset % v != 0) {
                return false;
            }
            for (std::size_t d = 0; d < outer; ++d) {
                if (k.shape[d] != 1 && a->strides[d] % v != 0) {
                    return false;
                }
            }
        }
        return true;
    };
    int v = std::min(8, 16 / minSize);
    while (v > 1 && !allows(v)) {
        v /= 2;
    }
    return v;
}

bool onlyHalfRows(const Kernel& k)
{
    int moving = 0;
    auto half = [&](const Access& a, ScalarType t) {
        if (accessShape(k, a) == AccessShape::Broadcast) {
            return true;
        }
        ++moving;
        return scalarTypeSize(t) == 2;
    };
    for (const auto& l : k.loads) {
        if (!half(l.access, l.type)) {
            return false;
        }
    }
    for (const auto& s : k.stores) {
        if (!isRowStore(k, s) && !half(s.access, s.type)) {
            return false;
        }
    }
    return moving > 0;
}

bool fitsInt32(const Kernel& k)
{
    constexpr std::int64_t kLimit = std::int64_t(1) << 30; // headroom for i + grid step
    std::int64_t total = 1;
    for (auto d : k.shape) {
        total *= d;
    }
    bool fits = total < kLimit;
    auto check = [&](const Access& a) {
        std::int64_t hi = std::llabs(a.offset);
        for (std::size_t d = 0; d < k.shape.size(); ++d) {
            hi += (k.shape[d] - 1) * std::llabs(a.strides[d]);
        }
        fits = fits && hi < kLimit;
    };
    for (const auto& l : k.loads) {
        check(l.access);
    }
    for (const auto& s : k.stores) {
        check(s.access);
    }
    return fits;
}

ElementWriter::ElementWriter(const Kernel& k, int v, bool rowCache)
    : m_k(k), m_v(v), m_emit(k, cudaDialect(), rowCache ? planRowCache(k) : RowCachePlan()),
      m_varying(varyingExprs(k))
{
}

std::vector<int> ElementWriter::loopRoots(int loop) const
{
    if (loop < int(m_k.reductions.size())) {
        return {m_k.reductions[std::size_t(loop)].operand};
    }
    std::vector<int> roots;
    for (const auto& s : m_k.stores) {
        if (!isRowStore(m_k, s)) {
            roots.push_back(s.expr);
        }
    }
    return roots;
}

std::set<int> ElementWriter::loadsOf(int loop) const
{
    const std::set<int>& reads = m_emit.reads(loop);
    const std::vector<bool> need = m_emit.needed(loopRoots(loop), loop);
    std::set<int> loads;
    for (std::size_t id = 0; id < need.size(); ++id) {
        const Expr& e = m_k.exprs[id];
        if (need[id] && !reads.count(int(id)) && e.kind == ExprKind::Load && m_varying[id]) {
            loads.insert(e.index);
        }
    }
    return loads;
}

std::string ElementWriter::rowPrologue(const std::string& idx, const std::string& in) const
{
    std::string out;
    for (std::size_t l = 0; l < m_k.loads.size(); ++l) {
        out += in + "const " + idx + " b" + str(std::int64_t(l)) + " = " +
               rowBaseText(m_k, m_k.loads[l].access) + ";\n";
    }
    for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
        out += in + "const " + idx + " s" + str(std::int64_t(s)) + " = " +
               rowBaseText(m_k, m_k.stores[s].access) + ";\n";
    }
    for (std::size_t l = 0; l < m_k.loads.size(); ++l) {
        const Load& ld = m_k.loads[l];
        if (accessShape(m_k, ld.access) == AccessShape::Broadcast) {
            const std::string id = str(std::int64_t(l));
            const std::string value =
                loadValue(ld.type, "in" + str(ld.access.buffer) + "[b" + id + "]");
            out += in + "const " + computeName(computeTypeOf(ld.type)) + " l" + id + " = " +
                   guardedLoadText(m_k, ld, value, m_emit.flatIndex(), cudaDialect()) + ";\n";
        }
    }
    return out;
}

std::string ElementWriter::arrays(const std::set<int>& loads, bool cached, int slots,
                                  const std::string& in) const
{
    std::string out;
    const std::string n = "[" + str(slots) + "];\n";
    for (int l : loads) {
        out += in + computeName(computeTypeOf(m_k.loads[std::size_t(l)].type)) + " l" + str(l) + n;
    }
    if (cached && m_emit.cache().enabled) {
        for (int id : m_emit.cache().cached) {
            out += in + computeName(m_k.exprs[std::size_t(id)].type) + " rc" + str(id) + n;
        }
    }
    return out;
}

std::string ElementWriter::fillChunk(int load, const std::string& first, const std::string& idx,
                                     const std::string& in) const
{
    const Load& ld = m_k.loads[std::size_t(load)];
    const std::string id = str(load);
    const std::string arr = "l" + id + "[" + (first.empty() ? "" : first + " + ");
    const std::string base = "in" + str(ld.access.buffer);
    const AccessShape shape = accessShape(m_k, ld.access);
    auto scalar = [&](const std::string& at) {
        const std::string inner = innerIndexText(m_k, ld.access);
        std::string out = at + "#pragma unroll\n" + at + "for (int v = 0; v < " + str(m_v) +
                          "; ++v) {\n" + at + "    const " + idx + " c = c0 + v;\n";
        const std::string value = loadValue(ld.type, base + "[b" + id + " + " + inner + "]");
        return out + at + "    " + arr + "v] = " +
               guardedLoadText(m_k, ld, value, m_emit.flatIndex(), cudaDialect()) + ";\n" + at + "}\n";
    };
    if (shape == AccessShape::Gather || m_v == 1) {
        return scalar(in);
    }
    const int bytes = m_v * scalarTypeSize(ld.type);
    const Unit u = unitFor(bytes);
    std::vector<std::string> words;
    std::string out = in + "if (aligned) {\n";
    const std::string ptr = "reinterpret_cast<const " + std::string(u.type) + "*>(" + base +
                            " + b" + id + " + c0)";
    for (int i = 0; i < bytes / u.bytes; ++i) {
        const std::string w = "w" + str(i);
        out += in + "    const " + u.type + " " + w + " = " + ptr + "[" + str(i) + "];\n";
        for (const char* f : u.fields) {
            words.push_back(w + f);
        }
    }
    for (int v = 0; v < m_v; ++v) {
        out += in + "    " + arr + str(v) + "] = " +
               loadValue(ld.type, fromWords(ld.type, v, words, u.bytes == 2)) + ";\n";
    }
    return out + in + "} else {\n" + scalar(in + "    ") + in + "}\n";
}

bool ElementWriter::fetchesWords(const std::set<int>& loads) const
{
    if (m_v == 1 || loads.empty()) {
        return false;
    }
    for (int l : loads) {
        const Load& ld = m_k.loads[std::size_t(l)];
        if (accessShape(m_k, ld.access) != AccessShape::Contiguous ||
            (m_v * scalarTypeSize(ld.type)) % 4 != 0) {
            return false;
        }
    }
    return true;
}

int ElementWriter::wordsPerChunk(int load) const
{
    return m_v * scalarTypeSize(m_k.loads[std::size_t(load)].type) / 4;
}

std::string ElementWriter::loadBase(int load, const std::string& idx, const std::string& in) const
{
    return in + "const " + idx + " b" + str(load) + " = " +
           rowBaseText(m_k, m_k.loads[std::size_t(load)].access) + ";\n";
}

std::string ElementWriter::fetchWords(int load, const std::string& first, const std::string& idx,
                                      const std::string& in) const
{
    const Load& ld = m_k.loads[std::size_t(load)];
    const std::string id = str(load);
    const std::string base = "in" + str(ld.access.buffer);
    const std::string p = "p" + id + "[" + first + " + ";
    const int words = wordsPerChunk(load);
    const Unit u = unitFor(words * 4);
    const int per = u.bytes / 4;
    std::string out = in + "if (aligned) {\n";
    const std::string ptr = "reinterpret_cast<const " + std::string(u.type) + "*>(" + base +
                            " + b" + id + " + c0)";
    for (int i = 0; i < words / per; ++i) {
        const std::string w = "w" + str(i);
        out += in + "    const " + u.type + " " + w + " = " + ptr + "[" + str(i) + "];\n";
        for (int f = 0; f < per; ++f) {
            out += in + "    " + p + str(i * per + f) + "] = " + w + u.fields[std::size_t(f)] +
                   ";\n";
        }
    }
    // Unaligned: the elements' storage bits packed into the words the vector load would give.
    out += in + "} else {\n" + in + "    " + storageDecl(ld.type) + " e[" + str(m_v) + "];\n";
    out += in + "    #pragma unroll\n" + in + "    for (int v = 0; v < " + str(m_v) + "; ++v) {\n";
    out += in + "        const " + idx + " c = c0 + v;\n" + in + "        e[v] = " + base +
           "[b" + id + " + " + innerIndexText(m_k, ld.access) + "];\n" + in + "    }\n";
    for (int i = 0; i < words; ++i) {
        out += in + "    " + p + str(i) + "] = " + toWord(ld.type, i, "e", false) + ";\n";
    }
    return out + in + "}\n";
}

std::string ElementWriter::unpackWords(int load, const std::string& first,
                                       const std::string& words, const std::string& in) const
{
    const Load& ld = m_k.loads[std::size_t(load)];
    const std::string id = str(load);
    std::vector<std::string> w;
    for (int i = 0; i < wordsPerChunk(load); ++i) {
        w.push_back("p" + id + "[" + words + " + " + str(i) + "]");
    }
    std::string out;
    for (int v = 0; v < m_v; ++v) {
        out += in + "l" + id + "[" + first + " + " + str(v) + "] = " +
               loadValue(ld.type, fromWords(ld.type, v, w, false)) + ";\n";
    }
    return out;
}

// A load moving along the row from its register array; one constant along it, its register.
std::string ElementWriter::loadText(int index, const std::string& el) const
{
    const Load& l = m_k.loads.at(std::size_t(index));
    const bool row = accessShape(m_k, l.access) == AccessShape::Broadcast;
    return "l" + str(index) + (row ? "" : "[" + el + "]");
}

std::string ElementWriter::exprs(const std::vector<int>& roots, int loop, const std::string& e,
                                 const std::string& in)
{
    return m_emit.statements(roots, loop, e, in,
                             [this, &e](int index) { return loadText(index, e); });
}

std::string ElementWriter::element(int loop, const std::string& e, const std::string& slot,
                                   const std::string& in)
{
    std::string out = exprs(loopRoots(loop), loop, e, in);
    if (loop == int(m_k.reductions.size())) {
        for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
            const Store& st = m_k.stores[s];
            if (!isRowStore(m_k, st)) {
                out += in + "o" + str(std::int64_t(s)) + "[" + slot + "] = " +
                       storeValue(st.type, "t" + str(st.expr)) + ";\n";
            }
        }
    }
    return out;
}

std::string ElementWriter::storeChunk(const std::string& idx, const std::string& guard,
                                      const std::string& in) const
{
    std::string body;
    const std::string in2 = guard.empty() ? in : in + "    ";
    for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
        const Store& st = m_k.stores[s];
        if (isRowStore(m_k, st)) {
            continue;
        }
        const std::string id = str(std::int64_t(s));
        const std::string base = "out" + str(st.access.buffer);
        const std::string o = "o" + id;
        auto scalar = [&](const std::string& at) {
            return at + "#pragma unroll\n" + at + "for (int v = 0; v < " + str(m_v) +
                   "; ++v) {\n" + at + "    const " + idx + " c = c0 + v;\n" + at + "    " +
                   base + "[s" + id + " + " + innerIndexText(m_k, st.access) + "] = " + o +
                   "[v];\n" + at + "}\n";
        };
        if (accessShape(m_k, st.access) != AccessShape::Contiguous || m_v == 1) {
            body += scalar(in2);
            continue;
        }
        const int bytes = m_v * scalarTypeSize(st.type);
        const Unit u = unitFor(bytes);
        const std::string ptr = "reinterpret_cast<" + std::string(u.type) + "*>(" + base + " + s" +
                                id + " + c0)";
        const int per = int(u.fields.size());
        body += in2 + "if (aligned) {\n";
        for (int i = 0; i < bytes / u.bytes; ++i) {
            body += in2 + "    {\n" + in2 + "        " + u.type + " w;\n";
            for (int f = 0; f < per; ++f) {
                body += in2 + "        w" + u.fields[std::size_t(f)] + " = " +
                        toWord(st.type, i * per + f, o, u.bytes == 2) + ";\n";
            }
            body += in2 + "        " + ptr + "[" + str(i) + "] = w;\n" + in2 + "    }\n";
        }
        body += in2 + "} else {\n" + scalar(in2 + "    ") + in2 + "}\n";
    }
    if (guard.empty() || body.empty()) {
        return body;
    }
    return in + "if (" + guard + ") {\n" + body + in + "}\n";
}

std::string ElementWriter::rowStores(const std::string& in)
{
    std::string out;
    for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
        const Store& st = m_k.stores[s];
        if (!isRowStore(m_k, st)) {
            continue;
        }
        out += in + "{\n" + exprs({st.expr}, -1, "0", in + "    ");
        out += in + "    out" + str(st.access.buffer) + "[s" + str(std::int64_t(s)) + "] = " +
               storeValue(st.type, "t" + str(st.expr)) + ";\n" + in + "}\n";
    }
    return out;
}

std::string ElementWriter::outputArrays(const std::string& in) const
{
    std::string out;
    for (std::size_t s = 0; s < m_k.stores.size(); ++s) {
        const Store& st = m_k.stores[s];
        if (!isRowStore(m_k, st)) {
            out += in + storageDecl(st.type) + " o" + str(std::int64_t(s)) + "[" + str(m_v) +
                   "];\n";
        }
    }
    return out;
}

} // namespace fxs::codegen::detail
