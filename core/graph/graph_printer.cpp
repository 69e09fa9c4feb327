#include "core/graph/graph_printer.h"

#include <array>
#include <utility>

namespace fxs::graph {

namespace {

struct PyOperator {
    std::string_view token;
    std::string_view target;
    bool unary;
};

constexpr std::array<PyOperator, 22> kOperators = {{
    {"+", "operator.add", false},      {"-", "operator.sub", false},
    {"*", "operator.mul", false},      {"/", "operator.truediv", false},
    {"//", "operator.floordiv", false}, {"%", "operator.mod", false},
    {"**", "operator.pow", false},     {"@", "operator.matmul", false},
    {"<<", "operator.lshift", false},  {">>", "operator.rshift", false},
    {"&", "operator.and_", false},     {"|", "operator.or_", false},
    {"^", "operator.xor", false},      {"==", "operator.eq", false},
    {"!=", "operator.ne", false},      {"<", "operator.lt", false},
    {">", "operator.gt", false},       {"<=", "operator.le", false},
    {">=", "operator.ge", false},      {"-", "operator.neg", true},
    {"+", "operator.pos", true},       {"~", "operator.invert", true},
}};

// FX prints calls of these as `a += b;  name = a` (torch.fx.graph's inplace_methods).
constexpr std::array<PyOperator, 13> kInPlaceOperators = {{
    {"+=", "operator.iadd", false},      {"-=", "operator.isub", false},
    {"*=", "operator.imul", false},      {"/=", "operator.itruediv", false},
    {"//=", "operator.ifloordiv", false}, {"%=", "operator.imod", false},
    {"**=", "operator.ipow", false},     {"@=", "operator.imatmul", false},
    {"<<=", "operator.ilshift", false},  {">>=", "operator.irshift", false},
    {"&=", "operator.iand", false},      {"|=", "operator.ior", false},
    {"^=", "operator.ixor", false},
}};

bool isIdentifier(std::string_view s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) {
        return false;
    }
    for (char c : s) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
            return false;
        }
    }
    return true;
}

// Like argumentToString, but strings are escaped so the text stays on one line.
std::string arg(const Graph& g, const Argument& a)
{
    if (a.kind == ArgKind::String) {
        std::string s = "'";
        for (char c : a.text) {
            switch (c) {
            case '\n': s += "\\n"; break;
            case '\r': s += "\\r"; break;
            case '\t': s += "\\t"; break;
            case '\0': s += "\\0"; break;
            case '\'': s += "\\'"; break;
            case '\\': s += "\\\\"; break;
            default: s += c; break;
            }
        }
        return s + "'";
    }
    if (a.isSequence()) {
        std::string s = a.kind == ArgKind::List ? "[" : "(";
        for (std::size_t k = 0; k < a.items.size(); ++k) {
            s += k > 0 ? ", " : "";
            s += arg(g, a.items[k]);
        }
        s += a.kind == ArgKind::Tuple && a.items.size() == 1 ? "," : "";
        return s + (a.kind == ArgKind::List ? "]" : ")");
    }
    return argumentToString(a, [&](NodeId id) -> std::string {
        return id < g.size() ? g.node(id).name : std::string("None");
    });
}

std::string callArgs(const Graph& g, const Node& n, std::size_t firstArg)
{
    std::string s = "(";
    bool first = true;
    for (std::size_t k = firstArg; k < n.args.size(); ++k, first = false) {
        s += first ? "" : ", ";
        s += arg(g, n.args[k]);
    }
    for (const auto& [key, value] : n.kwargs) {
        s += first ? "" : ", ";
        first = false;
        s += key + " = " + arg(g, value);
    }
    return s + ")";
}

std::string functionExpression(const Graph& g, const Node& n)
{
    const std::string_view target = n.target;
    if (n.kwargs.empty() && n.args.size() == 2) {
        if (target == "operator.getitem") {
            return arg(g, n.args[0]) + "[" + arg(g, n.args[1]) + "]";
        }
        bool unary = false;
        if (const auto op = operatorToken(target, unary); !op.empty() && !unary) {
            return arg(g, n.args[0]) + " " + std::string(op) + " " + arg(g, n.args[1]);
        }
        if (target == "builtins.getattr" && n.args[1].kind == ArgKind::String &&
            isIdentifier(n.args[1].text)) {
            return arg(g, n.args[0]) + "." + n.args[1].text;
        }
    }
    bool unary = false;
    if (const auto op = operatorToken(target, unary); unary && n.kwargs.empty() && n.args.size() == 1) {
        return std::string(op) + arg(g, n.args[0]);
    }
    std::string callee;
    if (const auto ns = target.find("::"); ns != std::string_view::npos) {
        callee = "torch.ops." + std::string(target.substr(0, ns)) + "." +
                 std::string(target.substr(ns + 2));
    } else if (target.starts_with("higher_order.")) {
        callee = "torch.ops." + n.target;
    } else {
        callee = n.target;
    }
    return callee + callArgs(g, n, 0);
}

void appendParam(std::string& out, const Node& ph, bool meta)
{
    out += ph.target.empty() ? ph.name : ph.target;
    if (meta && ph.meta.kind != ValueMeta::Kind::None) {
        out += ": \"" + ph.meta.text + "\"";
    }
}

void printSignature(std::string& out, const Graph& g, const std::string& pad, bool meta)
{
    bool tagged = false;
    for (NodeId id : g.placeholders()) {
        tagged = tagged || g.node(id).aot.has_value();
    }
    if (!tagged) {
        out += pad + "    def forward(self";
        for (NodeId id : g.placeholders()) {
            out += ", ";
            appendParam(out, g.node(id), meta);
        }
        out += "):\n";
    } else {
        out += pad + "    def forward(\n" + pad + "        self,\n";
        for (NodeId id : g.placeholders()) {
            const Node& ph = g.node(id);
            out += pad + "        ";
            appendParam(out, ph, meta);
            out += ph.aot ? ",  # " + ph.aot->text + "\n" : ",\n";
        }
        out += pad + "    ):\n";
    }
    bool aliased = false;
    for (NodeId id : g.placeholders()) {
        const Node& ph = g.node(id);
        if (!ph.target.empty() && ph.target != ph.name) {
            out += pad + "        " + ph.name + " = " + ph.target + "\n"; // Dynamo's l_x_ = L_x_
            aliased = true;
        }
    }
    out += aliased ? "\n" : "";
}

// `File: path:line in fn, code: src`, with the `Annotation: {...}` prefix; empty if unknown.
std::string sourceComment(const Node& n)
{
    std::string s;
    if (n.annotation) {
        s = "Annotation: " + n.annotation->text;
    }
    if (n.source.known()) {
        s += s.empty() ? "File: " : " File: ";
        s += n.source.file + ":" + std::to_string(n.source.line);
        s += n.source.function.empty() ? "" : " in " + n.source.function;
        s += n.source.code.empty() ? "" : ", code: " + n.source.code;
    }
    return s;
}

std::string returnText(const Graph& g, const Node& out, const std::string& pad)
{
    if (out.args.empty()) {
        return "return None";
    }
    const Argument& value = out.args[0];
    bool tagged = false;
    for (const auto& t : out.outputAot) {
        tagged = tagged || t.has_value();
    }
    if (!tagged || !value.isSequence() || value.items.size() != out.outputAot.size()) {
        const bool single = !value.isSequence() && out.outputAot.size() == 1 && out.outputAot[0];
        return "return " + arg(g, value) + (single ? "  # " + out.outputAot[0]->text : "");
    }
    const bool list = value.kind == ArgKind::List;
    std::string s = list ? "return [\n" : "return (\n";
    for (std::size_t k = 0; k < value.items.size(); ++k) {
        s += pad + "    " + arg(g, value.items[k]) + ",";
        s += out.outputAot[k] ? "  # " + out.outputAot[k]->text + "\n" : "\n";
    }
    return s + pad + (list ? "]" : ")");
}

// `a += b;  ` or `a[i] = v;  ` for an in-place operator call on a node, as FX prints it (the
// caller appends `name = a`); empty for any other node.
std::string inPlaceStatement(const Graph& g, const Node& n)
{
    if (n.op != OpKind::CallFunction || !n.kwargs.empty() || n.args.empty() || !n.args[0].isNode()) {
        return {};
    }
    if (n.target == "operator.setitem" && n.args.size() == 3) {
        return arg(g, n.args[0]) + "[" + arg(g, n.args[1]) + "] = " + arg(g, n.args[2]) + ";  ";
    }
    const std::string_view token = inPlaceOperatorToken(n.target);
    if (token.empty() || n.args.size() != 2) {
        return {};
    }
    return arg(g, n.args[0]) + " " + std::string(token) + " " + arg(g, n.args[1]) + ";  ";
}

void printGraph(std::string& out, const Graph& g, const std::string& pad, bool meta)
{
    out += pad + "class " + g.name() + "(torch.nn.Module):\n";
    printSignature(out, g, pad, meta);
    const std::string body = pad + "        ";
    std::string group;
    bool printedAny = false;
    for (const Node& n : g.nodes()) {
        if (n.op == OpKind::Placeholder) {
            continue;
        }
        if (n.op == OpKind::Output) {
            out += body + returnText(g, n, body) + "\n";
            continue;
        }
        std::string comment = sourceComment(n);
        if (comment != group) {
            if (!comment.empty()) {
                out += printedAny ? "\n" + body + "# " + comment + "\n" : body + "# " + comment + "\n";
            } else {
                out += "\n" + body + "# No stacktrace found for following nodes\n";
            }
            group = std::move(comment);
        }
        printedAny = true;
        const std::string inPlace = inPlaceStatement(g, n);
        out += body + inPlace + n.name;
        if (meta && n.meta.kind != ValueMeta::Kind::None) {
            out += ": \"" + n.meta.text + "\"";
        }
        out += " = " + (inPlace.empty() ? nodeExpression(g, n) : arg(g, n.args[0])) + "\n";
    }
    for (const auto& sub : g.submodules()) {
        out += "\n";
        printGraph(out, *sub, pad + "    ", meta);
    }
}

} // namespace

std::string_view operatorTarget(std::string_view token, bool unary)
{
    for (const auto& op : kOperators) {
        if (op.token == token && op.unary == unary) {
            return op.target;
        }
    }
    return {};
}

std::string_view operatorToken(std::string_view target, bool& unary)
{
    for (const auto& op : kOperators) {
        if (op.target == target) {
            unary = op.unary;
            return op.token;
        }
    }
    return {};
}

std::string_view inPlaceOperatorTarget(std::string_view token)
{
    for (const auto& op : kInPlaceOperators) {
        if (op.token == token) {
            return op.target;
        }
    }
    return {};
}

std::string_view inPlaceOperatorToken(std::string_view target)
{
    for (const auto& op : kInPlaceOperators) {
        if (op.target == target) {
            return op.token;
        }
    }
    return {};
}

std::string nodeExpression(const Graph& g, const Node& n)
{
    switch (n.op) {
    case OpKind::CallFunction: return functionExpression(g, n);
    case OpKind::CallMethod:
        if (n.args.empty()) {
            return "None." + n.target + "()";
        }
        return arg(g, n.args[0]) + "." + n.target + callArgs(g, n, 1);
    case OpKind::CallModule: return "self." + n.target + callArgs(g, n, 0);
    case OpKind::GetAttr: return "self." + n.target;
    case OpKind::Placeholder:
    case OpKind::Output: return {};
    }
    return {};
}

std::string printGraphCode(const Graph& graph, bool includeMeta)
{
    std::string out;
    out.reserve(graph.size() * 120);
    printGraph(out, graph, "", includeMeta);
    return out;
}

} // namespace fxs::graph
