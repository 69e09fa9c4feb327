#include "core/codegen/expr_table.h"

#include "core/codegen/source_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace fxs::codegen::detail {
namespace {

// Math library functions, by primitive: the double name (the float one adds an "f") and the
// arity. libmvec has SIMD forms of both precisions of all of them; CUDA has device forms of the
// same names.
const std::map<std::string_view, std::pair<const char*, int>> kMathCalls = {
    {"exp", {"exp", 1}},     {"exp2", {"exp2", 1}},   {"expm1", {"expm1", 1}},
    {"log", {"log", 1}},     {"log2", {"log2", 1}},   {"log10", {"log10", 1}},
    {"log1p", {"log1p", 1}}, {"sin", {"sin", 1}},     {"cos", {"cos", 1}},
    {"tan", {"tan", 1}},     {"asin", {"asin", 1}},   {"acos", {"acos", 1}},
    {"atan", {"atan", 1}},   {"sinh", {"sinh", 1}},   {"cosh", {"cosh", 1}},
    {"asinh", {"asinh", 1}}, {"acosh", {"acosh", 1}}, {"atanh", {"atanh", 1}},
    {"erf", {"erf", 1}},     {"erfc", {"erfc", 1}},   {"tanh", {"tanh", 1}},
    {"pow", {"pow", 2}},     {"atan2", {"atan2", 2}}};

// Templates for the floating forms; {0} {1} {2} are operands, {f} the precision suffix ("f" for
// float, "" for double) of literals and math functions, $name a dialect token ($name{f} is looked
// up with the suffix: "$fabsf", "$fabs"). Primitives that call math functions inside (sigmoid:
// exp) list them in kUses.
const std::map<std::string_view, const char*> kFloatOps = {
    {"add", "({0} + {1})"}, {"sub", "({0} - {1})"}, {"mul", "({0} * {1})"},
    {"div", "({0} / {1})"}, {"neg", "(-{0})"}, {"abs", "$fabs{f}({0})"},
    {"relu", "({0} < 0.0{f} ? 0.0{f} : {0})"},
    {"maximum", "(({0} > {1} || {0} != {0}) ? {0} : {1})"},
    {"minimum", "(({0} < {1} || {0} != {0}) ? {0} : {1})"},
    {"fmax", "$fmax{f}({0}, {1})"}, {"fmin", "$fmin{f}({0}, {1})"},
    {"clamp_lo", "({0} < {1} ? {1} : {0})"}, {"clamp_hi", "({0} > {1} ? {1} : {0})"},
    {"sigmoid", "(1.0{f} / (1.0{f} + exp{f}(-{0})))"},
    {"silu", "({0} / (1.0{f} + exp{f}(-{0})))"},
    {"gelu", "(0.5{f} * {0} * (1.0{f} + erf{f}({0} * 0.70710678118654752{f})))"},
    {"gelu_tanh", "(0.5{f} * {0} * (1.0{f} + tanh{f}(0.79788456080286536{f} * ({0} + "
                  "0.044715{f} * {0} * {0} * {0}))))"},
    {"sqrt", "$sqrt{f}({0})"}, {"rsqrt", "(1.0{f} / $sqrt{f}({0}))"},
    {"reciprocal", "(1.0{f} / {0})"}, {"round_f16", "$round_f16({0})"},
    {"round_bf16", "fxs_bf16_load(fxs_bf16_store({0}))"},
    {"sign", "({0} > 0.0{f} ? 1.0{f} : ({0} < 0.0{f} ? -1.0{f} : {0}))"},
    {"floor", "$floor{f}({0})"}, {"ceil", "$ceil{f}({0})"},
    {"trunc", "$trunc{f}({0})"}, {"round", "$nearbyint{f}({0})"},
    {"isnan", "({0} != {0})"}, {"isinf", "($fabs{f}({0}) == $inf{f})"},
    {"isfinite", "($fabs{f}({0}) < $inf{f})"},
    {"leaky_relu", "({0} < 0.0{f} ? {0} * {1} : {0})"},
    {"sigmoid_backward", "({0} * (1.0{f} - {1}) * {1})"},
    {"tanh_backward", "({0} * (1.0{f} - {1} * {1}))"},
    {"gelu_backward", "({0} * (0.5{f} * (1.0{f} + erf{f}({1} * 0.70710678118654752{f})) + {1} * "
                      "exp{f}(-0.5{f} * {1} * {1}) * 0.39894228040143268{f}))"}};
const std::map<std::string_view, std::vector<const char*>> kUses = {
    {"sigmoid", {"exp"}}, {"silu", {"exp"}}, {"gelu", {"erf"}}, {"gelu_tanh", {"tanh"}},
    {"gelu_backward", {"erf", "exp"}}};
// Integer and bool forms (and the comparisons/logic, which are the same for every type).
const std::map<std::string_view, const char*> kIntOps = {
    {"add", "({0} + {1})"}, {"sub", "({0} - {1})"}, {"mul", "({0} * {1})"},
    {"neg", "(-{0})"}, {"abs", "({0} < 0 ? -{0} : {0})"}, {"relu", "({0} < 0 ? 0 : {0})"},
    {"maximum", "({0} > {1} ? {0} : {1})"}, {"minimum", "({0} < {1} ? {0} : {1})"},
    {"clamp_lo", "({0} < {1} ? {1} : {0})"}, {"clamp_hi", "({0} > {1} ? {1} : {0})"},
    {"sign", "(({0} > 0) - ({0} < 0))"}, {"floor", "{0}"}, {"ceil", "{0}"}, {"trunc", "{0}"},
    {"round", "{0}"}, {"isnan", "false"}, {"isinf", "false"}, {"isfinite", "true"},
    {"bitwise_not", "(~{0})"}, {"bitwise_and", "({0} & {1})"}, {"bitwise_or", "({0} | {1})"},
    {"bitwise_xor", "({0} ^ {1})"}};
const std::map<std::string_view, const char*> kAnyOps = {
    {"eq", "({0} == {1})"}, {"ne", "({0} != {1})"}, {"lt", "({0} < {1})"},
    {"le", "({0} <= {1})"}, {"gt", "({0} > {1})"}, {"ge", "({0} >= {1})"},
    {"logical_and", "({0} && {1})"}, {"logical_or", "({0} || {1})"},
    {"logical_xor", "({0} != {1})"}, {"logical_not", "(!{0})"},
    {"where", "({0} ? {1} : {2})"}};

const std::vector<std::string_view> kTokens = {
    "$fabsf",  "$fabs",  "$fmaxf",      "$fmax",      "$fminf", "$fmin", "$sqrtf",
    "$sqrt",   "$floorf", "$floor",     "$ceilf",     "$ceil",  "$truncf", "$trunc",
    "$nearbyintf", "$nearbyint", "$inff", "$inf",     "$nanf",  "$nan",  "$round_f16"};

// The suffix of float math ("expf", "1.0f", "$inff") or of double math ("").
std::string_view suffixOf(ComputeType t) { return t == ComputeType::Double ? "" : "f"; }

bool isTokenChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Fills {0}..{9} with operands, {f} with the precision suffix and $name tokens with the
// dialect's spelling ($name{f}: the spelling of $name plus the suffix, e.g. "$fabsf").
std::string fill(std::string_view tmpl, const std::vector<std::string>& args, const Dialect& d,
                 std::string_view suffix = "f")
{
    std::string out;
    for (std::size_t i = 0; i < tmpl.size(); ++i) {
        if (tmpl[i] == '{' && i + 2 < tmpl.size() && tmpl[i + 2] == '}') {
            out += tmpl[i + 1] == 'f' ? std::string(suffix)
                                      : args.at(std::size_t(tmpl[i + 1] - '0'));
            i += 2;
        } else if (tmpl[i] == '$') {
            std::size_t end = i + 1;
            while (end < tmpl.size() && isTokenChar(tmpl[end])) {
                ++end;
            }
            std::string token(tmpl.substr(i, end - i));
            if (tmpl.substr(end, 3) == "{f}") {
                token += suffix;
                end += 3;
            }
            out += d.spell.at(token);
            i = end - 1;
        } else {
            out += tmpl[i];
        }
    }
    return out;
}

std::vector<std::int64_t> prefixProducts(const std::vector<std::int64_t>& dims)
{
    std::vector<std::int64_t> p(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;) {
        p[i - 1] = p[i] * dims[i];
    }
    return p;
}

} // namespace

const std::vector<std::string_view>& dialectTokens() { return kTokens; }

const char* computeName(ComputeType t)
{
    switch (t) {
    case ComputeType::Float: return "float";
    case ComputeType::Double: return "double";
    case ComputeType::Int64: return "int64_t";
    case ComputeType::Bool: return "bool";
    }
    return "void";
}

std::string shapeText(const std::vector<std::int64_t>& v)
{
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(v[i]);
    }
    return s + "]";
}

// The float v rounds to, without the undefined behaviour of a cast beyond FLT_MAX: from
// FLT_MAX + half an ulp (2^128 - 2^103) on, the nearest float is infinity.
static double nearestFloat(double v)
{
    constexpr double kFloatMax = 3.4028234663852886e38;
    constexpr double kToInfinity = 3.4028235677973366e38;
    if (std::isnan(v) || std::fabs(v) <= kFloatMax) {
        return std::isnan(v) ? v : double(static_cast<float>(v));
    }
    const double big = std::fabs(v) >= kToInfinity ? HUGE_VAL : kFloatMax;
    return v < 0 ? -big : big;
}

std::string constText(double v, ComputeType t, const Dialect& d)
{
    if (t == ComputeType::Bool) {
        return v != 0 ? "true" : "false";
    }
    if (t == ComputeType::Int64) {
        return source::intLiteral(source::saturatingInt(v));
    }
    if (t == ComputeType::Float) {
        v = nearestFloat(v); // the value the kernel computes with
    }
    const std::string_view f = suffixOf(t);
    if (std::isnan(v)) {
        return fill("$nan{f}", {}, d, f);
    }
    if (std::isinf(v)) {
        return fill(v > 0 ? "$inf{f}" : "(-$inf{f})", {}, d, f);
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, t == ComputeType::Double ? "%.17g" : "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) {
        s += ".0";
    }
    return "(" + s + std::string(f) + ")";
}

std::string kernelComment(const Kernel& k)
{
    std::string s = source::identifier(k.name) + ": covers ";
    if (k.canonicalNodes.empty()) {
        return source::comment(s + std::to_string(k.nodes.size()) + " FX node(s)");
    }
    s += "FX nodes";
    for (std::size_t i = 0; i < k.canonicalNodes.size(); ++i) {
        s += (i ? ", v" : " v") + std::to_string(k.canonicalNodes[i]);
    }
    return source::comment(s);
}

std::string infinityText(ComputeType t, const Dialect& d)
{
    return fill("$inf{f}", {}, d, suffixOf(t));
}

std::string nanText(ComputeType t, const Dialect& d) { return fill("$nan{f}", {}, d, suffixOf(t)); }

std::optional<std::string> opText(const Kernel& k, const Expr& e,
                                  const std::vector<std::string>& a, const Dialect& d,
                                  MathCalls& calls)
{
    if (e.op == "cast") {
        const ComputeType from = k.exprs.at(std::size_t(e.args[0])).type;
        if (e.type == ComputeType::Bool && from != ComputeType::Bool) {
            return "(" + a[0] + " != 0)";
        }
        return std::string("(") + computeName(e.type) + ")(" + a[0] + ")";
    }
    if (auto it = kAnyOps.find(e.op); it != kAnyOps.end()) {
        return fill(it->second, a, d);
    }
    // The precision of a floating op: its own type, or its operand's for predicates (isnan).
    const ComputeType ft =
        isFloating(e.type) || e.args.empty() ? e.type : k.exprs.at(std::size_t(e.args[0])).type;
    if (isFloating(ft)) {
        const std::string_view f = suffixOf(ft);
        if (auto m = kMathCalls.find(e.op); m != kMathCalls.end()) {
            calls.insert({m->second.first, ft});
            return std::string(m->second.first) + std::string(f) + "(" + a[0] +
                   (a.size() > 1 ? ", " + a[1] : "") + ")";
        }
        if (auto it = kFloatOps.find(e.op); it != kFloatOps.end()) {
            if (auto u = kUses.find(e.op); u != kUses.end()) {
                for (const char* fn : u->second) {
                    calls.insert({fn, ft});
                }
            }
            return fill(it->second, a, d, f);
        }
    }
    if (auto it = kIntOps.find(e.op); it != kIntOps.end()) {
        return fill(it->second, a, d);
    }
    return std::nullopt;
}

std::string mathCallName(const MathCall& call)
{
    return call.first + std::string(suffixOf(call.second));
}

int mathCallArity(const MathCall& call)
{
    for (const auto& [op, fn] : kMathCalls) {
        if (call.first == fn.first) {
            return fn.second;
        }
    }
    return 1;
}

std::string rowBaseText(const Kernel& k, const Access& a)
{
    if (k.flat) {
        return std::to_string(a.offset);
    }
    const int outerDims = int(k.shape.size()) - k.innerDims;
    const std::vector<std::int64_t> outer(k.shape.begin(), k.shape.begin() + outerDims);
    const auto prod = prefixProducts(outer);
    std::string s = std::to_string(a.offset);
    for (int d = 0; d < outerDims; ++d) {
        if (a.strides[std::size_t(d)] == 0 || outer[std::size_t(d)] == 1) {
            continue;
        }
        std::string idx = "r";
        if (prod[std::size_t(d)] != 1) {
            idx = "(r / " + std::to_string(prod[std::size_t(d)]) + ")";
        }
        if (d > 0) {
            idx = "(" + idx + " % " + std::to_string(outer[std::size_t(d)]) + ")";
        }
        s += " + " + idx + " * " + std::to_string(a.strides[std::size_t(d)]);
    }
    return s;
}

std::string innerIndexText(const Kernel& k, const Access& a)
{
    if (k.flat) {
        return std::all_of(a.strides.begin(), a.strides.end(), [](auto s) { return s == 0; })
                   ? ""
                   : "c";
    }
    const std::size_t first = k.shape.size() - std::size_t(k.innerDims);
    const std::vector<std::int64_t> inner(k.shape.begin() + std::ptrdiff_t(first), k.shape.end());
    const auto prod = prefixProducts(inner);
    bool zero = true;
    bool contiguous = true;
    for (std::size_t j = 0; j < inner.size(); ++j) {
        const std::int64_t s = a.strides[first + j];
        zero = zero && (s == 0 || inner[j] == 1);
        contiguous = contiguous && (inner[j] == 1 || s == prod[j]);
    }
    if (zero) {
        return "";
    }
    if (contiguous) {
        return "c";
    }
    std::string s;
    for (std::size_t j = 0; j < inner.size(); ++j) {
        const std::int64_t st = a.strides[first + j];
        if (st == 0 || inner[j] == 1) {
            continue;
        }
        std::string idx = prod[j] == 1 ? "c" : "(c / " + std::to_string(prod[j]) + ")";
        if (j > 0) {
            idx = "(" + idx + " % " + std::to_string(inner[j]) + ")";
        }
        s += (s.empty() ? "" : " + ") + idx + " * " + std::to_string(st);
    }
    return s;
}

std::string indexDigitText(const Kernel& k, int d, const std::string& flat)
{
    const std::size_t n = k.shape.size();
    if (d < 0 || std::size_t(d) >= n || k.shape[std::size_t(d)] == 1) {
        return "0";
    }
    const std::size_t outerDims = k.flat ? 0 : n - std::size_t(k.innerDims);
    const bool inner = k.flat || std::size_t(d) >= outerDims;
    const std::size_t first = inner ? outerDims : 0;
    const std::size_t last = inner ? n : outerDims;
    const std::vector<std::int64_t> dims(k.shape.begin() + std::ptrdiff_t(first),
                                         k.shape.begin() + std::ptrdiff_t(last));
    const auto prod = prefixProducts(dims);
    const std::size_t j = std::size_t(d) - first;
    const std::string var = k.flat ? flat : inner ? "c" : "r";
    std::string idx = prod[j] == 1 ? var : "(" + var + " / " + std::to_string(prod[j]) + ")";
    if (j > 0) {
        idx = "(" + idx + " % " + std::to_string(dims[j]) + ")";
    }
    return idx;
}

std::string guardText(const Kernel& k, const Access& a, const std::string& flat)
{
    std::string s;
    for (const Guard& g : a.guards) {
        const std::int64_t size = k.shape.at(std::size_t(g.dim));
        const std::string digit = indexDigitText(k, g.dim, flat);
        if (g.lo > 0) {
            s += (s.empty() ? "" : " && ") + digit + " >= " + std::to_string(g.lo);
        }
        if (g.hi < size) {
            s += (s.empty() ? "" : " && ") + digit + " < " + std::to_string(g.hi);
        }
    }
    return s.empty() ? s : "(" + s + ")";
}

std::string guardedLoadText(const Kernel& k, const Load& l, const std::string& value,
                            const std::string& flat, const Dialect& d)
{
    const std::string guard = guardText(k, l.access, flat);
    if (guard.empty()) {
        return value;
    }
    const ComputeType t = computeTypeOf(l.type);
    const std::string fill = l.access.fill == 0 ? "(" + std::string(computeName(t)) + ")0"
                                                : constText(l.access.fill, t, d);
    return "(" + guard + " ? " + value + " : " + fill + ")";
}

} // namespace fxs::codegen::detail
