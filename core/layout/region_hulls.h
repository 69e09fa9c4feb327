// Region hulls of a laid-out view: visible items that share one annotation value
// (compile_with_inductor), sit in the same expanded group and are connected by edges form one
// region; each gets the convex hull of its padded boxes. Pure geometry on a LayoutResult; no
// Graphviz.
#pragma once

#include "core/layout/graph_layout.h"

#include <string>
#include <vector>

namespace fxs::layout {

// values: the graph's distinct region values (ViewGraph::regionValues()); a hull's tint is its
// value's index there, so colours stay put when groups expand or collapse.
std::vector<RegionHull> computeRegionHulls(const LayoutResult& layout,
                                           const std::vector<std::string>& values,
                                           double padding = 8.0);

// Convex hull (Andrew's monotone chain), counter-clockwise, without repeated end point.
std::vector<Point> convexHull(std::vector<Point> points);

} // namespace fxs::layout
