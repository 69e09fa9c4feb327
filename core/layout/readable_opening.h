// How a graph opens: as deep as its drawing stays readable when fitted in a window. Decided by
// laying the graph out, not by counting nodes: a 284-node chain expanded is a sliver no window
// can show, a 280-node graph of short parallel branches reads well. Used by the GUI for the
// first layout of a graph and by `render`/`report`, so both open a graph alike. Not for a state
// the user arranged (a restored view state is applied as it is).
#pragma once

#include "core/layout/graph_layout.h"

namespace fxs::layout {

// The window a graph is fitted in (points at zoom 1) and the least zoom that reads.
struct FitTarget {
    double width = 1500;
    double height = 800;
    // Collapsed-group labels (11 pt) and node titles (9 pt) read at ≥ ~5 px: about 0.55.
    double minScale = 0.55;
};

// The zoom at which the drawing fits the target (never above 1).
double fittedScale(const Rect& bbox, const FitTarget& target);

// Lays the view out at its state; while the drawing fitted in `target` is below minScale,
// collapses the deepest expanded groups (one level at a time, the inputs group with its
// level) and lays out again. `view` is left at the chosen state; the result is its layout.
// At most one layout per level of nesting; a graph whose groups are all collapsed is laid
// out once.
Result<LayoutResult> layoutReadable(ViewGraph& view, const LayoutOptions& options,
                                    const FitTarget& target = {});

} // namespace fxs::layout
