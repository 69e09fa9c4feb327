// Convolutions with their epilogue (issue 27): an inference graph's `convolution` followed by its
// batch norm and, where the graph has them, the residual add and the relu, become one step of the
// compiled run on CUDA: one cuDNN graph (exec::detail::cudnnFusedConv) computing relu(conv(x, w) *
// scale + shift + residual), scale and shift the batch norm's per-channel affine (weight / sqrt(var
// + eps), bias - mean * scale) kept between runs while its sources are unchanged. ResNet-18: 19 of
// its 20 convolutions (the 3-channel stem stays LibTorch's), 19 steps instead of 19 LibTorch
// convolutions and 16 region kernels. The nodes after the convolution are kept out of the regions'
// proposal for that (`run --compiled --auto` on CUDA). Where cuDNN cannot make a shape (or another
// device), the step computes the same with LibTorch's operators, as the eager run does.
#pragma once

#include "core/compile/graph_compile.h"
#include "core/exec/interpreter.h"
#include "core/graph/graph.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxs::compile {

struct ConvEpilogue {
    std::string id; // "conv0", "conv1", ... (the compiled run's step name)
    graph::NodeId conv = graph::kNoNode;
    graph::NodeId norm = graph::kNoNode; // _native_batch_norm_legit_no_training
    graph::NodeId item = graph::kNoNode; // its getitem 0
    graph::NodeId add = graph::kNoNode;  // add.Tensor of the item and `residual`, or none
    graph::NodeId residual = graph::kNoNode;
    graph::NodeId relu = graph::kNoNode; // relu of the last of the above, or none
    graph::NodeId last = graph::kNoNode; // the value the step makes
    std::vector<graph::NodeId> nodes;    // conv .. last, graph order
    std::array<std::int64_t, 2> stride{1, 1};
    std::array<std::int64_t, 2> padding{0, 0};
    std::array<std::int64_t, 2> dilation{1, 1};
    double momentum = 0.0;
    double eps = 0.0;
};

// `convolution.default` nodes (2-D: stride, padding and dilation of two, not transposed, one group,
// no bias; input channels a multiple of 4 where the graph gives them) read only by an
// `_native_batch_norm_legit_no_training.default` whose only user is its getitem 0 (its statistics
// unused), then, each only user of the one before, an `add.Tensor` (no alpha) of that value and
// another of the same sizes and dtype, then a `relu.default`. float32 where the graph says a dtype.
// None of their nodes in `excluded` (the nodes of regions; an excluded add or relu ends the chain
// before it). Graph order; never throws.
std::vector<ConvEpilogue> findConvEpilogues(const graph::Graph& graph,
                                            const std::vector<bool>& excluded);

// The nodes after each convolution (norm, getitem, add, relu) of findConvEpilogues with nothing
// excluded: `run --compiled --auto` keeps them out of its proposal on CUDA.
std::vector<std::string> convEpilogueNodeNames(const graph::Graph& graph);

// How the steps ran, summed over all of them: those made as one cuDNN graph (the others ran
// LibTorch's operators: no plan, another device, not asked).
struct ConvEpilogueRuns {
    std::atomic<long> cudnn{0};
};

// Whether `choice` makes the steps for a graph compiled for `device` (Auto: CUDA, with cuDNN's
// backend API in the process: exec::detail::cudnnFusedConvAvailable).
bool convFusionApplies(ConvFusion choice, TargetDevice device);

// On CUDA, before the steps' first run: builds the cuDNN plans of the epilogues whose input and
// weight sizes the graph gives, several at once (exec::detail::prebuildFusedConvPlans), so that
// a first run does not build them one after another. Returns how many shapes got a plan.
int prebuildConvPlans(const graph::Graph& graph, const std::vector<ConvEpilogue>& epilogues);

// One substitute per epilogue, named by its id. direct: on CUDA try cuDNN first (else always
// LibTorch's operators); channelsLast: the LibTorch path makes the convolution's input and
// weight channels_last first, as the eager run does under ConvLayout::ChannelsLast.
std::vector<exec::Substitute> convSubstitutes(const graph::Graph& graph,
                                              const std::vector<ConvEpilogue>& epilogues,
                                              std::shared_ptr<ConvEpilogueRuns> runs,
                                              bool direct, bool channelsLast);

} // namespace fxs::compile
