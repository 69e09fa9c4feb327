// One region as the graph view draws it: a tinted convex hull behind the items that show its
// nodes (a collapsed group's box stands for its nodes). Plain data written to a layer of the
// GraphDecorations; the view knows nothing of region documents or partitions.
#pragma once

#include "core/graph/argument.h"

#include <QColor>
#include <QString>

#include <vector>

namespace fxs::views {

struct RegionOverlay {
    QString id;    // stable id ("r0"); GraphDecorations::setRegionTint addresses the hull by it
    QString label; // tooltip and legend text
    std::vector<graph::NodeId> nodes;
    QColor tint;
};

} // namespace fxs::views
