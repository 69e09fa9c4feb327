// The layout of large graphs: each expanded group's interior (its visible items and the frames
// of its expanded child groups) is one dot run of its own, children before parents, and the
// levels are composed by placing each child level inside its frame. Levels are cached by
// content (layout_cache.h): identical modules expanded alike are laid out once, and expanding
// one module re-runs dot only for that module and the levels around it.
//
// Edges between two items of one level keep dot's splines; an edge that enters or leaves a
// group is drawn as a bezier from its source's bottom to its target's top.
//
// Typical use (layoutViewGraph calls it for graphs over LayoutOptions::hierarchicalAbove nodes):
//   LayoutOptions o; o.cache = std::make_shared<LayoutCache>();   // kept across re-layouts
//   auto laid = layoutHierarchical(view, o);
// Errors: Cancelled (polled between levels), Runtime when dot fails on a level.
// Threading: as graph_layout.h; the cache may be shared between threads.
#pragma once

#include "core/layout/graph_layout.h"

namespace fxs::layout {

Result<LayoutResult> layoutHierarchical(const ViewGraph& view, const LayoutOptions& options);

} // namespace fxs::layout
