// Lowers a region of an FX graph (pointwise ops with broadcasting and type promotion, trailing-
// dim reductions and their composites, index-arithmetic views) to one loop-IR kernel, fusing
// everything into it: pointwise into pointwise, pointwise into reduction prologues/epilogues.
// Specialised on concrete input sizes/strides/dtypes. Not a scheduler for matmul/conv (those
// are not lowered) and not a printer (cpp_printer.h).
#pragma once

#include "core/codegen/loop_ir.h"
#include "core/graph/graph.h"
#include "core/util/result.h"

#include <optional>
#include <string>
#include <vector>

namespace fxs::codegen {

struct LoweringRequest {
    const graph::Graph* graph = nullptr;
    std::string regionId;               // for comments and errors ("r0")
    std::vector<graph::NodeId> order;   // region nodes, topological order
    std::vector<graph::NodeId> inputs;  // nodes outside the region it reads (slot order)
    std::vector<graph::NodeId> outputs; // region nodes whose values leave it (slot order)
    // One per input: dtype, sizes, strides of the tensors the kernel will be called with.
    // Empty: taken from the input nodes' meta (contiguous strides when none are printed).
    std::vector<BufferSpec> inputSpecs;
};

// Error::Unsupported names the node and op the lowering cannot handle (the caller falls back
// to LibTorch for the region); Error::Invalid for a request that contradicts the graph.
Result<RegionProgram> lowerRegion(const LoweringRequest& request);

// Why the lowering cannot take this node, or nullopt when its op is supported (the node may
// still be rejected for its shapes when lowered). For the partitioner and the views.
std::optional<std::string> unsupportedReason(const graph::Node& node);

// True for views that are pure index arithmetic (view, permute, t, expand, select, ...): free in
// eager, so a schedule leaves one that only feeds LibTorch calls to LibTorch.
bool isViewNode(const graph::Node& node);

// dtype of a graph tensor as a kernel scalar type; nullopt for types kernels do not handle.
std::optional<ScalarType> scalarTypeOf(graph::DType t);

} // namespace fxs::codegen
