#include "core/io/py_expr.h"


namespace fxs::io::detail {

namespace {

// Binary operators by precedence level, lowest first (Python's order): comparisons, |, ^, &,
// shifts, + -, * / // % @. -1 for anything else.
int binaryLevel(std::string_view op)
{
    if (op.size() == 1) {
        switch (op[0]) {
        case '<': case '>': return 0;
        case '|': return 1;
        case '^': return 2;
        case '&': return 3;
        case '+': case '-': return 5;
        case '*': case '/': case '%': case '@': return 6;
        default: return -1;
        }
    }
    if (op == "==" || op == "!=" || op == "<=" || op == ">=") {
        return 0;
    }
    if (op == "<<" || op == ">>") {
        return 4;
    }
    return op == "//" ? 6 : -1;
}

} // namespace

void PyAst::adoptKids(std::uint32_t i, std::vector<std::uint32_t>& scratch, std::size_t count)
{
    m_nodes[i].firstKid = static_cast<std::uint32_t>(m_kids.size());
    m_nodes[i].numKids = static_cast<std::uint32_t>(count);
    m_kids.insert(m_kids.end(), scratch.end() - static_cast<std::ptrdiff_t>(count), scratch.end());
    scratch.resize(scratch.size() - count);
}

PyParser::PyParser(const std::vector<PyToken>& tokens, PyAst& ast)
    : m_toks(tokens), m_ast(ast), m_scratch(ast.scratch())
{
}

bool PyParser::failTooDeep()
{
    return fail("expression nested too deeply",
                "at most " + std::to_string(kMaxNesting) + " levels");
}

bool PyParser::fail(std::string message, std::string expected)
{
    if (m_error.message.empty()) {
        m_error.message = std::move(message);
        m_error.expected = std::move(expected);
        const PyToken* t = peek();
        if (t) {
            m_error.found = t->text;
            m_error.line = t->line;
        } else {
            m_error.found = "end of statement";
            m_error.line = m_toks.empty() ? 0 : m_toks.back().line;
        }
    }
    return false;
}

std::uint32_t PyParser::make(PyKind kind, std::string_view text, std::size_t firstTok)
{
    PyNode n;
    n.kind = kind;
    n.text = text;
    n.firstTok = static_cast<std::uint32_t>(firstTok);
    n.lastTok = static_cast<std::uint32_t>(m_pos == 0 ? 0 : m_pos - 1);
    return m_ast.add(n);
}

bool PyParser::parseExpression(std::uint32_t& out)
{
    if (++m_depth > kMaxNesting) {
        --m_depth;
        return failTooDeep();
    }
    const bool ok = parseBinary(0, out);
    --m_depth;
    return ok;
}

bool PyParser::parseExpressionList(std::uint32_t& out)
{
    const std::size_t start = m_pos;
    if (!parseExpression(out)) {
        return false;
    }
    if (!peek() || !isOp(*peek(), ",")) {
        return true;
    }
    std::size_t count = 1;
    m_scratch.push_back(out);
    while (accept(",")) {
        const PyToken* t = peek();
        if (!t || isOp(*t, "=") || isOp(*t, ";")) {
            break;
        }
        std::uint32_t item = 0;
        if (!parseExpression(item)) {
            return false;
        }
        m_scratch.push_back(item);
        ++count;
    }
    out = make(PyKind::Tuple, {}, start);
    m_ast.adoptKids(out, m_scratch, count);
    return true;
}

// Precedence climbing: one loop per operator instead of one call per precedence level (this
// runs for every argument of every statement).
bool PyParser::parseBinary(int minLevel, std::uint32_t& out)
{
    const std::size_t start = m_pos;
    if (!parseUnary(out)) {
        return false;
    }
    for (;;) {
        const PyToken* t = peek();
        const int level = t && t->kind == TokKind::Op ? binaryLevel(t->text) : -1;
        if (level < minLevel) {
            return true;
        }
        ++m_pos;
        std::uint32_t rhs = 0;
        if (++m_depth > kMaxNesting) {
            return failTooDeep();
        }
        const bool ok = parseBinary(level + 1, rhs);
        --m_depth;
        if (!ok) {
            return false;
        }
        m_scratch.push_back(out);
        m_scratch.push_back(rhs);
        out = make(PyKind::Binary, t->text, start);
        m_ast.adoptKids(out, m_scratch, 2);
    }
}

bool PyParser::parseUnary(std::uint32_t& out)
{
    const PyToken* t = peek();
    if (t && t->kind == TokKind::Op && (t->text == "-" || t->text == "+" || t->text == "~")) {
        const std::size_t start = m_pos++;
        if (++m_depth > kMaxNesting) {
            return failTooDeep();
        }
        std::uint32_t operand = 0;
        const bool ok = parseUnary(operand);
        --m_depth;
        if (!ok) {
            return false;
        }
        m_scratch.push_back(operand);
        out = make(PyKind::Unary, t->text, start);
        m_ast.adoptKids(out, m_scratch, 1);
        return true;
    }
    return parsePower(out);
}

bool PyParser::parsePower(std::uint32_t& out)
{
    const std::size_t start = m_pos;
    if (!parsePrimary(out)) {
        return false;
    }
    if (!accept("**")) {
        return true;
    }
    std::uint32_t rhs = 0;
    if (++m_depth > kMaxNesting) {
        return failTooDeep();
    }
    const bool ok = parseUnary(rhs); // right-associative; -x binds tighter than **'s rhs
    --m_depth;
    if (!ok) {
        return false;
    }
    m_scratch.push_back(out);
    m_scratch.push_back(rhs);
    out = make(PyKind::Binary, "**", start);
    m_ast.adoptKids(out, m_scratch, 2);
    return true;
}

bool PyParser::parsePrimary(std::uint32_t& out)
{
    const std::size_t start = m_pos;
    if (!parseAtom(out)) {
        return false;
    }
    for (;;) {
        if (accept(".")) {
            const PyToken* t = peek();
            if (!t || t->kind != TokKind::Name) {
                return fail("attribute name missing", "a name after '.'");
            }
            ++m_pos;
            m_scratch.push_back(out);
            out = make(PyKind::Attribute, t->text, start);
            m_ast.adoptKids(out, m_scratch, 1);
        } else if (accept("(")) {
            if (!parseCallArgs(out, start, out)) {
                return false;
            }
        } else if (accept("[")) {
            if (!parseSubscript(out, start, out)) {
                return false;
            }
        } else {
            return true;
        }
    }
}

bool PyParser::parseAtom(std::uint32_t& out)
{
    const PyToken* t = peek();
    if (!t) {
        return fail("expression missing", "an expression");
    }
    const std::size_t start = m_pos;
    switch (t->kind) {
    case TokKind::Name:
        ++m_pos;
        out = make(PyKind::Name, t->text, start);
        return true;
    case TokKind::Int:
    case TokKind::Float:
        ++m_pos;
        out = make(t->kind == TokKind::Int ? PyKind::Int : PyKind::Float, t->text, start);
        return true;
    case TokKind::String:
        ++m_pos;
        out = make(PyKind::String, t->text, start);
        return true;
    case TokKind::Op: break;
    }
    if (t->text == "...") {
        ++m_pos;
        out = make(PyKind::Ellipsis, t->text, start);
        return true;
    }
    if (t->text == "(" || t->text == "[" || t->text == "{") {
        return parseBracketed(out); // nesting is counted by parseExpression
    }
    return fail("unexpected token", "an expression");
}

// Comma-separated expressions up to `close` (consumed); pushes them on the scratch stack.
// With slices, items may be `a:b:c` (a subscript).
bool PyParser::parseItems(std::string_view close, std::size_t& count, bool& trailingComma,
                          bool slices)
{
    count = 0;
    trailingComma = false;
    while (!accept(close)) {
        std::uint32_t item = 0;
        if (!(slices ? parseSliceItem(item) : parseExpression(item))) {
            return false;
        }
        m_scratch.push_back(item);
        ++count;
        trailingComma = accept(",");
        if (!trailingComma && !(peek() && isOp(*peek(), close))) {
            return fail("unterminated list", "',' or '" + std::string(close) + "'");
        }
    }
    return true;
}

bool PyParser::parseBracketed(std::uint32_t& out)
{
    const std::size_t start = m_pos;
    const std::string_view open = m_toks[m_pos++].text;
    if (open == "{") {
        return parseDict(start, out);
    }
    std::size_t count = 0;
    bool trailingComma = false;
    if (!parseItems(open == "(" ? ")" : "]", count, trailingComma, false)) {
        return false;
    }
    if (open == "(" && count == 1 && !trailingComma) {
        out = m_scratch.back();
        m_scratch.pop_back();
        PyNode n = m_ast.node(out);
        n.parenthesized = true;
        n.firstTok = static_cast<std::uint32_t>(start);
        n.lastTok = static_cast<std::uint32_t>(m_pos - 1);
        out = m_ast.add(n); // a copy that spans the parentheses; kids are shared
        return true;
    }
    out = make(open == "(" ? PyKind::Tuple : PyKind::List, {}, start);
    m_ast.adoptKids(out, m_scratch, count);
    return true;
}

bool PyParser::parseDict(std::size_t start, std::uint32_t& out)
{
    std::size_t count = 0;
    while (!accept("}")) {
        std::uint32_t key = 0;
        std::uint32_t value = 0;
        if (!parseExpression(key)) {
            return false;
        }
        if (!accept(":")) {
            return fail("dict entry without ':'", "':'");
        }
        if (!parseExpression(value)) {
            return false;
        }
        m_scratch.push_back(key);
        m_scratch.push_back(value);
        count += 2;
        if (!accept(",") && !(peek() && isOp(*peek(), "}"))) {
            return fail("unterminated dict", "',' or '}'");
        }
    }
    out = make(PyKind::Dict, {}, start);
    m_ast.adoptKids(out, m_scratch, count);
    return true;
}

bool PyParser::parseCallArgs(std::uint32_t callee, std::size_t start, std::uint32_t& out)
{
    std::size_t count = 1;
    m_scratch.push_back(callee);
    while (!accept(")")) {
        const PyToken* t = peek();
        const PyToken* next = peek(1);
        std::uint32_t item = 0;
        if (t && t->kind == TokKind::Name && next && isOp(*next, "=")) {
            const std::size_t kwStart = m_pos;
            m_pos += 2;
            std::uint32_t value = 0;
            if (!parseExpression(value)) {
                return false;
            }
            m_scratch.push_back(value);
            item = make(PyKind::Keyword, t->text, kwStart);
            m_ast.adoptKids(item, m_scratch, 1);
        } else if (!parseExpression(item)) {
            return false;
        }
        m_scratch.push_back(item);
        ++count;
        if (!accept(",") && !(peek() && isOp(*peek(), ")"))) {
            return fail("unterminated call", "',' or ')'");
        }
    }
    out = make(PyKind::Call, {}, start);
    m_ast.adoptKids(out, m_scratch, count);
    return true;
}

bool PyParser::parseSliceItem(std::uint32_t& out)
{
    const std::size_t start = m_pos;
    std::uint32_t parts[3] = {0, 0, 0};
    int n = 0;
    bool isSlice = false;
    for (;;) {
        const PyToken* t = peek();
        if (!t || isOp(*t, ":") || isOp(*t, ",") || isOp(*t, "]")) {
            parts[n] = make(PyKind::Empty, {}, m_pos);
        } else if (!parseExpression(parts[n])) {
            return false;
        }
        if (n < 2 && accept(":")) {
            isSlice = true;
            ++n;
            continue;
        }
        break;
    }
    if (!isSlice) {
        out = parts[0];
        return true;
    }
    for (int k = 0; k < 3; ++k) {
        m_scratch.push_back(k <= n ? parts[k] : make(PyKind::Empty, {}, m_pos));
    }
    out = make(PyKind::Slice, {}, start);
    m_ast.adoptKids(out, m_scratch, 3);
    return true;
}

bool PyParser::parseSubscript(std::uint32_t base, std::size_t start, std::uint32_t& out)
{
    const std::size_t indexStart = m_pos;
    std::size_t count = 0;
    bool trailingComma = false;
    if (!parseItems("]", count, trailingComma, true)) {
        return false;
    }
    if (count == 0) {
        return fail("empty subscript", "an index");
    }
    std::uint32_t index = 0;
    if (count == 1 && !trailingComma) {
        index = m_scratch.back();
        m_scratch.pop_back();
    } else {
        index = make(PyKind::Tuple, {}, indexStart);
        m_ast.adoptKids(index, m_scratch, count);
    }
    m_scratch.push_back(base);
    m_scratch.push_back(index);
    out = make(PyKind::Subscript, {}, start);
    m_ast.adoptKids(out, m_scratch, 2);
    return true;
}

std::string_view nodeSpan(const PyAst& ast, const std::vector<PyToken>& toks, std::uint32_t i)
{
    const PyNode& n = ast.node(i);
    if (n.firstTok >= toks.size() || n.lastTok >= toks.size() || n.lastTok < n.firstTok) {
        return n.text;
    }
    const std::string_view a = toks[n.firstTok].text;
    const std::string_view b = toks[n.lastTok].text;
    return {a.data(), static_cast<std::size_t>(b.data() + b.size() - a.data())};
}

std::string_view dottedRoot(const PyAst& ast, std::uint32_t i)
{
    for (;;) {
        const PyNode& n = ast.node(i);
        if (n.kind == PyKind::Name) {
            return n.text;
        }
        if (n.kind != PyKind::Attribute) {
            return {};
        }
        i = ast.kid(n, 0);
    }
}

std::string dottedName(const PyAst& ast, std::uint32_t i)
{
    std::string storage;
    const std::string_view v = dottedName(ast, i, storage);
    return v.data() == storage.data() ? std::move(storage) : std::string(v);
}

std::string_view dottedName(const PyAst& ast, std::uint32_t i, std::string& storage)
{
    const PyNode& n = ast.node(i);
    if (n.kind == PyKind::Name) {
        return n.text;
    }
    storage.clear();
    if (n.kind != PyKind::Attribute || dottedRoot(ast, i).empty()) {
        return storage;
    }
    // The chain's tokens are contiguous in the source: use them verbatim unless the text was
    // written with spaces, parentheses or across lines (`torch . ops`), then rebuild it.
    std::uint32_t first = i;
    while (ast.node(first).kind == PyKind::Attribute) {
        first = ast.kid(ast.node(first), 0);
    }
    const std::string_view head = ast.node(first).text;
    const std::string_view span(head.data(),
                                static_cast<std::size_t>(n.text.data() + n.text.size() - head.data()));
    bool plain = true;
    for (const char c : span) {
        const auto u = static_cast<unsigned char>(c);
        plain = plain && (static_cast<unsigned>((u | 0x20) - 'a') < 26u ||
                          static_cast<unsigned>(u - '0') < 10u || c == '_' || c == '.' || u >= 0x80);
    }
    if (plain) {
        return span;
    }
    std::string base;
    storage = std::string(dottedName(ast, ast.kid(n, 0), base)) + "." + std::string(n.text);
    return storage;
}

std::string_view unquoteView(std::string_view lit, std::string& storage)
{
    if (lit.size() >= 2 && (lit[0] == '"' || lit[0] == '\'') && lit.back() == lit[0] &&
        lit.find('\\') == std::string_view::npos) {
        return lit.substr(1, lit.size() - 2);
    }
    storage = unquote(lit);
    return storage;
}

std::string unquote(std::string_view lit)
{
    std::size_t q = 0;
    while (q < lit.size() && lit[q] != '\'' && lit[q] != '"') {
        ++q; // string prefix (r, b, u, f)
    }
    const bool raw = lit.substr(0, q).find_first_of("rR") != std::string_view::npos;
    if (lit.size() < q + 2) {
        return {};
    }
    const std::string_view body = lit.substr(q + 1, lit.size() - q - 2);
    std::string out;
    out.reserve(body.size());
    for (std::size_t k = 0; k < body.size(); ++k) {
        if (body[k] != '\\' || raw || k + 1 == body.size()) {
            out += body[k];
            continue;
        }
        const char e = body[++k];
        switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '0': out += '\0'; break;
        default: out += e; break; // \\ \' \" and anything unknown
        }
    }
    return out;
}

} // namespace fxs::io::detail
