#include "core/layout/readable_opening.h"

#include <algorithm>
#include <vector>

namespace fxs::layout {
namespace {

// Layouts tried one group at a time before whole levels are collapsed at once.
constexpr int kMaxLayouts = 12;

// The expanded group to collapse next: of the expanded groups holding no expanded group, the
// one whose frame is the longest along the side that does not fit (a tall repeated block
// before the short module beside it); kNoGroup when only the root is expanded.
GroupId nextToCollapse(const ViewGraph& view, const LayoutResult& laid, const FitTarget& target)
{
    std::vector<char> hasExpandedChild(view.groups().size(), 0);
    for (const Group& g : view.groups()) {
        if (g.id != kRootGroup && view.isExpanded(g.id) && g.parent != kNoGroup) {
            hasExpandedChild[g.parent] = 1;
        }
    }
    const bool tall = laid.bbox.height() * target.width >= laid.bbox.width() * target.height;
    GroupId best = kNoGroup;
    double longest = -1;
    for (const ClusterBox& c : laid.clusters) {
        if (c.group == kRootGroup || c.group >= view.groups().size() ||
            !view.isExpanded(c.group) || hasExpandedChild[c.group]) {
            continue;
        }
        const double side = tall ? c.rect.height() : c.rect.width();
        if (side > longest) {
            longest = side;
            best = c.group;
        }
    }
    return best;
}

} // namespace

double fittedScale(const Rect& bbox, const FitTarget& target)
{
    const double w = std::max(bbox.width(), 1.0);
    const double h = std::max(bbox.height(), 1.0);
    return std::min({target.width / w, target.height / h, 1.0});
}

Result<LayoutResult> layoutReadable(ViewGraph& view, const LayoutOptions& options,
                                    const FitTarget& target)
{
    for (int layouts = 1;; ++layouts) {
        auto laid = layoutViewGraph(view, options);
        if (!laid.ok() || fittedScale(laid->bbox, target) >= target.minScale) {
            return laid;
        }
        const GroupId next = nextToCollapse(view, *laid, target);
        if (next == kNoGroup) {
            return laid;
        }
        if (layouts < kMaxLayouts) {
            view.setExpanded(next, false);
            continue;
        }
        // Many groups: the rest of that group's level at once.
        for (const Group& g : view.groups()) {
            if (g.depth == view.group(next).depth) {
                view.setExpanded(g.id, false);
            }
        }
    }
}

} // namespace fxs::layout
