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
    int statements = 0;      // statements seen in the text (each becomes one node)
    int unparsedLines = 0;   // non-blank, non-comment lines that could not be read
};

// text: the graph code; sourcePath/firstLine: where it sits (a TORCH_TRACE payload starts at
// the line after its envelope), used for every diagnostic and for Node::line.
// keepText: store the text in the Graph for the code panel.
GraphCodeResult parseGraphCode(std::string_view text, const std::string& sourcePath,
                               int firstLine = 1, bool keepText = true);

// Parses an annotation string such as "f32[64, 64][64, 1]cuda:0", "i64[]", "Sym(s0)".
// Returns ValueMeta::Kind::Other (text kept) for anything it cannot interpret.
graph::ValueMeta parseValueMeta(std::string_view annotation);

} // namespace fxs::io
