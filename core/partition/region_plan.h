// The region plan that tools/python/fxscope_regions.py applies inside torch.compile: the graph
// it was made from (path, SHA-256), and per region the value to write into
// node.meta["custom"]["compile_with_inductor"] and its nodes by name with their source
// file:line (the module's fallback when names differ). Format documented in README.md.
#pragma once

#include "core/partition/partitioner.h"
#include "core/partition/region.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::partition {

inline constexpr int kRegionPlanVersion = 1;

// The plan as pretty JSON. A region's "value" is its options object when it has options,
// else its annotation's value for `key`, else its index (distinct values keep regions apart).
std::string makeRegionPlan(const graph::Graph& graph, const std::vector<Region>& regions,
                           const std::string& sourcePath, std::string_view sourceText,
                           std::string_view key = kInductorKey);

} // namespace fxs::partition
