// Regions from the graph's own annotations, with the semantics of regional inductor's
// CapabilityBasedPartitioner: annotated nodes form regions, a region never makes the contracted
// graph cyclic (it is split; the split names the path), placeholders/output never inside. Unlike
// PyTorch, different annotation values never share a region and regions grow along edges only
// (no horizontal fusion). Not the automatic proposal (auto_proposal.h).
#pragma once

#include "core/partition/region.h"
#include "core/partition/region_former.h"

#include <string>

namespace fxs::partition {

inline constexpr std::string_view kInductorKey = "compile_with_inductor";

struct AnnotationOptions {
    std::string key{kInductorKey}; // the annotation entry that marks a node for a region
};

// Regions are numbered r0, r1, ... by their first node. A region's annotation is the first
// node's whole annotation (JSON); its options are the key's value when that is a dict (as in
// {"compile_with_inductor": {"inductor_configs": {...}}}). Every call node outside the regions
// is listed in `excluded` (NotAnnotated, or TupleOutside for an annotated getitem whose producer
// is not annotated). Never fails: a graph without annotations gives no regions.
Partition partitionByAnnotation(const graph::Graph& graph, const AnnotationOptions& options = {});

// Turns the engine's refusals into notes with region ids and readable paths (deduplicated per
// pair of regions). Shared with the proposal.
std::vector<SplitNote> splitNotes(const graph::Graph& graph, const std::vector<Region>& regions,
                                  const FormedRegions& formed);

} // namespace fxs::partition
