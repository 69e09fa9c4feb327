// Importer for PyTorch's printed graph code: GraphModule.print_readable (with or without
// strides/devices), TORCH_LOGS graph code, the graph payloads of TORCH_TRACE logs, and the bare
// `def forward(self, ...)` form of a cache key's `gm` component. Never throws; returns what it
// could read plus diagnostics with file:line, what was expected and what was found.
#pragma once

#include "core/graph/graph.h"
#include "core/util/diagnostics.h"

#include <string>
#include <string_view>

namespace fxs::io {

struct GraphCodeResult {
    graph::GraphPtr graph;   // null only when nothing graph-like was found
    Diagnostics diagnostics; // parse problems; the graph holds every statement that parsed
    // Nodes read, counted over the graph and all its nested submodules: one per parameter of
    // `def forward` (without self) or, in the pytree form, per declared `name: "meta"` line
    // instead; one per node-producing statement; one per return. Aliases (`l_x_ = L_x_`) and
    // `x, y, = fx_pytree.tree_flatten_spec(...)` lines make no node and are not counted.
    int statements = 0;
    // Physical lines that could not be read: every line of a statement that failed, plus text
    // outside any graph. Blank and comment lines never count.
    int unparsedLines = 0;
};

// text: the graph code; sourcePath/firstLine: where it sits (a TORCH_TRACE payload starts at
// the line after its envelope), used for every diagnostic and for Node::line.
// keepText: store the text in the (top-level) Graph for the code panel; submodules keep none.
// Node::statement is the statement as written (multi-line ones verbatim, from their first
// character); Node::source/annotation come from the comment group above a statement (not for
// placeholders and the output node). Names that are neither nodes nor known constants become
// Argument::expr with a warning. Only the first top-level class is returned (a warning names
// any other). Thread-safe: no shared state.
GraphCodeResult parseGraphCode(std::string_view text, const std::string& sourcePath,
                               int firstLine = 1, bool keepText = true);

// Parses an annotation string such as "f32[64, 64][64, 1]cuda:0", "i64[]", "Sym(s0)".
// Returns ValueMeta::Kind::Other (text kept) for anything it cannot interpret.
graph::ValueMeta parseValueMeta(std::string_view annotation);

} // namespace fxs::io
