// The statement-level half of the graph-code reader: `def forward(...)` signatures (one line or
// one parameter per line, AOT comments), assignments, aliases, pytree declarations and returns.
#include "core/io/graph_code_reader.h"

#include "core/graph/graph_printer.h"
#include "core/io/graph_comments.h"
#include "core/util/strings.h"

namespace fxs::io::detail {

namespace {

std::string_view tokenSpan(const std::vector<PyToken>& toks, std::size_t first, std::size_t last)
{
    const std::string_view a = toks[first].text;
    const std::string_view b = toks[last].text;
    return {a.data(), static_cast<std::size_t>(b.data() + b.size() - a.data())};
}

bool isAugmented(const PyToken& t)
{
    return t.kind == TokKind::Op && !graph::inPlaceOperatorTarget(t.text).empty();
}

bool endsWithName(const std::string& dotted, std::string_view leaf)
{
    return dotted == leaf || endsWith(dotted, "." + std::string(leaf));
}

} // namespace

std::optional<graph::AotTag> GraphCodeReader::commentAfter(std::size_t tok) const
{
    if (tok >= m_toks.size() || m_toks[tok].comment.empty()) {
        return std::nullopt;
    }
    return parseAotTag(m_toks[tok].comment);
}

graph::NodeId GraphCodeReader::addNode(Frame& f, graph::Node&& node, std::string_view name)
{
    if (f.names.count(name) > 0) {
        error(node.line - m_firstLine, "duplicate node name", "a new name", name);
        ++m_out.unparsedLines;
        return graph::kNoNode;
    }
    const graph::NodeId id = f.builder.add(std::move(node));
    f.names.emplace(name, id);
    return id;
}

void GraphCodeReader::emitParams(Frame& f)
{
    if (f.paramsEmitted) {
        return;
    }
    f.paramsEmitted = true;
    for (auto& p : f.params) {
        graph::Node n;
        n.op = graph::OpKind::Placeholder;
        n.name = std::string(p.name);
        n.target = n.name;
        n.meta = std::move(p.meta);
        n.aot = std::move(p.aot);
        n.line = m_firstLine + p.line;
        n.statement = std::string(p.text);
        addNode(f, std::move(n), p.name);
    }
    f.params.clear();
}

void GraphCodeReader::reportUnknownNames(const Lowering& low, int line)
{
    for (std::string_view name : low.unknownNames()) {
        warning(line, "unknown name '" + abbreviate(name) + "' kept as text");
    }
}

bool GraphCodeReader::parseParams(PyParser& p, std::vector<PendingParam>& params)
{
    bool first = true;
    while (!p.accept(")")) {
        const PyToken* t = p.peek();
        if (!t || t->kind != TokKind::Name) {
            return p.fail("malformed parameter", "a parameter name");
        }
        const std::size_t nameTok = p.pos();
        p.setPos(nameTok + 1);
        PendingParam param{t->text, {}, std::nullopt, {}, t->line};
        std::uint32_t e = 0;
        if (!annotation(p, param.meta)) { // `x : torch.Tensor` (gm form) gives no meta
            return false;
        }
        if (p.accept("=") && !p.parseExpression(e)) {
            return false; // a default value: read and dropped
        }
        const std::size_t lastTok = p.pos() - 1;
        param.text = tokenSpan(m_toks, nameTok, lastTok);
        const bool comma = p.accept(",");
        param.aot = commentAfter(lastTok);
        if (!param.aot && comma) {
            param.aot = commentAfter(p.pos() - 1);
        }
        if (!comma && !(p.peek() && isOp(*p.peek(), ")"))) {
            return p.fail("unterminated parameter list", "',' or ')'");
        }
        if (!(first && param.name == "self")) {
            params.push_back(std::move(param));
        }
        first = false;
    }
    return true;
}

void GraphCodeReader::signature(std::string_view line, int indent)
{
    m_sawGraph = true;
    Frame* f = current();
    if (f && f->defIndent >= 0 && f->classIndent < 0) {
        popFrame(); // a second bare `def forward`: a new graph
        f = nullptr;
    }
    if (!f) {
        m_frames.push_back(std::make_unique<Frame>());
        f = current();
        f->firstLine = m_line;
    }
    const bool second = f->defIndent >= 0;
    Logical l;
    if (!gather(line, indent, l)) {
        f->defIndent = second ? f->defIndent : indent; // read the body anyway
        return;
    }
    if (second) {
        error(l.first, "a second def in class '" + f->name + "'", "one def forward", l.text);
        m_out.unparsedLines += l.last - l.first + 1;
        return;
    }
    f->defIndent = indent;
    m_ast.clear();
    PyParser p(m_toks, m_ast);
    std::vector<PendingParam> params;
    std::uint32_t ret = 0;
    p.setPos(1); // after "def"
    const PyToken* fn = p.peek();
    bool ok = fn && fn->kind == TokKind::Name;
    if (ok) {
        p.setPos(2);
        ok = p.accept("(") && parseParams(p, params);
    }
    ok = ok && (!p.accept("->") || p.parseExpression(ret)) && p.accept(":") && p.atEnd();
    if (!ok) {
        p.fail("malformed signature", "def forward(self, <params>):");
        failStatement(l, p.error());
    }
    f->params = std::move(params);
}

// `primals_1: "f32[4]"  # PlainAOTInput(idx=0)` (one or several, `;`-separated): the pytree form
// of joint graphs declares its placeholders in the body; the signature's `primals, tangents`
// are then not nodes.
bool GraphCodeReader::declarations(Frame& f, PyParser& p)
{
    if (!f.paramsEmitted) {
        f.params.clear();
        f.paramsEmitted = true;
    }
    std::size_t at = 0;
    while (at + 2 < m_toks.size() && m_toks[at].kind == TokKind::Name && isOp(m_toks[at + 1], ":") &&
           m_toks[at + 2].kind == TokKind::String) {
        graph::Node n;
        n.op = graph::OpKind::Placeholder;
        n.name = std::string(m_toks[at].text);
        n.target = n.name;
        n.meta = parseValueMeta(unquoteView(m_toks[at + 2].text, m_unquoted));
        n.line = m_firstLine + m_toks[at].line;
        n.statement = std::string(tokenSpan(m_toks, at, at + 2));
        n.aot = commentAfter(at + 2);
        const bool semicolon = at + 3 < m_toks.size() && isOp(m_toks[at + 3], ";");
        if (!n.aot && semicolon) {
            n.aot = commentAfter(at + 3);
        }
        addNode(f, std::move(n), m_toks[at].text);
        at += semicolon ? 4 : 3;
    }
    p.setPos(at);
    return at == m_toks.size() || p.fail("malformed declaration", "name: \"meta\"");
}

// `primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)`:
// no node; names not declared before become placeholders.
bool GraphCodeReader::pytreeFlatten(Frame& f, PyParser& p, const Logical& l)
{
    std::uint32_t lhs = 0;
    std::uint32_t rhs = 0;
    if (!p.parseExpressionList(lhs) || !p.accept("=") || !p.parseExpression(rhs)) {
        return false;
    }
    const PyNode& r = m_ast.node(rhs);
    if (r.kind != PyKind::Call || !endsWithName(dottedName(m_ast, m_ast.kid(r, 0)), "tree_flatten_spec") ||
        !(p.atEnd() || p.accept(";"))) {
        p.setPos(0);
        return p.fail("unsupported tuple assignment", "x, y, = fx_pytree.tree_flatten_spec(...)");
    }
    const PyNode& names = m_ast.node(lhs);
    for (std::uint32_t k = 0; k < names.numKids; ++k) {
        const PyNode& n = m_ast.node(m_ast.kid(names, k));
        if (n.kind != PyKind::Name) {
            p.setPos(n.firstTok);
            return p.fail("unsupported tuple assignment", "names");
        }
        if (f.names.count(n.text) > 0) {
            continue;
        }
        if (!f.paramsEmitted) {
            f.params.clear();
            f.paramsEmitted = true;
        }
        graph::Node ph;
        ph.op = graph::OpKind::Placeholder;
        ph.name = std::string(n.text);
        ph.target = ph.name;
        ph.line = m_firstLine + l.first;
        ph.statement = ph.name;
        addNode(f, std::move(ph), n.text);
    }
    return true;
}

// `l_x_ = L_x_`: no node. A parameter takes the new name (its target keeps the old one).
bool GraphCodeReader::alias(Frame& f, std::string_view name, std::uint32_t rhs)
{
    emitParams(f);
    const std::string_view old = m_ast.node(rhs).text;
    const auto it = f.names.find(old);
    if (it == f.names.end() || f.names.count(name) > 0) {
        return false;
    }
    const graph::NodeId id = it->second;
    graph::Node& n = f.builder.node(id);
    if (n.op == graph::OpKind::Placeholder && n.name == old) {
        n.name = std::string(name);
    }
    f.names.emplace(name, id);
    return true;
}

void GraphCodeReader::statement(Frame& f, const Logical& l)
{
    m_ast.clear();
    PyParser p(m_toks, m_ast);
    const std::size_t n = m_toks.size();
    const bool named = m_toks[0].kind == TokKind::Name;
    bool ok = true;
    if (named && n >= 3 && isOp(m_toks[1], ":") && m_toks[2].kind == TokKind::String &&
        (n == 3 || isOp(m_toks[3], ";"))) {
        ok = declarations(f, p);
    } else if (named && n >= 2 && isOp(m_toks[1], ",")) {
        ok = pytreeFlatten(f, p, l);
    } else if (named && n >= 2 && (isOp(m_toks[1], "[") || isAugmented(m_toks[1]))) {
        ok = inPlace(f, p, l);
    } else if (!named) {
        ok = p.fail("statement does not start with a name", "name = <expression>");
    } else {
        ok = assignment(f, p, l);
    }
    if (!ok) {
        failStatement(l, p.error());
    }
}

// `: "f32[4]"` after a name (optional): the meta, when the annotation is a string.
bool GraphCodeReader::annotation(PyParser& p, graph::ValueMeta& meta)
{
    std::uint32_t e = 0;
    if (!p.accept(":")) {
        return true;
    }
    if (!p.parseExpression(e)) {
        return false;
    }
    if (m_ast.node(e).kind == PyKind::String) {
        meta = parseValueMeta(unquoteView(m_ast.node(e).text, m_unquoted));
    }
    return true;
}

bool GraphCodeReader::assignment(Frame& f, PyParser& p, const Logical& l)
{
    const std::string_view name = m_toks[0].text;
    p.setPos(1);
    graph::ValueMeta meta;
    if (!annotation(p, meta)) {
        return false;
    }
    std::uint32_t rhs = 0;
    if (!p.accept("=")) {
        return p.fail("not an assignment", "'='");
    }
    if (!p.parseExpression(rhs)) {
        return false;
    }
    if (!p.atEnd() && !p.accept(";")) {
        return p.fail("unexpected text after the expression", "end of statement or ';'");
    }
    // What follows `;` is the `a = b = None` tail that frees values: not part of the graph.
    if (m_ast.node(rhs).kind == PyKind::Name) {
        if (!alias(f, name, rhs)) {
            p.setPos(m_ast.node(rhs).firstTok);
            return p.fail("alias of an unknown or duplicate name", "an earlier node or parameter");
        }
        return true;
    }
    emitParams(f);
    Lowering low(m_ast, m_toks, f.names);
    graph::Node n;
    std::string why;
    if (!low.node(rhs, n, why)) {
        p.setPos(m_ast.node(rhs).firstTok);
        return p.fail("expression is not a graph node", why);
    }
    n.meta = std::move(meta);
    reportUnknownNames(low, l.first);
    return node(f, std::move(n), name, l);
}

// Fills what every statement's node shares and adds it.
bool GraphCodeReader::node(Frame& f, graph::Node&& n, std::string_view name, const Logical& l)
{
    n.name = std::string(name);
    n.source = f.source;
    n.annotation = f.annotation;
    n.line = m_firstLine + l.first;
    n.statement = std::string(l.text);
    addNode(f, std::move(n), name);
    return true;
}

// FX prints an in-place operator as `out_4 += x_3;  out_5: "f32[4]" = out_4` and
// operator.setitem as `x[i] = v;  setitem = x`: one node (operator.iadd / operator.setitem)
// named by the second assignment, whose value must be the first target.
bool GraphCodeReader::inPlace(Frame& f, PyParser& p, const Logical& l)
{
    std::uint32_t lhs = 0;
    std::uint32_t value = 0;
    p.setPos(0);
    if (!p.parseExpression(lhs)) {
        return false;
    }
    const PyToken* op = p.peek();
    const PyNode target = m_ast.node(lhs); // a copy: parsing the value grows the arena
    const bool setitem = target.kind == PyKind::Subscript && op != nullptr && isOp(*op, "=");
    if (!setitem && (target.kind != PyKind::Name || op == nullptr || !isAugmented(*op))) {
        return p.fail("not an assignment", "'=' or an in-place operator such as '+='");
    }
    const std::string_view opText = op->text;
    p.setPos(p.pos() + 1);
    if (!p.parseExpression(value)) {
        return false;
    }
    const std::uint32_t base = setitem ? m_ast.kid(target, 0) : lhs;
    const std::size_t at = p.pos();
    if (!p.accept(";") || p.atEnd() || m_toks[p.pos()].kind != TokKind::Name) {
        p.setPos(at);
        return p.fail("in-place statement without its result", "`;  name = " +
                      std::string(nodeSpan(m_ast, m_toks, base)) + "` after it");
    }
    const std::string_view name = m_toks[p.pos()].text;
    p.setPos(p.pos() + 1);
    graph::ValueMeta meta;
    std::uint32_t alias = 0;
    if (!annotation(p, meta)) {
        return false;
    }
    if (!p.accept("=")) {
        return p.fail("in-place statement without its result", "name = <target>");
    }
    if (!p.parseExpression(alias)) {
        return false;
    }
    if (m_ast.node(alias).kind != PyKind::Name || m_ast.node(base).kind != PyKind::Name ||
        m_ast.node(alias).text != m_ast.node(base).text) {
        p.setPos(m_ast.node(alias).firstTok);
        return p.fail("in-place result is not the updated value",
                      std::string(nodeSpan(m_ast, m_toks, base)));
    }
    emitParams(f);
    Lowering low(m_ast, m_toks, f.names);
    graph::Node n;
    n.op = graph::OpKind::CallFunction;
    n.target = setitem ? "operator.setitem" : std::string(graph::inPlaceOperatorTarget(opText));
    n.args.push_back(low.argument(base));
    if (setitem) {
        n.args.push_back(low.argument(m_ast.kid(target, 1)));
    }
    n.args.push_back(low.argument(value));
    n.meta = std::move(meta);
    reportUnknownNames(low, l.first);
    return node(f, std::move(n), name, l);
}

void GraphCodeReader::returnStatement(Frame& f, const Logical& l)
{
    m_ast.clear();
    PyParser p(m_toks, m_ast);
    p.setPos(1);
    emitParams(f);
    graph::Node out;
    out.op = graph::OpKind::Output;
    out.target = "output";
    out.name = "output";
    for (int k = 1; f.names.count(out.name) > 0; ++k) {
        out.name = "output_" + std::to_string(k);
    }
    out.line = m_firstLine + l.first;
    out.statement = std::string(l.text);
    Lowering low(m_ast, m_toks, f.names);
    std::uint32_t e = 0;
    if (p.atEnd()) {
        out.args.push_back(graph::Argument::none());
        out.outputAot.emplace_back();
    } else if (!p.parseExpressionList(e) || !(p.atEnd() || p.accept(";"))) {
        p.fail("malformed return", "return <values>");
        failStatement(l, p.error());
        f.returned = true;
        return;
    } else {
        returnedValues(low, e, out);
    }
    reportUnknownNames(low, l.first);
    f.builder.add(std::move(out));
    f.returned = true;
}

// `(a, b)`, `a`, `((outs,), (l_x_,))`, or `pytree.tree_unflatten([a, b], self._out_spec)` (the
// list's elements). AOT comments (`a,  # PlainAOTOutput(idx=0)`) attach per element.
void GraphCodeReader::returnedValues(Lowering& low, std::uint32_t e, graph::Node& out)
{
    const PyNode* n = &m_ast.node(e);
    bool unflatten = false;
    if (n->kind == PyKind::Call && n->numKids >= 2 &&
        endsWithName(dottedName(m_ast, m_ast.kid(*n, 0)), "tree_unflatten") &&
        m_ast.node(m_ast.kid(*n, 1)).kind == PyKind::List) {
        n = &m_ast.node(m_ast.kid(*n, 1));
        unflatten = true;
    }
    if (n->kind != PyKind::Tuple && n->kind != PyKind::List) {
        out.args.push_back(low.argument(e));
        out.outputAot.push_back(commentAfter(n->lastTok));
        return;
    }
    std::vector<graph::Argument> items;
    for (std::uint32_t k = 0; k < n->numKids; ++k) {
        const PyNode& item = m_ast.node(m_ast.kid(*n, k));
        items.push_back(low.argument(m_ast.kid(*n, k)));
        auto tag = commentAfter(item.lastTok);
        if (!tag && item.lastTok + 1 < m_toks.size() && isOp(m_toks[item.lastTok + 1], ",")) {
            tag = commentAfter(item.lastTok + 1);
        }
        out.outputAot.push_back(std::move(tag));
    }
    out.args.push_back(n->kind == PyKind::List && !unflatten ? graph::Argument::list(std::move(items))
                                                             : graph::Argument::tuple(std::move(items)));
}

} // namespace fxs::io::detail
