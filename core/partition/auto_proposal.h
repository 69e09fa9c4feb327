// The automatic proposal: maximal acyclic regions of the nodes fxscope's code generator lowers
// (it asks codegen::nodeRefusal, so every proposed node becomes generated code, or a view left
// to LibTorch as region schedules document), each left-out node with its reason. A starting
// point users edit; not the annotation partitioner (partitioner.h).
#pragma once

#include "core/partition/region.h"

#include <optional>
#include <string>
#include <vector>

namespace fxs::partition {

struct ProposalOptions {
    // The device regions run on; default: the most common device of the call nodes' values.
    std::optional<graph::Device> device;
    std::vector<std::string> excludedNodes; // node names the user keeps out
    // Regions with fewer nodes, or with nothing but view ops, are dropped (nothing to fuse).
    int minNodes = 2;
};

// Whether the code generator takes the node (codegen::nodeRefusal finds no refusal): the rule
// of the proposal and of growing a region from a node in the app.
bool isSupportedByRegionCompiler(const graph::Graph& graph, graph::NodeId id);

// The most common device among call nodes' tensor values; nullopt when none is known.
std::optional<graph::Device> mainDevice(const graph::Graph& graph);

// Regions are numbered r0, r1, ... by first node and carry no annotation. Every call node left
// out is in `excluded` with one reason (user excluded, unsupported op, not lowered for its dtype
// or shapes, other device, getitem of an outside tuple, would form a cycle, nothing to fuse)
// and, for cycles, the path.
Partition proposeRegions(const graph::Graph& graph, const ProposalOptions& options = {});

} // namespace fxs::partition
