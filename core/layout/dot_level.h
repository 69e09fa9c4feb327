// INTERNAL to core/layout: one dot run over one level of the hierarchical layout — boxes of
// given sizes and the edges between them, no clusters — under the global Graphviz lock.
#pragma once

#include "core/layout/layout_cache.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace fxs::layout::detail {

struct LevelInput {
    std::vector<std::pair<double, double>> sizes; // width, height in points
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
};

Result<LevelLayout> layoutLevel(const LevelInput& level, const LayoutOptions& options);

// The point of a cubic bezier path (p0, c1, c2, p, ...) at its middle segment's t = 0.5, where
// an edge's count label goes.
Point pathMidpoint(const std::vector<Point>& points);

} // namespace fxs::layout::detail
