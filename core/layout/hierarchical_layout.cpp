#include "core/layout/hierarchical_layout.h"

#include "core/layout/dot_level.h"
#include "core/layout/layout_cache.h"
#include "core/layout/region_hulls.h"
#include "core/util/digest.h"

#include <cmath>
#include <unordered_map>

namespace fxs::layout {

namespace {

// A box of a level: a visible item, or the frame of an expanded child group (another level).
struct Slot {
    bool level = false;
    std::uint32_t index = 0; // item index, or level index
};

// Where a visible edge is drawn: at the level of its endpoints' nearest common group, between
// the slots holding them; `direct` when both slots are the items themselves (dot's spline).
struct EdgePlace {
    std::uint32_t level = 0;
    std::uint32_t localEdge = 0;
    bool direct = false;
};

class Composer {
public:
    Composer(const ViewGraph& view, const LayoutOptions& options, LayoutResult& out)
        : m_view(view), m_o(options), m_out(out), m_vis(out.visible)
    {
    }

    Status run()
    {
        collectLevels();
        placeEdges();
        m_frame.assign(m_groups.size(), {0, 0});
        m_laid.resize(m_groups.size());
        for (std::size_t i = m_groups.size(); i-- > 0;) { // children before parents
            if (m_o.cancel.isCancelled()) {
                return makeError(ErrorCode::Cancelled, "layout cancelled");
            }
            if (Status s = layOut(static_cast<std::uint32_t>(i)); !s.ok()) {
                return s;
            }
        }
        compose();
        return {};
    }

private:
    void collectLevels()
    {
        std::unordered_map<GroupId, std::uint32_t> itemOfGroup;
        for (std::uint32_t i = 0; i < m_vis.items.size(); ++i) {
            if (m_vis.items[i].isGroup) {
                itemOfGroup[m_vis.items[i].index] = i;
            }
        }
        m_groups.push_back(m_view.focus());
        m_groups.insert(m_groups.end(), m_vis.clusters.begin(), m_vis.clusters.end());
        for (std::uint32_t l = 0; l < m_groups.size(); ++l) {
            m_levelOf[m_groups[l]] = l;
        }
        m_slots.resize(m_groups.size());
        m_parent.assign(m_groups.size(), 0);
        m_slotIndex.assign(m_groups.size(), 0);
        m_itemSlot.assign(m_vis.items.size(), 0);
        for (std::uint32_t l = 0; l < m_groups.size(); ++l) {
            for (const ViewChild& c : m_view.group(m_groups[l]).children) {
                Slot s;
                if (!c.isGroup) {
                    s.index = m_vis.itemOfNode[c.index];
                    m_itemSlot[s.index] = static_cast<std::uint32_t>(m_slots[l].size());
                } else if (m_view.isExpanded(c.index)) {
                    s.level = true;
                    s.index = m_levelOf.at(c.index);
                    m_parent[s.index] = l;
                    m_slotIndex[s.index] = static_cast<std::uint32_t>(m_slots[l].size());
                } else {
                    s.index = itemOfGroup.at(c.index);
                    m_itemSlot[s.index] = static_cast<std::uint32_t>(m_slots[l].size());
                }
                m_slots[l].push_back(s);
            }
        }
    }

    int depthOf(std::uint32_t level) const { return m_view.group(m_groups[level]).depth; }

    void placeEdges()
    {
        m_edges.resize(m_groups.size());
        std::vector<std::unordered_map<std::uint64_t, std::uint32_t>> index(m_groups.size());
        for (const VisibleEdge& e : m_vis.edges) {
            std::uint32_t la = m_levelOf.at(m_vis.items[e.from].cluster);
            std::uint32_t lb = m_levelOf.at(m_vis.items[e.to].cluster);
            std::uint32_t sa = m_itemSlot[e.from];
            std::uint32_t sb = m_itemSlot[e.to];
            bool direct = true;
            auto up = [&](std::uint32_t& l, std::uint32_t& s) {
                s = m_slotIndex[l];
                l = m_parent[l];
                direct = false;
            };
            while (depthOf(la) > depthOf(lb)) {
                up(la, sa);
            }
            while (depthOf(lb) > depthOf(la)) {
                up(lb, sb);
            }
            while (la != lb) {
                up(la, sa);
                up(lb, sb);
            }
            EdgePlace place{la, 0, direct};
            if (sa != sb) {
                const std::uint64_t key = (std::uint64_t(sa) << 32) | sb;
                auto [it, added] = index[la].try_emplace(key, 0);
                if (added) {
                    it->second = static_cast<std::uint32_t>(m_edges[la].size());
                    m_edges[la].emplace_back(sa, sb);
                }
                place.localEdge = it->second;
            } else {
                place.direct = false; // a self-loop through a frame: drawn as a bezier
            }
            m_places.push_back(place);
        }
    }

    std::pair<double, double> sizeOf(const Slot& s) const
    {
        if (s.level) {
            return m_frame[s.index];
        }
        const ItemBox b = measureItem(m_vis.items[s.index], m_o);
        return {b.width, b.height};
    }

    Status layOut(std::uint32_t level)
    {
        detail::LevelInput in;
        std::string key;
        for (const Slot& s : m_slots[level]) {
            in.sizes.push_back(sizeOf(s));
            key += std::to_string(std::lround(in.sizes.back().first * 10)) + "x" +
                   std::to_string(std::lround(in.sizes.back().second * 10)) + ";";
        }
        in.edges = m_edges[level];
        key += "|";
        for (const auto& [a, b] : in.edges) {
            key += std::to_string(a) + ">" + std::to_string(b) + ";";
        }
        const std::uint64_t hash = xxh3(key);
        std::shared_ptr<const LevelLayout> laid = m_o.cache ? m_o.cache->find(hash) : nullptr;
        if (laid) {
            ++m_out.levelsCached;
        } else {
            auto result = detail::layoutLevel(in, m_o);
            if (!result) {
                return result.error();
            }
            laid = std::make_shared<const LevelLayout>(std::move(*result));
            m_out.seconds += laid->seconds;
            ++m_out.levelsLaidOut;
            if (m_o.cache) {
                m_o.cache->insert(hash, laid);
            }
        }
        m_laid[level] = laid;
        const double pad = m_o.clusterPadding;
        m_frame[level] = {laid->bbox.width() + 2 * pad,
                          laid->bbox.height() + 2 * pad + m_o.clusterHeader};
        return {};
    }

    // Places every level inside its frame, parents first, and fills boxes, frames and edges.
    void compose()
    {
        const std::size_t n = m_groups.size();
        std::vector<Point> shift(n); // level coordinates + shift = final coordinates
        m_out.boxes.assign(m_vis.items.size(), {});
        const Rect rootBox = m_laid[0]->bbox;
        shift[0] = {-rootBox.x0, -rootBox.y0};
        m_out.bbox = {0, 0, rootBox.width(), rootBox.height()};
        for (std::uint32_t l = 0; l < n; ++l) {
            const LevelLayout& laid = *m_laid[l];
            for (std::size_t i = 0; i < m_slots[l].size(); ++i) {
                const Slot& s = m_slots[l][i];
                const Point c{laid.centers[i].x + shift[l].x, laid.centers[i].y + shift[l].y};
                if (!s.level) {
                    const auto [w, h] = sizeOf(s);
                    m_out.boxes[s.index] = {c, w, h};
                    continue;
                }
                const auto [w, h] = m_frame[s.index];
                const Rect frame{c.x - w / 2, c.y - h / 2, c.x + w / 2, c.y + h / 2};
                const Rect& inner = m_laid[s.index]->bbox;
                shift[s.index] = {frame.x0 + m_o.clusterPadding - inner.x0,
                                  frame.y0 + m_o.clusterPadding - inner.y0};
                const Group& g = m_view.group(m_groups[s.index]);
                m_out.clusters.push_back(
                    {g.id, frame, g.label, {frame.x0 + m_o.clusterPadding, frame.y1 - 10}});
            }
        }
        m_out.edges.reserve(m_vis.edges.size());
        for (std::size_t i = 0; i < m_vis.edges.size(); ++i) {
            m_out.edges.push_back(edgePath(m_vis.edges[i], m_places[i], shift));
        }
    }

    EdgePath edgePath(const VisibleEdge& e, const EdgePlace& p,
                      const std::vector<Point>& shift) const
    {
        EdgePath path;
        if (p.direct) {
            path = m_laid[p.level]->edges[p.localEdge];
            const Point d = shift[p.level];
            for (Point& q : path.points) {
                q = {q.x + d.x, q.y + d.y};
            }
            path.arrowEnd = {path.arrowEnd.x + d.x, path.arrowEnd.y + d.y};
        } else {
            const ItemBox& a = m_out.boxes[e.from];
            const ItemBox& b = m_out.boxes[e.to];
            const Point from{a.center.x, a.center.y - a.height / 2};
            const Point tip{b.center.x, b.center.y + b.height / 2};
            const Point end{tip.x, tip.y + 6};
            const double bend = std::max(20.0, std::abs(from.y - end.y) / 3);
            path.points = {from, {from.x, from.y - bend}, {end.x, end.y + bend}, end};
            path.hasArrowEnd = true;
            path.arrowEnd = tip;
        }
        if (m_o.edgeCountLabels && e.count > 1) {
            path.hasLabel = true;
            path.label = "×" + std::to_string(e.count);
            path.labelPos = detail::pathMidpoint(path.points);
        }
        return path;
    }

    const ViewGraph& m_view;
    const LayoutOptions& m_o;
    LayoutResult& m_out;
    const VisibleGraph& m_vis;
    std::vector<GroupId> m_groups;                 // per level: the group (0: the focus)
    std::unordered_map<GroupId, std::uint32_t> m_levelOf;
    std::vector<std::vector<Slot>> m_slots;        // per level: its boxes in child order
    std::vector<std::uint32_t> m_parent;           // per level: the level holding its frame
    std::vector<std::uint32_t> m_slotIndex;        // per level: its frame's slot there
    std::vector<std::uint32_t> m_itemSlot;         // per item: its slot in its level
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> m_edges; // per level
    std::vector<EdgePlace> m_places;               // per visible edge
    std::vector<std::pair<double, double>> m_frame; // per level: frame width, height
    std::vector<std::shared_ptr<const LevelLayout>> m_laid;
};

} // namespace

Result<LayoutResult> layoutHierarchical(const ViewGraph& view, const LayoutOptions& options)
{
    LayoutResult out;
    out.visible = view.visible();
    if (options.cancel.isCancelled()) {
        return makeError(ErrorCode::Cancelled, "layout cancelled");
    }
    if (Status s = Composer(view, options, out).run(); !s.ok()) {
        return s.error();
    }
    out.regions = computeRegionHulls(out, view.regionValues());
    return out;
}

} // namespace fxs::layout
