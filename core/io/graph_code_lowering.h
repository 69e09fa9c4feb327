// Turns parsed Python expressions of printed graph code into graph arguments and node
// targets: `torch.ops.aten.add.Tensor(x, 1)` -> call_function "aten::add.Tensor",
// `x.relu()` -> call_method, `x[0]` / `a @ b` -> operator.*, `self.sub` -> get_attr, literals and
// torch constants -> Argument kinds. Internal to fxscope_io; knows nothing of lines or comments.
#pragma once

#include "core/graph/node.h"
#include "core/io/py_expr.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fxs::io::detail {

// FNV-1a: node names are short identifiers; cheaper than std::hash's Murmur for them.
struct NameHash {
    std::size_t operator()(std::string_view s) const noexcept
    {
        std::uint64_t h = 14695981039346656037ull;
        for (const char c : s) {
            h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
        }
        return static_cast<std::size_t>(h);
    }
};

// Graph-local names (views into the source text) -> node ids.
using NameMap = std::unordered_map<std::string_view, graph::NodeId, NameHash>;

class Lowering {
public:
    Lowering(const PyAst& ast, const std::vector<PyToken>& toks, const NameMap& names)
        : m_ast(ast), m_toks(toks), m_names(names)
    {
    }

    // Any expression in argument position. Unknown bare names become Expr and are listed in
    // unknownNames().
    graph::Argument argument(std::uint32_t i);
    // The right-hand side of `name = rhs` as op/target/args/kwargs. False (with *why) when the
    // expression does not describe a node (a literal, a bare name, ...).
    bool node(std::uint32_t rhs, graph::Node& out, std::string& why);

    const std::vector<std::string_view>& unknownNames() const { return m_unknown; }

private:
    graph::Argument name(std::string_view text);
    graph::Argument number(const PyNode& n, bool negate);
    graph::Argument attribute(std::uint32_t i);
    graph::Argument call(std::uint32_t i);
    graph::Argument unary(std::uint32_t i);
    std::string sliceText(std::uint32_t i);
    bool callNode(std::uint32_t i, graph::Node& out, std::string& why);
    void callArgs(const PyNode& call, graph::Node& out);

    const PyAst& m_ast;
    const std::vector<PyToken>& m_toks;
    const NameMap& m_names;
    std::vector<std::string_view> m_unknown;
};

// "aten.add.Tensor" (after "torch.ops.") -> "aten::add.Tensor"; "higher_order.cond" ->
// "higher_order.cond"; empty when malformed.
std::string opsTarget(std::string_view afterTorchOps);

} // namespace fxs::io::detail
