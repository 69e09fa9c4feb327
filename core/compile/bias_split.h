// A graph rewrite before regions are proposed: an addmm whose bias add can ride in the pointwise
// kernel that reads its result anyway becomes mm + add, so the matmul runs without its bias
// epilogue and the add fuses into that kernel. Torch-free. Not a general epilogue matcher: only
// aten::addmm.default with a 1-D bias along the last dim.
#pragma once

#include "core/graph/graph.h"
#include "core/util/result.h"

namespace fxs::compile {

struct BiasSplitCounts {
    int addmms = 0; // aten::addmm.default nodes in the graph
    int split = 0;  // of them, rewritten as mm + add
};

// The graph with each qualifying `addmm(bias, mat1, mat2)` replaced by `mm(mat1, mat2)` (a new
// node named `<name>_mm`, a numeric suffix when taken; the addmm's meta) and `add.Tensor(.,
// bias)`. It qualifies when beta and alpha are absent or 1, the bias is 1-D of the output's last
// size with the output's floating dtype, the addmm is not returned, and either every reader is a
// pointwise op the code generator lowers (codegen::opRefusal) — then the add takes the addmm's
// name, so its users keep working — or every reader is a view/_unsafe_view/reshape that keeps
// the last size and read by such ops (and perhaps returned) — then each view reads the mm under a
// fresh name (`<view>_mm`) and the add after it takes the view's name, since the code
// generator does not fuse an add on the matmul's 2-D shape into a kernel over the view's.
// Every other node is kept as it is (meta, source, module stack, annotation), its references
// renumbered. counts, when
// given, says how many addmms there were and how many were split. Errors: the builder's.
Result<graph::GraphPtr> splitBiasEpilogues(const graph::Graph& graph,
                                           BiasSplitCounts* counts = nullptr);

} // namespace fxs::compile
