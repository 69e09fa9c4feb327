#include "core/io/graph_code_lowering.h"

#include "core/graph/graph_printer.h"
#include "core/util/strings.h"

#include <cmath>
#include <limits>
#include <utility>

namespace fxs::io::detail {

using graph::Argument;

namespace {

constexpr std::string_view kLayouts[] = {"strided",    "sparse_coo", "sparse_csr", "sparse_csc",
                                         "sparse_bsr", "sparse_bsc", "_mkldnn",    "jagged"};
constexpr std::string_view kMemoryFormats[] = {"contiguous_format", "channels_last",
                                               "channels_last_3d", "preserve_format"};

template <class Range>
bool contains(const Range& r, std::string_view v)
{
    for (const auto& x : r) {
        if (x == v) {
            return true;
        }
    }
    return false;
}

} // namespace

std::string opsTarget(std::string_view rest)
{
    if (startsWith(rest, "higher_order.") && rest.size() > 13) {
        return std::string(rest);
    }
    const auto dot = rest.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot + 1 >= rest.size()) {
        return {};
    }
    std::string target(rest.substr(0, dot));
    target += "::";
    target += rest.substr(dot + 1); // "add.Tensor" (op and overload)
    return target;
}

Argument Lowering::name(std::string_view text)
{
    if (text == "None") {
        return Argument::none();
    }
    if (text == "True" || text == "False") {
        return Argument::boolean(text == "True");
    }
    if (text == "inf") {
        return Argument::real(std::numeric_limits<double>::infinity());
    }
    if (text == "nan") {
        return Argument::real(std::numeric_limits<double>::quiet_NaN());
    }
    if (const auto it = m_names.find(text); it != m_names.end()) {
        return Argument::ref(it->second);
    }
    if (text != "Ellipsis") {
        m_unknown.push_back(text);
    }
    return Argument::expr(std::string(text));
}

Argument Lowering::number(const PyNode& n, bool negate)
{
    if (n.kind == PyKind::Int && n.text.find_first_of("_xXoObB") == std::string_view::npos) {
        if (const auto v = parseInt(n.text)) {
            return Argument::integer(negate ? -*v : *v);
        }
    }
    if (n.kind == PyKind::Float) {
        if (const auto v = parseDouble(n.text)) {
            return Argument::real(negate ? -*v : *v);
        }
    }
    return Argument::expr(negate ? "-" + std::string(n.text) : std::string(n.text));
}

Argument Lowering::unary(std::uint32_t i)
{
    const PyNode& n = m_ast.node(i);
    const PyNode& operand = m_ast.node(m_ast.kid(n, 0));
    const bool sign = n.text == "-" || n.text == "+";
    if (sign && (operand.kind == PyKind::Int || operand.kind == PyKind::Float)) {
        return number(operand, n.text == "-");
    }
    if (sign && operand.kind == PyKind::Name && (operand.text == "inf" || operand.text == "nan")) {
        const double v = operand.text == "inf" ? std::numeric_limits<double>::infinity()
                                               : std::numeric_limits<double>::quiet_NaN();
        return Argument::real(n.text == "-" ? -v : v);
    }
    return Argument::expr(std::string(nodeSpan(m_ast, m_toks, i)));
}

Argument Lowering::attribute(std::uint32_t i)
{
    std::string storage;
    const std::string_view dotted = dottedName(m_ast, i, storage);
    if (startsWith(dotted, "torch.")) {
        const std::string_view leaf = dotted.substr(6);
        if (const auto dt = graph::dtypeFromTorchName(leaf)) {
            return Argument::ofDtype(*dt);
        }
        if (contains(kLayouts, leaf)) {
            return Argument::layout(std::string(leaf));
        }
        if (contains(kMemoryFormats, leaf)) {
            return Argument::memoryFormat(std::string(leaf));
        }
    }
    return Argument::expr(std::string(nodeSpan(m_ast, m_toks, i)));
}

// device(type='cuda', index=0), device('cuda:0'), torch.device('cpu'); anything else is Expr.
Argument Lowering::call(std::uint32_t i)
{
    const PyNode& n = m_ast.node(i);
    std::string storage;
    const std::string_view callee = dottedName(m_ast, m_ast.kid(n, 0), storage);
    const Argument fallback = Argument::expr(std::string(nodeSpan(m_ast, m_toks, i)));
    if (callee != "device" && callee != "torch.device") {
        return fallback;
    }
    std::string type;
    std::int64_t index = -1;
    for (std::uint32_t k = 1; k < n.numKids; ++k) {
        const PyNode& a = m_ast.node(m_ast.kid(n, k));
        const bool kw = a.kind == PyKind::Keyword;
        const PyNode& v = kw ? m_ast.node(m_ast.kid(a, 0)) : a;
        const std::string_view key = kw ? a.text : (k == 1 ? "type" : "index");
        if (key == "type" && v.kind == PyKind::String) {
            type = unquote(v.text);
        } else if (key == "index" && v.kind == PyKind::Int && parseInt(v.text)) {
            index = *parseInt(v.text);
        } else if (!(key == "index" && v.kind == PyKind::Name && v.text == "None")) {
            return fallback;
        }
    }
    auto d = graph::Device::parse(type);
    if (!d || (index >= 0 && d->index >= 0) || index > std::numeric_limits<int>::max()) {
        return fallback;
    }
    if (index >= 0) {
        d->index = static_cast<int>(index);
    }
    return Argument::ofDevice(*d);
}

std::string Lowering::sliceText(std::uint32_t i)
{
    const PyNode& n = m_ast.node(i);
    std::string s = "slice(";
    for (std::uint32_t k = 0; k < 3; ++k) {
        const std::uint32_t part = m_ast.kid(n, k);
        s += k > 0 ? ", " : "";
        s += m_ast.node(part).kind == PyKind::Empty ? std::string_view("None")
                                                    : nodeSpan(m_ast, m_toks, part);
    }
    return s + ")";
}

Argument Lowering::argument(std::uint32_t i)
{
    const PyNode& n = m_ast.node(i);
    switch (n.kind) {
    case PyKind::Name: return name(n.text);
    case PyKind::Int:
    case PyKind::Float: return number(n, false);
    case PyKind::String: return Argument::string(unquote(n.text));
    case PyKind::Unary: return unary(i);
    case PyKind::Attribute: return attribute(i);
    case PyKind::Call: return call(i);
    case PyKind::Slice: return Argument::expr(sliceText(i));
    case PyKind::Tuple:
    case PyKind::List: {
        std::vector<Argument> items;
        items.reserve(n.numKids);
        for (std::uint32_t k = 0; k < n.numKids; ++k) {
            items.push_back(argument(m_ast.kid(n, k)));
        }
        return n.kind == PyKind::Tuple ? Argument::tuple(std::move(items))
                                       : Argument::list(std::move(items));
    }
    default: return Argument::expr(std::string(nodeSpan(m_ast, m_toks, i)));
    }
}

void Lowering::callArgs(const PyNode& call, graph::Node& out)
{
    for (std::uint32_t k = 1; k < call.numKids; ++k) {
        const std::uint32_t a = m_ast.kid(call, k);
        const PyNode& an = m_ast.node(a);
        if (an.kind == PyKind::Keyword) {
            out.kwargs.emplace_back(std::string(an.text), argument(m_ast.kid(an, 0)));
        } else {
            out.args.push_back(argument(a));
        }
    }
}

bool Lowering::callNode(std::uint32_t i, graph::Node& out, std::string& why)
{
    const PyNode& n = m_ast.node(i);
    const std::uint32_t callee = m_ast.kid(n, 0);
    const PyNode& cn = m_ast.node(callee);
    std::string storage;
    const std::string_view dotted = dottedName(m_ast, callee, storage);
    const std::string_view root = dottedRoot(m_ast, callee);
    const bool onNode = cn.kind == PyKind::Attribute && (root.empty() || m_names.count(root) > 0);
    if (onNode) {
        out.op = graph::OpKind::CallMethod; // x.relu(), x.view(4, -1)
        out.target = std::string(cn.text);
        out.args.push_back(argument(m_ast.kid(cn, 0)));
    } else if (root == "self" && cn.kind == PyKind::Attribute) {
        out.op = graph::OpKind::CallModule;
        out.target = std::string(dotted.substr(5));
    } else if (startsWith(dotted, "torch.ops.")) {
        out.op = graph::OpKind::CallFunction;
        out.target = opsTarget(dotted.substr(10));
        if (out.target.empty()) {
            why = "an operator of the form torch.ops.<namespace>.<op>.<overload>";
            return false;
        }
    } else if (!dotted.empty()) {
        out.op = graph::OpKind::CallFunction; // torch.sin, torch._C._nn.linear, getattr
        out.target = std::string(dotted);
    } else {
        why = "a function, operator or method name before '('";
        return false;
    }
    callArgs(n, out);
    return true;
}

bool Lowering::node(std::uint32_t rhs, graph::Node& out, std::string& why)
{
    const PyNode& n = m_ast.node(rhs);
    out.op = graph::OpKind::CallFunction;
    switch (n.kind) {
    case PyKind::Call: return callNode(rhs, out, why);
    case PyKind::Subscript:
        out.target = "operator.getitem";
        out.args.push_back(argument(m_ast.kid(n, 0)));
        out.args.push_back(argument(m_ast.kid(n, 1)));
        return true;
    case PyKind::Binary:
        out.target = std::string(graph::operatorTarget(n.text, false));
        out.args.push_back(argument(m_ast.kid(n, 0)));
        out.args.push_back(argument(m_ast.kid(n, 1)));
        return !out.target.empty();
    case PyKind::Unary:
        out.target = std::string(graph::operatorTarget(n.text, true));
        out.args.push_back(argument(m_ast.kid(n, 0)));
        return !out.target.empty();
    case PyKind::Attribute: {
        const std::string_view root = dottedRoot(m_ast, rhs);
        if (root == "self") {
            out.op = graph::OpKind::GetAttr; // self.fwd_body_0
            out.target = dottedName(m_ast, rhs).substr(5);
            return true;
        }
        if (root.empty() || m_names.count(root) > 0) {
            out.target = "builtins.getattr"; // x.shape
            out.args.push_back(argument(m_ast.kid(n, 0)));
            out.args.push_back(Argument::string(std::string(n.text)));
            return true;
        }
        break;
    }
    default: break;
    }
    why = "a call, operator, subscript or attribute";
    return false;
}

} // namespace fxs::io::detail
