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
    // Per output (or empty): the strides eager lays the value out with (empty: unknown). A
    // kernel without reductions whose output eager makes in a permuted dense layout (channels_
    // last) iterates its index space in that memory order and stores with those strides;
    // otherwise outputs are contiguous.
    std::vector<std::vector<std::int64_t>> outputStrides;
};

// Error::Unsupported names the node and op the lowering cannot handle (the caller falls back
// to LibTorch for the region); Error::Invalid for a request that contradicts the graph.
Result<RegionProgram> lowerRegion(const LoweringRequest& request);

// Why the code generator does not take a node. Not persisted: core/compile maps each kind to
// its numbered reasons.
enum class RefusalKind : std::uint8_t {
    Op,    // the op is not lowered (it stays a LibTorch call)
    Dtype, // the node or an input has an element type kernels do not handle
    Shape, // the op is lowered, but not with these shapes or arguments
};
struct Refusal {
    RefusalKind kind = RefusalKind::Op;
    std::string message; // a sentence for users, naming the op or dtype
};

// Why the lowering cannot take this node judged by its op and its own dtype, or nullopt (the
// node may still be refused for its shapes or its inputs when lowered: nodeRefusal).
std::optional<Refusal> opRefusal(const graph::Node& node);

// The one answer to "does the code generator take this node?" (the automatic proposal asks it;
// region schedules follow the same rules): opRefusal, then the dtypes of its inputs, then a
// trial lowering of the node (with the getitems that unpack it) as a kernel of its own, which
// finds what the op name cannot tell: a reduction over leading dims, a backward whose weight
// gradients are read. Views and nodes or inputs without concrete meta are judged by op and
// dtype alone (a view is fused into its readers or stays a free LibTorch view).
// Cost: one small lowering per call (microseconds). Implemented in node_support.cpp.
std::optional<Refusal> nodeRefusal(const graph::Graph& graph, graph::NodeId id);

// True for views that are pure index arithmetic (view, permute, t, expand, select, ...): free in
// eager, so a schedule leaves one that only feeds LibTorch calls to LibTorch.
bool isViewNode(const graph::Node& node);

// Strides for viewing (sizes, strides) as newSizes without copying (ATen's computeStride, the
// rule of `view`); nullopt when the view would need a copy.
std::optional<std::vector<std::int64_t>> viewStrides(const std::vector<std::int64_t>& sizes,
                                                     const std::vector<std::int64_t>& strides,
                                                     const std::vector<std::int64_t>& newSizes);

// The buffer a node's meta describes (dtype, concrete sizes, strides; contiguous when none are
// printed), or nullopt when the node has no concrete tensor meta of a supported dtype.
std::optional<BufferSpec> bufferSpecFromMeta(const graph::Node& node);

// Row-major strides of a buffer of these sizes (a size-0 or size-1 dim counts as 1).
std::vector<std::int64_t> contiguousStrides(const std::vector<std::int64_t>& sizes);

// dtype of a graph tensor as a kernel scalar type; nullopt for types kernels do not handle.
std::optional<ScalarType> scalarTypeOf(graph::DType t);

} // namespace fxs::codegen
