// Canonical texts of a region for the cache key: the region graph with node order and names
// normalised (isomorphic regions from different graphs print the same text), and input tensor
// meta. Not a printer for users (graph/ has those) and not a hash (cache_key.h digests).
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxs::cache {

struct RegionSignature {
    std::string text;                   // canonical graph text (no node names, no meta)
    std::vector<graph::NodeId> order;   // region nodes in canonical order (topological)
    std::vector<graph::NodeId> inputs;  // nodes outside the region it reads, canonical order
    std::vector<graph::NodeId> outputs; // region nodes read outside it (or returned)
};

// nodes: the region's nodes (any order, no duplicates, no placeholders/output). Nodes are
// renamed v0, v1, ... in a depth-first post-order from the outputs (argument order), inputs
// in0, in1, ... in order of first use; so the text does not depend on the printed order of
// independent nodes or on their names.
RegionSignature canonicalizeRegion(const graph::Graph& graph,
                                   const std::vector<graph::NodeId>& nodes);

// "dtype=float32;sizes=[4,8];strides=[8,1];device=cpu" — ';'-separated fields, so the
// explainer can name the field that changed.
std::string canonicalTensorMeta(std::string_view dtype, const std::vector<std::int64_t>& sizes,
                                const std::vector<std::int64_t>& strides,
                                std::string_view device);
// The same from a graph annotation; symbolic sizes print as their expression, missing strides
// as contiguous strides when all sizes are concrete, else "?".
std::string canonicalTensorMeta(const graph::TensorMeta& meta);

} // namespace fxs::cache
