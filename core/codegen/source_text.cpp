#include "core/codegen/source_text.h"

#include <algorithm>
#include <iterator>
#include <cmath>
#include <limits>

namespace fxs::codegen::source {
namespace {

// C++20 keywords and alternative tokens, preprocessor words, and the CUDA built-ins a kernel
// source must not redeclare.
constexpr std::string_view kReserved[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "atomic_cancel", "atomic_commit",
    "atomic_noexcept", "auto", "bitand", "bitor", "blockDim", "blockIdx", "bool", "break", "case",
    "catch", "char", "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return",
    "co_yield", "compl", "concept", "const", "const_cast", "consteval", "constexpr", "constinit",
    "continue", "decltype", "default", "define", "defined", "delete", "do", "double",
    "dynamic_cast", "elif", "else", "endif", "enum", "error", "explicit", "export", "extern",
    "false", "float", "for", "friend", "goto", "gridDim", "if", "ifdef", "ifndef", "include",
    "inline", "int", "line", "long", "main", "mutable", "namespace", "new", "noexcept", "not",
    "not_eq", "nullptr", "operator", "or", "or_eq", "pragma", "private", "protected", "public",
    "reflexpr", "register", "reinterpret_cast", "requires", "return", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "synchronized",
    "template", "this", "thread_local", "threadIdx", "throw", "true", "try", "typedef", "typeid",
    "typename", "undef", "union", "unsigned", "using", "virtual", "void", "volatile", "warpSize",
    "wchar_t", "while", "xor", "xor_eq"};

bool reserved(std::string_view s)
{
    return std::find(std::begin(kReserved), std::end(kReserved), s) != std::end(kReserved);
}

bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// FNV-1a, 64 bits: a stable name for text that is not an identifier (not a security digest:
// the name only has to be a valid identifier; the text never reaches the source).
std::uint64_t fnv1a(std::string_view s)
{
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : s) {
        h = (h ^ c) * 1099511628211ULL;
    }
    return h;
}

bool keptAsIs(unsigned char c)
{
    return c >= 0x20 && c <= 0x7e && c != '\\' && c != '"' && c != '\'' && c != '?' && c != '*';
}

void appendOctal(std::string& out, unsigned char c)
{
    out += '\\';
    out += char('0' + ((c >> 6) & 7));
    out += char('0' + ((c >> 3) & 7));
    out += char('0' + (c & 7));
}

} // namespace

bool isIdentifier(std::string_view s)
{
    if (s.empty() || s.size() > 128 || !alpha(s[0])) {
        return false;
    }
    if (!std::all_of(s.begin(), s.end(), [](char c) { return alpha(c) || digit(c); })) {
        return false;
    }
    if (s.find("__") != std::string_view::npos ||
        (s[0] == '_' && s.size() > 1 && s[1] >= 'A' && s[1] <= 'Z')) {
        return false;
    }
    return !reserved(s);
}

std::string identifier(std::string_view text)
{
    if (isIdentifier(text)) {
        return std::string(text);
    }
    static const char* const kHex = "0123456789abcdef";
    std::uint64_t h = fnv1a(text);
    std::string s = "fxs_id_";
    for (int i = 15; i >= 0; --i) {
        s += kHex[(h >> (4 * i)) & 15];
    }
    return s;
}

std::string escapeText(std::string_view text, std::size_t maxBytes)
{
    std::string out;
    const std::size_t n = std::min(text.size(), maxBytes);
    out.reserve(n + 8);
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (keptAsIs(c)) {
            out += char(c);
        } else {
            appendOctal(out, c);
        }
    }
    if (n < text.size()) {
        out += "...";
    }
    return out;
}

std::string comment(std::string_view text) { return "// " + escapeText(text) + "\n"; }

std::string stringLiteral(std::string_view text, std::size_t maxBytes)
{
    // escapeText marks a cut with "..." inside the literal, which is what a reader should see.
    return "\"" + escapeText(text, maxBytes) + "\"";
}

std::string intLiteral(std::int64_t v)
{
    if (v == std::numeric_limits<std::int64_t>::min()) {
        return "(-INT64_C(9223372036854775807) - 1)";
    }
    return "INT64_C(" + std::to_string(v) + ")";
}

std::int64_t saturatingInt(double v)
{
    if (std::isnan(v)) {
        return 0;
    }
    // 2^63 is exactly representable; anything at or above it does not fit.
    constexpr double kTwo63 = 9223372036854775808.0;
    if (v >= kTwo63) {
        return std::numeric_limits<std::int64_t>::max();
    }
    if (v < -kTwo63) {
        return std::numeric_limits<std::int64_t>::min();
    }
    return static_cast<std::int64_t>(v);
}

std::optional<std::string> sourceProblem(std::string_view source)
{
    for (std::size_t i = 0; i < source.size(); ++i) {
        const auto c = static_cast<unsigned char>(source[i]);
        const bool ok = (c >= 0x20 && c <= 0x7e) || c == '\n' || c == '\t';
        if (!ok) {
            return "byte " + std::to_string(int(c)) + " at offset " + std::to_string(i) +
                   " is not printable ASCII";
        }
        if (c == '?' && i + 1 < source.size() && source[i + 1] == '?') {
            return "a trigraph sequence \"??\" at offset " + std::to_string(i);
        }
        if (c == '\\' && i + 1 < source.size() && source[i + 1] == '\n') {
            return "a backslash-newline (line splice) at offset " + std::to_string(i);
        }
    }
    return std::nullopt;
}

} // namespace fxs::codegen::source
