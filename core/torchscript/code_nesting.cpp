#include "core/torchscript/code_nesting.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace fxs::torchscript {
namespace {

// Where a string literal starting at i ends (one past its closing quote, or where an unclosed
// one gives up: end of line for single quotes, end of source for triple quotes). Backslashes
// escape the next character, which also holds for raw strings as far as finding the end goes.
std::size_t skipString(std::string_view s, std::size_t i, int& line)
{
    const char quote = s[i];
    const bool triple = s.substr(i, 3) == std::string(3, quote);
    i += triple ? 3 : 1;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '\\' && i + 1 < s.size()) {
            line += s[i + 1] == '\n' ? 1 : 0;
            i += 2;
            continue;
        }
        if (c == '\n' && !triple) {
            return i; // the newline is counted by the caller
        }
        line += c == '\n' ? 1 : 0;
        if (c == quote && (!triple || s.substr(i, 3) == std::string(3, quote))) {
            return i + (triple ? 3 : 1);
        }
        ++i;
    }
    return i;
}

bool isWordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

// One past a number starting at i: digits, letters, '_' and '.', and a sign after an exponent
// (`1e-05` is one token, not a subtraction).
std::size_t skipNumber(std::string_view s, std::size_t i)
{
    while (i < s.size()) {
        const char c = s[i];
        const bool exponentSign = (c == '-' || c == '+') && (s[i - 1] == 'e' || s[i - 1] == 'E');
        if (!isWordChar(c) && c != '.' && !exponentSign) {
            break;
        }
        ++i;
    }
    return i;
}

bool isOperatorWord(std::string_view w)
{
    return w == "not" || w == "and" || w == "or" || w == "is" || w == "in" || w == "if" ||
           w == "else" || w == "lambda" || w == "await";
}

// The bracket and operator-chain counters of one source.
class Scanner {
public:
    Scanner(int cap, int expressionCap) : m_cap(cap), m_expressionCap(expressionCap) {}

    std::optional<DeepNesting> run(std::string_view source);

private:
    void open(int line)
    {
        if (m_operand) {
            chain(line); // a call or subscript applies to what precedes it
        }
        m_chains.push_back(0);
        m_bracketFound.depth = std::max(m_bracketFound.depth, ++m_depth);
        m_bracketFound.line = m_depth > m_cap && m_bracketFound.line == 0 ? line
                                                                          : m_bracketFound.line;
        note(line);
        m_operand = false;
    }
    void close()
    {
        if (m_depth > 0) { // unbalanced closers are LibTorch's to report
            --m_depth;
            m_sum -= m_chains.back();
            m_chains.pop_back();
        }
        m_operand = true;
    }
    void chain(int line)
    {
        ++m_chains.back();
        ++m_sum;
        note(line);
        m_operand = false;
    }
    void restart() // a new sibling at this level: `,` `:` `=` `;` or a new statement
    {
        m_sum -= m_chains.back();
        m_chains.back() = 0;
        m_operand = false;
    }
    void note(int line)
    {
        const int expression = m_depth + m_sum;
        m_exprMax = std::max(m_exprMax, expression);
        if (expression > m_expressionCap && m_exprFound.line == 0) {
            m_exprFound = {DeepNesting::Kind::Operators, line, expression};
        }
    }
    void punctuation(std::string_view s, std::size_t i, int line);

    int m_cap;
    int m_expressionCap;
    int m_depth = 0;
    int m_sum = 0;                 // operators chained over all open levels
    std::vector<int> m_chains{0};  // per level: operators since its last separator
    bool m_operand = false;        // the last token was a name, number, string or closer
    DeepNesting m_bracketFound;
    DeepNesting m_exprFound;
    int m_exprMax = 0;
};

void Scanner::punctuation(std::string_view s, std::size_t i, int line)
{
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    const char prev = i > 0 ? s[i - 1] : '\0';
    if (c == ',' || c == ':' || c == ';') {
        restart();
    } else if (c == '=' && next != '=' && std::string_view("=!<>").find(prev) ==
                                              std::string_view::npos) {
        restart(); // assignment or keyword argument (the `=` of `==`, `<=` ... is an operator)
    } else if (c == '\n') {
        if (m_depth == 0 && prev != '\\') {
            restart();
        }
    } else if (std::string_view("+-*/%@&|^~<>!.=").find(c) != std::string_view::npos) {
        // One count per operator character: `**` counts twice, an overestimate on the safe side.
        chain(line);
    }
}

std::optional<DeepNesting> Scanner::run(std::string_view source)
{
    int line = 1;
    for (std::size_t i = 0; i < source.size();) {
        const char c = source[i];
        if (c == '\'' || c == '"') {
            i = skipString(source, i, line);
            m_operand = true;
            continue;
        }
        if (c == '#') {
            i = std::min(source.find('\n', i), source.size());
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
            i = skipNumber(source, i);
            m_operand = true;
            continue;
        }
        if (isWordChar(c)) {
            const std::size_t start = i;
            while (i < source.size() && isWordChar(source[i])) {
                ++i;
            }
            const bool op = isOperatorWord(source.substr(start, i - start));
            if (op) {
                chain(line);
            }
            m_operand = !op;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            open(line);
        } else if (c == ')' || c == ']' || c == '}') {
            close();
        } else if (c != ' ' && c != '\t' && c != '\r' && c != '\\') {
            punctuation(source, i, line);
        }
        line += c == '\n' ? 1 : 0;
        ++i;
    }
    if (m_bracketFound.line != 0) {
        return m_bracketFound;
    }
    if (m_exprFound.line == 0) {
        return std::nullopt;
    }
    m_exprFound.depth = m_exprMax;
    return m_exprFound;
}

} // namespace

std::optional<DeepNesting> findDeepNesting(std::string_view source, int cap, int expressionCap)
{
    return Scanner(cap, expressionCap).run(source);
}

} // namespace fxs::torchscript
