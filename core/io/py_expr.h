// Recursive-descent parser for the Python expressions printed graph code contains (calls with
// keywords, attributes, subscripts and slices, binary/unary operators, tuples, lists, dicts,
// literals) into a flat, reusable arena. Nesting is limited so hostile input cannot overflow the
// stack. Not a Python parser: no lambdas, comprehensions, conditionals or boolean keywords.
#pragma once

#include "core/io/py_lexer.h"
#include "core/util/nesting.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::io::detail {

enum class PyKind : std::uint8_t {
    Name,      // text: identifier (True/False/None included)
    Int,       // text: literal
    Float,     // text: literal
    String,    // text: literal with quotes
    Ellipsis,  // `...`
    Attribute, // kids: [base]; text: attribute name
    Call,      // kids: [callee, args..., Keyword...]
    Keyword,   // kids: [value]; text: keyword name
    Subscript, // kids: [base, index]
    Slice,     // kids: [lower, upper, step] (Empty when left out)
    Binary,    // kids: [lhs, rhs]; text: operator
    Unary,     // kids: [operand]; text: operator
    Tuple,     // kids: items
    List,      // kids: items
    Dict,      // kids: key, value, key, value...
    Empty,     // a left-out slice bound
};

struct PyNode {
    PyKind kind = PyKind::Empty;
    bool parenthesized = false; // written inside its own ( )
    std::string_view text;
    std::uint32_t firstKid = 0;
    std::uint32_t numKids = 0;
    std::uint32_t firstTok = 0; // token range [firstTok, lastTok] in the statement
    std::uint32_t lastTok = 0;
};

struct PyError {
    std::string message;
    std::string expected;
    std::string_view found;
    int line = 0;
};

// The arena: clear() between statements keeps the capacity.
class PyAst {
public:
    void clear()
    {
        m_nodes.clear();
        m_kids.clear();
        m_scratch.clear();
    }
    // Work stack for the parser (kept here so its capacity survives between statements).
    std::vector<std::uint32_t>& scratch() { return m_scratch; }
    const PyNode& node(std::uint32_t i) const { return m_nodes[i]; }
    std::uint32_t kid(const PyNode& n, std::uint32_t k) const { return m_kids[n.firstKid + k]; }
    std::uint32_t add(const PyNode& n)
    {
        m_nodes.push_back(n);
        return static_cast<std::uint32_t>(m_nodes.size() - 1);
    }
    // Moves the last `count` entries of scratch into the kid list of node i.
    void adoptKids(std::uint32_t i, std::vector<std::uint32_t>& scratch, std::size_t count);

private:
    std::vector<PyNode> m_nodes;
    std::vector<std::uint32_t> m_kids;
    std::vector<std::uint32_t> m_scratch;
};

inline constexpr int kMaxNesting = fxs::kMaxNesting; // one cap for every recursive reader

class PyParser {
public:
    PyParser(const std::vector<PyToken>& tokens, PyAst& ast);

    // Parses one expression starting at the cursor; false on error (see error()).
    bool parseExpression(std::uint32_t& out);
    // Parses `a, b, c` (a tuple without parentheses when there is a comma).
    bool parseExpressionList(std::uint32_t& out);

    std::size_t pos() const { return m_pos; }
    void setPos(std::size_t p) { m_pos = p; }
    bool atEnd() const { return m_pos >= m_toks.size(); }
    const PyToken* peek(std::size_t ahead = 0) const
    {
        return m_pos + ahead < m_toks.size() ? &m_toks[m_pos + ahead] : nullptr;
    }
    bool accept(std::string_view op)
    {
        if (m_pos < m_toks.size() && isOp(m_toks[m_pos], op)) {
            ++m_pos;
            return true;
        }
        return false;
    }
    const PyError& error() const { return m_error; }
    bool fail(std::string message, std::string expected);
    bool failTooDeep(); // nesting past kMaxNesting

private:
    bool parseBinary(int level, std::uint32_t& out);
    bool parseUnary(std::uint32_t& out);
    bool parsePower(std::uint32_t& out);
    bool parsePrimary(std::uint32_t& out);
    bool parseAtom(std::uint32_t& out);
    bool parseBracketed(std::uint32_t& out);
    bool parseDict(std::size_t start, std::uint32_t& out);
    bool parseItems(std::string_view close, std::size_t& count, bool& trailingComma, bool slices);
    bool parseCallArgs(std::uint32_t callee, std::size_t start, std::uint32_t& out);
    bool parseSubscript(std::uint32_t base, std::size_t start, std::uint32_t& out);
    bool parseSliceItem(std::uint32_t& out);
    std::uint32_t make(PyKind kind, std::string_view text, std::size_t firstTok);

    const std::vector<PyToken>& m_toks;
    PyAst& m_ast;
    std::vector<std::uint32_t>& m_scratch;
    std::size_t m_pos = 0;
    int m_depth = 0;
    PyError m_error;
};

// Source text covered by a node (a view into the original text; may span lines).
std::string_view nodeSpan(const PyAst& ast, const std::vector<PyToken>& toks, std::uint32_t i);
// "a.b.c" for a Name/Attribute chain; empty for anything else.
std::string dottedName(const PyAst& ast, std::uint32_t i);
// The same without allocating when the chain is written plainly (a view into the source);
// otherwise built in storage.
std::string_view dottedName(const PyAst& ast, std::uint32_t i, std::string& storage);
// Root identifier of a Name/Attribute chain ("a" for a.b.c); empty otherwise.
std::string_view dottedRoot(const PyAst& ast, std::uint32_t i);
// The value of a Python string literal (quotes removed, simple escapes resolved).
std::string unquote(std::string_view literal);
// The same without copying when the literal has no prefix and no escapes (metas never do);
// otherwise the value is built in storage and a view of it returned.
std::string_view unquoteView(std::string_view literal, std::string& storage);

} // namespace fxs::io::detail
