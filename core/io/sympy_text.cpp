#include "core/io/sympy_text.h"

#include "core/util/strings.h"

#include <cctype>
#include <optional>
#include <vector>

namespace fxs::io {
namespace {

constexpr int kMaxDepth = 64;

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// A srepr call tree: `Name(arg, key=value, ...)`, a quoted string or a bare literal.
struct Term {
    std::string name;       // function name, the string's text, or the literal
    bool call = false;
    bool quoted = false;
    std::vector<Term> args; // positional arguments only (keywords are assumptions)
};

class Reader {
public:
    explicit Reader(std::string_view text) : m_text(text) {}

    std::optional<Term> term(int depth)
    {
        skipSpace();
        if (depth > kMaxDepth || m_pos >= m_text.size()) {
            return std::nullopt;
        }
        if (m_text[m_pos] == '\'' || m_text[m_pos] == '"') {
            return quoted();
        }
        Term t;
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() &&
               (isIdentChar(m_text[m_pos]) || m_text[m_pos] == '.' || m_text[m_pos] == '-')) {
            ++m_pos;
        }
        if (m_pos == start) {
            return std::nullopt;
        }
        t.name = std::string(m_text.substr(start, m_pos - start));
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '(') {
            ++m_pos;
            t.call = true;
            if (!arguments(t, depth)) {
                return std::nullopt;
            }
        }
        return t;
    }

    bool atEnd()
    {
        skipSpace();
        return m_pos == m_text.size();
    }

private:
    std::optional<Term> quoted()
    {
        const char quote = m_text[m_pos++];
        const std::size_t end = m_text.find(quote, m_pos);
        if (end == std::string_view::npos) {
            return std::nullopt;
        }
        Term t;
        t.quoted = true;
        t.name = std::string(m_text.substr(m_pos, end - m_pos));
        m_pos = end + 1;
        return t;
    }

    bool arguments(Term& t, int depth)
    {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ')') {
            ++m_pos;
            return true;
        }
        while (true) {
            auto arg = term(depth + 1);
            if (!arg) {
                return false;
            }
            skipSpace();
            const bool keyword = m_pos < m_text.size() && m_text[m_pos] == '=';
            if (keyword) { // `positive=True`: an assumption, not a value
                ++m_pos;
                if (!term(depth + 1)) {
                    return false;
                }
                skipSpace();
            } else {
                t.args.push_back(std::move(*arg));
            }
            if (m_pos >= m_text.size()) {
                return false;
            }
            const char c = m_text[m_pos++];
            if (c == ')') {
                return true;
            }
            if (c != ',') {
                return false;
            }
        }
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() && m_text[m_pos] == ' ') {
            ++m_pos;
        }
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

std::string print(const Term& t);

bool compound(const std::string& s)
{
    return s.find(" + ") != std::string::npos || s.find(" - ") != std::string::npos;
}

std::string joinArgs(const Term& t, std::string_view sep, bool parenthesize)
{
    std::string out;
    for (std::size_t i = 0; i < t.args.size(); ++i) {
        std::string a = print(t.args[i]);
        if (parenthesize && compound(a)) {
            a = "(" + a + ")";
        }
        if (i > 0 && sep == " + " && startsWith(a, "-")) {
            out += " - " + a.substr(1);
            continue;
        }
        out += (i > 0 ? std::string(sep) : std::string()) + a;
    }
    return out;
}

std::string print(const Term& t)
{
    if (t.quoted || !t.call) {
        if (t.name == "NegativeOne") {
            return "-1";
        }
        if (t.name == "One" || t.name == "Zero") {
            return t.name == "One" ? "1" : "0";
        }
        return t.name == "Infinity" ? "oo" : t.name;
    }
    const auto n = t.args.size();
    if ((t.name == "Symbol" || t.name == "Integer" || t.name == "Float") && n == 1) {
        return t.args[0].name;
    }
    if (t.name == "Rational" && n == 2) {
        return "(" + print(t.args[0]) + "/" + print(t.args[1]) + ")";
    }
    if (t.name == "Add" && n > 0) {
        return joinArgs(t, " + ", false);
    }
    if (t.name == "Mul" && n > 0) {
        return joinArgs(t, "*", true);
    }
    if (t.name == "Pow" && n == 2) {
        return joinArgs(t, "**", true);
    }
    if (t.name == "FloorDiv" && n == 2) {
        return "(" + joinArgs(t, "//", true) + ")";
    }
    return t.name + "(" + joinArgs(t, ", ", false) + ")";
}

} // namespace

std::string sympyToInfix(std::string_view expr)
{
    const std::string_view text = trim(expr);
    const auto paren = text.find('(');
    if (text.empty() || paren == std::string_view::npos ||
        !std::isupper(static_cast<unsigned char>(text.front()))) {
        return std::string(text);
    }
    Reader reader(text);
    auto t = reader.term(0);
    if (!t || !reader.atEnd()) {
        return std::string(text);
    }
    return print(*t);
}

} // namespace fxs::io
