#include "core/io/py_lexer.h"

#include "core/util/strings.h"

namespace fxs::io::detail {

namespace {

// Character classes by table: the lexer touches every byte of every graph payload.
struct CharTable {
    bool identStart[256] = {};
    bool identChar[256] = {};
    constexpr CharTable()
    {
        for (int c = 0; c < 256; ++c) {
            identStart[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
            identChar[c] = identStart[c] || (c >= '0' && c <= '9');
        }
    }
};
constexpr CharTable kChars;

bool isIdentStart(unsigned char c) { return kChars.identStart[c]; }

bool isIdentChar(unsigned char c) { return kChars.identChar[c]; }

bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool isStringPrefix(std::string_view s)
{
    if (s.empty() || s.size() > 2) {
        return false;
    }
    for (char c : s) {
        if (std::string_view("rRbBuUfF").find(c) == std::string_view::npos) {
            return false;
        }
    }
    return true;
}

// End of a quoted string starting at i (the quote); npos when unterminated.
std::size_t stringEnd(std::string_view line, std::size_t i)
{
    const char quote = line[i];
    for (std::size_t k = i + 1; k < line.size(); ++k) {
        if (line[k] == '\\') {
            ++k;
        } else if (line[k] == quote) {
            return k + 1;
        }
    }
    return std::string_view::npos;
}

std::size_t numberEnd(std::string_view line, std::size_t i, bool& isFloat)
{
    const std::size_t n = line.size();
    if (line[i] == '0' && i + 1 < n && std::string_view("xXoObB").find(line[i + 1]) != std::string_view::npos) {
        std::size_t k = i + 2;
        while (k < n && (isIdentChar(static_cast<unsigned char>(line[k])))) {
            ++k;
        }
        return k;
    }
    std::size_t k = i;
    while (k < n && (isDigit(line[k]) || line[k] == '_')) {
        ++k;
    }
    if (k < n && line[k] == '.') {
        isFloat = true;
        ++k;
        while (k < n && (isDigit(line[k]) || line[k] == '_')) {
            ++k;
        }
    }
    if (k < n && (line[k] == 'e' || line[k] == 'E')) {
        std::size_t e = k + 1;
        if (e < n && (line[e] == '+' || line[e] == '-')) {
            ++e;
        }
        if (e < n && isDigit(line[e])) {
            isFloat = true;
            k = e;
            while (k < n && isDigit(line[k])) {
                ++k;
            }
        }
    }
    if (k < n && (line[k] == 'j' || line[k] == 'J')) {
        isFloat = true; // complex literal: kept as text by the lowering
        ++k;
    }
    return k;
}

// Length of the operator at the start of rest (0 if none). Switches, not string compares: this
// runs for every punctuation character of every graph payload.
std::size_t opLength(std::string_view rest)
{
    const char c = rest[0];
    const char d = rest.size() > 1 ? rest[1] : '\0';
    const char e = rest.size() > 2 ? rest[2] : '\0';
    switch (c) {
    case '(': case ')': case '[': case ']': case '{': case '}': case ',': case ';': case '~':
        return 1;
    case '@': case '%': case '&': case '|': case '^': return d == '=' ? 2 : 1; // `@=` ...
    case '.': return d == '.' && e == '.' ? 3 : 1;
    case '*':
    case '/': return d == c ? (e == '=' ? 3 : 2) : (d == '=' ? 2 : 1);
    case '<':
    case '>': return d == c ? (e == '=' ? 3 : 2) : (d == '=' ? 2 : 1);
    case '=': return d == '=' ? 2 : 1;
    case '!': return d == '=' ? 2 : 0;
    case '-': return d == '>' || d == '=' ? 2 : 1;
    case '+': return d == '=' ? 2 : 1;
    case ':': return d == '=' ? 2 : 1;
    default: return 0;
    }
}

// End of the token that starts at line[i], with its kind; npos when none can start there (or a
// string is unterminated).
std::size_t tokenEnd(std::string_view line, std::size_t i, TokKind& kind)
{
    const std::size_t n = line.size();
    const char c = line[i];
    if (isIdentStart(static_cast<unsigned char>(c))) {
        std::size_t end = i + 1;
        while (end < n && isIdentChar(static_cast<unsigned char>(line[end]))) {
            ++end;
        }
        kind = TokKind::Name;
        if (end < n && (line[end] == '\'' || line[end] == '"') &&
            isStringPrefix(line.substr(i, end - i))) {
            kind = TokKind::String; // r'...', b"..."
            return stringEnd(line, end);
        }
        return end;
    }
    if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(line[i + 1]))) {
        bool isFloat = c == '.';
        const std::size_t end = numberEnd(line, i, isFloat);
        kind = isFloat ? TokKind::Float : TokKind::Int;
        return end;
    }
    if (c == '\'' || c == '"') {
        kind = TokKind::String;
        return stringEnd(line, i);
    }
    kind = TokKind::Op;
    const std::size_t len = opLength(line.substr(i));
    return len == 0 ? std::string_view::npos : i + len;
}

} // namespace

bool lexLine(std::string_view line, int lineNo, std::vector<PyToken>& out, LexState& st)
{
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
            ++i;
            continue;
        }
        if (c == '#') {
            // A comment belongs to the last token before it (on this line, or the line before).
            if (!out.empty()) {
                out.back().comment = trim(line.substr(i + 1));
            }
            return true;
        }
        PyToken t;
        t.line = lineNo;
        const std::size_t end = tokenEnd(line, i, t.kind);
        if (end == std::string_view::npos) {
            st.errorText = line.substr(i);
            return false;
        }
        t.text = line.substr(i, end - i);
        if (t.kind == TokKind::Op && (c == '(' || c == '[' || c == '{')) {
            ++st.depth;
        } else if (t.kind == TokKind::Op && (c == ')' || c == ']' || c == '}') && st.depth > 0) {
            --st.depth;
        }
        out.push_back(t);
        i = end;
    }
    return true;
}

} // namespace fxs::io::detail
