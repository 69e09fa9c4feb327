// Horizontal fusion of matrix products (issue 27): `mm` nodes that multiply one operand by
// several others become one product of the shared operand with the others laid side by side.
// LLaMA's q/k/v and gate/up projections read one normalised activation (shared left operand:
// one wider product, each result a column block of it); a training step's weight gradients
// read one saved activation (shared right operand: one taller product, each gradient a row
// block). At the small sizes of real layers each product is bound by its launch and ramp-up,
// so one product of the combined size costs about what one of them did. Pure graph work here:
// which nodes form groups; matmul_fusion.h runs them.
#pragma once

#include "core/graph/graph.h"

#include <array>
#include <string>
#include <vector>

namespace fxs::compile {

struct MatmulGroup {
    std::string id;                    // "mm0", "mm1", ... (the compiled run's step name)
    std::vector<graph::NodeId> nodes;  // the mm nodes, graph order (at least two)
    // The operand the nodes share: 0, the left one (results are column blocks of one product
    // and so not contiguous); 1, the right one (row blocks: contiguous). 2: none, the products
    // are summed (a backward's input gradient, q/k/v's three products added): the left
    // operands side by side times the right ones stacked is the sum, one product over the
    // joined inner dim; `sumNodes` are the views and adds that summed them, `root` the last
    // add, the only value the step makes. 3: none, the products are independent and of one
    // shape, and only the graph's outputs read them (through views): a training step's weight
    // gradients of one shape, layer after layer. They run as one batched product (one cuBLAS
    // call for all of them, on CUDA) where the last of their operands is made, so every member's
    // operands stay alive until then (at most kMaxDeferredBytes of them beyond the graph's
    // inputs a group).
    int shared = 0;
    std::vector<graph::NodeId> sumNodes;
    graph::NodeId root = graph::kNoNode;
    // Whether the shared operands are one value by the graph alone (the same node, or the same
    // views of it): the run then reads the first node's. Otherwise (backward placeholders
    // the forward fills) the run compares the tensors and multiplies separately when they
    // differ.
    bool sameByGraph = true;
    // Per side (0: the left operands, 1: the right ones): whether every member's operand there
    // is an input of the graph, directly or through pure views outside `excluded` (a weight,
    // its `t()`), that no node of the graph writes in place, directly or through a view. The
    // run may then keep those operands laid side by side between runs while the same,
    // unchanged tensors come back (matmul_fusion.h).
    std::array<bool, 2> inputOperands{false, false};
};

// The most a batched group (shared == 3) keeps alive of its members' operands that are not
// graph inputs, waiting for its last member's: past it, a new group starts.
inline constexpr std::int64_t kMaxDeferredBytes = 64ll << 20;

// Groups of `mm.default` nodes sharing an operand: the same node, views of one value with the
// same arguments (LLaMA's `view(x, [64, 128])` once per projection), or backward placeholders
// the forward graph fills with such views (`forward`, which may be null; the run checks at
// run time that the tensors are the same, and multiplies separately when they are not; a
// forward given for inputs read from a file is not one that fills them).
// A node joins a group only when both operands are 2-D of one floating dtype as the others',
// it is in none of `excluded` (nodes of regions, which run their own steps), no node of the
// group reaches another (so the group runs as one step), and — for a shared left operand —
// every view its column block passes through on the way to an operator can take its strides
// (codegen::viewStrides: a `view` that would need a copy keeps the node out). Shared left
// operands are grouped first. Sums come before both: an `add.Tensor` tree (each add read
// only by the next) whose leaves are mm nodes of one [M, N] shape, each read only by the tree
// (directly or through one view to the root's sizes), none of its nodes excluded.
// With `batched`, the products left after those that only the graph's outputs read (through
// pure views), grouped by their operands' dtype, sizes and strides, in graph order: at least
// two a group, none reaching another, within kMaxDeferredBytes (shared == 3).
// Deterministic; never throws.
std::vector<MatmulGroup> findMatmulGroups(const graph::Graph& graph, const graph::Graph* forward,
                                          const std::vector<bool>& excluded,
                                          bool batched = false);

// The views and adds of the graph's sums (groups with shared == 2), which regions must leave
// out for the sums to form: `run --compiled --auto` keeps them out of its proposal.
std::vector<std::string> matmulSumNodeNames(const graph::Graph& graph);

} // namespace fxs::compile
