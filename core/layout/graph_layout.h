// Lays out the visible part of a ViewGraph with Graphviz `dot` and returns plain data: item
// boxes, edge splines as Graphviz gives them, expanded-group (cluster) frames, region hulls.
// Small graphs grouped by source are one dot run with clusters; graphs grouped by modules and
// large ones (LayoutOptions::hierarchicalAbove) are laid out level by level — each expanded group's interior on its own, composed bottom-up, with
// levels cached by content (layout_cache.h) — so no dot run sees more than one group's children.
// Coordinates are Graphviz points with y growing UP; drawers flip y. No Graphviz types leak out.
// Threading: callable from any thread; every Graphviz call is serialised by one global mutex.
#pragma once

#include "core/layout/view_graph.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::layout {

class LayoutCache;

struct Point {
    double x = 0;
    double y = 0;
};

struct Rect {
    double x0 = 0; // left
    double y0 = 0; // bottom (Graphviz y grows up)
    double x1 = 0; // right
    double y1 = 0; // top
    double width() const { return x1 - x0; }
    double height() const { return y1 - y0; }
};

struct ItemBox {
    Point center;
    double width = 0;
    double height = 0;
};

// A cubic bezier as Graphviz gives it: points = p0, (c1, c2, p)...; the arrowhead (when present)
// runs from the last point to arrowEnd (the tip touching the head item).
struct EdgePath {
    std::vector<Point> points;
    bool hasArrowEnd = false;
    Point arrowEnd;
    bool hasLabel = false; // aggregated edges (count > 1) carry "×count"
    Point labelPos;
    std::string label;
};

struct ClusterBox {
    GroupId group = kRootGroup;
    Rect rect;
    std::string label;
    Point labelPos;
};

// A tinted outline behind connected visible items of one expanded group sharing one annotation
// value (see region_hulls.h).
struct RegionHull {
    std::string value;       // "0" for compile_with_inductor: 0
    std::size_t tint = 0;    // index of the value among the graph's distinct values
    std::vector<Point> polygon; // convex, counter-clockwise
    std::vector<std::uint32_t> items;
};

struct LayoutResult {
    VisibleGraph visible;
    std::vector<ItemBox> boxes;     // parallel to visible.items
    std::vector<EdgePath> edges;    // parallel to visible.edges
    std::vector<ClusterBox> clusters;
    std::vector<RegionHull> regions;
    Rect bbox;
    double seconds = 0; // time spent in Graphviz
    // Hierarchical layouts: levels laid out now and levels taken from the cache.
    int levelsLaidOut = 0;
    int levelsCached = 0;
};

struct LayoutOptions {
    // Label measurement: textWidth (points) when given (must be thread-safe), else
    // charWidth * characters.
    std::function<double(std::string_view)> textWidth;
    double charWidth = 6.6;
    double lineHeight = 14.0;
    double paddingX = 12.0;
    double paddingY = 6.0;
    double minWidth = 48.0;
    double maxWidth = 280.0; // longer labels are elided by the drawer
    bool clusters = true;    // frame expanded groups as Graphviz clusters
    bool edgeCountLabels = true;
    // dot tuning for speed on large levels (see Graphviz attrs: nslimit, mclimit, searchsize).
    double nslimit = 2.0;
    double mclimit = 0.5;
    int searchsize = 30;
    CancelToken cancel = CancelToken::none();
    // Graphs with more nodes than this, and module views, are laid out level by level
    // (hierarchical_layout.h).
    std::size_t hierarchicalAbove = 300;
    // Levels laid out before (shared between layouts of one graph, or of several); null: none.
    std::shared_ptr<LayoutCache> cache;
    // Space around a level inside its group's frame, and the frame's header.
    double clusterPadding = 10.0;
    double clusterHeader = 20.0;
};

Result<LayoutResult> layoutViewGraph(const ViewGraph& view, const LayoutOptions& options = {});

// Renders the visible part with Graphviz's own renderer (format "png", "svg", "pdf", ... as the
// installed plugins allow) to path. Errors: Unsupported when the format has no plugin.
Status renderWithGraphviz(const ViewGraph& view, const LayoutOptions& options,
                          const std::string& format, const std::string& path);

// The version of the Graphviz library this process loaded ("2.43.0"), asked under the lock.
std::string graphvizVersion();

// Size of an item's box for its two label lines.
ItemBox measureItem(const VisibleItem& item, const LayoutOptions& options);

} // namespace fxs::layout
