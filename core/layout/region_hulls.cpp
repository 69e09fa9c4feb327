#include "core/layout/region_hulls.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace fxs::layout {

namespace {

std::uint32_t findRoot(std::vector<std::uint32_t>& parent, std::uint32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

double cross(const Point& o, const Point& a, const Point& b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

} // namespace

std::vector<Point> convexHull(std::vector<Point> pts)
{
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) {
        return a.x < b.x || (a.x == b.x && a.y < b.y);
    });
    if (pts.size() < 3) {
        return pts;
    }
    std::vector<Point> hull(2 * pts.size());
    std::size_t k = 0;
    for (const Point& p : pts) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], p) <= 0) {
            --k;
        }
        hull[k++] = p;
    }
    const std::size_t lower = k + 1;
    for (auto it = pts.rbegin() + 1; it != pts.rend(); ++it) {
        while (k >= lower && cross(hull[k - 2], hull[k - 1], *it) <= 0) {
            --k;
        }
        hull[k++] = *it;
    }
    hull.resize(k - 1);
    return hull;
}

std::vector<RegionHull> computeRegionHulls(const LayoutResult& layout,
                                           const std::vector<std::string>& values,
                                           double padding)
{
    const auto& items = layout.visible.items;
    std::vector<std::uint32_t> parent(items.size());
    std::iota(parent.begin(), parent.end(), 0u);
    for (const VisibleEdge& e : layout.visible.edges) {
        // Only within one cluster: a frame keeps its items together, while an edge across
        // frames may span the whole drawing and its hull would cover unrelated nodes.
        const std::string& a = items[e.from].region;
        const bool sameCluster = items[e.from].cluster == items[e.to].cluster;
        if (!a.empty() && a == items[e.to].region && sameCluster) {
            parent[findRoot(parent, e.from)] = findRoot(parent, e.to);
        }
    }
    std::map<std::uint32_t, std::size_t> hullOfRoot;
    std::vector<RegionHull> hulls;
    for (std::uint32_t i = 0; i < items.size(); ++i) {
        if (items[i].region.empty() || i >= layout.boxes.size()) {
            continue;
        }
        const auto v = std::find(values.begin(), values.end(), items[i].region);
        const auto tint = static_cast<std::size_t>(v - values.begin());
        auto [it, inserted] = hullOfRoot.try_emplace(findRoot(parent, i), hulls.size());
        if (inserted) {
            hulls.push_back({items[i].region, tint, {}, {}});
        }
        hulls[it->second].items.push_back(i);
    }
    for (RegionHull& h : hulls) {
        std::vector<Point> corners;
        for (std::uint32_t i : h.items) {
            const ItemBox& b = layout.boxes[i];
            const double hw = b.width / 2 + padding;
            const double hh = b.height / 2 + padding;
            for (int sx : {-1, 1}) {
                for (int sy : {-1, 1}) {
                    corners.push_back({b.center.x + sx * hw, b.center.y + sy * hh});
                }
            }
        }
        h.polygon = convexHull(std::move(corners));
    }
    return hulls;
}

} // namespace fxs::layout
