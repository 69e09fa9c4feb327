// Prints a Graph as PyTorch-style printed graph code (what GraphModule.print_readable shows):
// class line, forward signature with metas and AOT comments, `# File:` / `# Annotation:`
// comment groups, one statement per node, the return and nested submodule classes. For the code
// panel, exports and round-trip tests; it does not reproduce PyTorch's text byte for byte (no
// `;  x = None` tails, its own line breaks).
#pragma once

#include "core/graph/graph.h"

#include <string>

namespace fxs::graph {

// includeMeta: print `name: "f32[4][1]cuda:0"` annotations (placeholders and statements).
// The output parses back with io::parseGraphCode into the same nodes, targets, arguments,
// metas, sources, annotations and AOT tags.
std::string printGraphCode(const Graph& graph, bool includeMeta = true);

// The Python expression of one node's right-hand side: "torch.ops.aten.add.Tensor(x, 1)",
// "a @ b", "x[0]", "x.relu()", "self.fwd_body_0". Empty for placeholders and outputs.
std::string nodeExpression(const Graph& graph, const Node& node);

// Python operators of printed graph code and their call_function targets, shared by the printer
// and the importer: ("+", false) <-> "operator.add", ("-", true) <-> "operator.neg", "@" <->
// "operator.matmul", ... Empty when there is none.
std::string_view operatorTarget(std::string_view token, bool unary);
std::string_view operatorToken(std::string_view target, bool& unary);
// Augmented assignments of in-place operators: "+=" <-> "operator.iadd", "@=" <->
// "operator.imatmul", ... (FX prints `a += b;  name = a`; operator.setitem prints as
// `a[i] = v;  name = a`). Empty when there is none.
std::string_view inPlaceOperatorTarget(std::string_view token);
std::string_view inPlaceOperatorToken(std::string_view target);

} // namespace fxs::graph
