#include "views/graph/graph_scene.h"

#include "core/graph/op_category.h"
#include "core/layout/palette.h"
#include "core/layout/region_hulls.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace fxs::views {

namespace {

constexpr double kMargin = 24.0;

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString nodeTooltip(const graph::Node& n)
{
    QString tip = QStringLiteral("%1\n%2").arg(qs(n.name), qs(std::string(opKindName(n.op))));
    if (!n.target.empty() && !n.isPlaceholder() && !n.isOutput()) {
        tip += QStringLiteral(" %1").arg(qs(n.target));
    }
    if (!n.meta.text.empty()) {
        tip += QStringLiteral("\n%1").arg(qs(n.meta.text));
    }
    if (n.source.known()) {
        tip += QStringLiteral("\n%1:%2 in %3").arg(qs(n.source.file)).arg(n.source.line)
                   .arg(qs(n.source.function));
    }
    if (n.annotation) {
        tip += QStringLiteral("\nannotation %1").arg(qs(n.annotation->text));
    }
    return tip;
}

// The arrowhead from the spline's last point to Graphviz's arrow tip.
QPolygonF arrowHead(QPointF base, QPointF tip)
{
    const QPointF d = tip - base;
    const qreal len = std::hypot(d.x(), d.y());
    if (len <= 0) {
        return {};
    }
    const QPointF n(-d.y() * 0.35, d.x() * 0.35);
    return QPolygonF({tip, base + n, base - n});
}

} // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent)
{
    // The BSP index keeps hit tests and partial repaints fast on large levels.
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
}

void GraphScene::setStyle(const GraphStyle& style)
{
    m_style = style;
    setBackgroundBrush(style.background);
    if (m_view) {
        rebuildHulls(); // their fill strength follows the background
    }
    update();
}

float GraphScene::hullAlpha() const
{
    return m_style.background.lightnessF() < 0.5f ? 0.30f : 0.16f;
}

QPointF GraphScene::toScene(const layout::Point& p) const
{
    return QPointF(p.x - m_left + kMargin, m_top - p.y + kMargin);
}

void GraphScene::clearLayout()
{
    clear();
    m_view.reset();
    m_itemOfNode.clear();
    m_itemCluster.clear();
    m_visibleItems.clear();
    m_nodes.clear();
    m_groups.clear();
    m_clusters.clear();
    m_edges.clear();
    m_hulls.clear();
    m_annotationHulls.clear();
}

void GraphScene::setLayout(const layout::LayoutResult& result,
                           std::shared_ptr<const layout::ViewGraph> view)
{
    clearLayout();
    m_view = std::move(view);
    m_top = result.bbox.y1;
    m_left = result.bbox.x0;
    m_itemOfNode = result.visible.itemOfNode;
    m_itemCluster.clear();
    for (const layout::VisibleItem& v : result.visible.items) {
        m_itemCluster.push_back(v.cluster);
    }
    m_annotationHulls = result.regions;
    for (const layout::ClusterBox& c : result.clusters) {
        const QRectF rect(toScene({c.rect.x0, c.rect.y1}), QSizeF(c.rect.width(), c.rect.height()));
        auto* item = new ClusterItem(c.group, rect, qs(c.label), &m_style);
        addItem(item);
        m_clusters.emplace(c.group, item);
    }
    addItems(result);
    addEdges(result);
    rebuildHulls();
    setSceneRect(QRectF(0, 0, result.bbox.width() + 2 * kMargin,
                        result.bbox.height() + 2 * kMargin));
    refreshMarks();
}

void GraphScene::addItems(const layout::LayoutResult& r)
{
    const graph::Graph& g = m_view->graph();
    m_visibleItems.reserve(r.visible.items.size());
    for (std::size_t i = 0; i < r.visible.items.size(); ++i) {
        const layout::VisibleItem& v = r.visible.items[i];
        const layout::ItemBox& b = r.boxes[i];
        const QSizeF size(b.width, b.height);
        QGraphicsItem* item = nullptr;
        if (v.isGroup) {
            auto* gi = new GroupItem(v.index, size, qs(v.title), qs(v.subtitle), &m_style);
            m_groups.emplace(v.index, gi);
            item = gi;
        } else {
            const graph::Node& n = g.node(v.index);
            const QColor fill(QLatin1String(layout::categoryFill(graph::categorize(n)).data()));
            auto* ni = new NodeItem(v.index, size, qs(v.title), qs(v.subtitle), fill, &m_style);
            ni->setToolTip(nodeTooltip(n));
            m_nodes.emplace(v.index, ni);
            item = ni;
        }
        item->setPos(toScene(b.center));
        addItem(item);
        m_visibleItems.push_back(item);
    }
}

void GraphScene::addEdges(const layout::LayoutResult& r)
{
    m_edges.reserve(r.edges.size());
    for (std::size_t i = 0; i < r.edges.size(); ++i) {
        const layout::EdgePath& e = r.edges[i];
        const layout::VisibleEdge& ve = r.visible.edges[i];
        if (e.points.empty()) {
            continue;
        }
        QPainterPath path(toScene(e.points[0]));
        for (std::size_t k = 1; k + 2 < e.points.size(); k += 3) {
            path.cubicTo(toScene(e.points[k]), toScene(e.points[k + 1]), toScene(e.points[k + 2]));
        }
        const QPolygonF arrow = e.hasArrowEnd
                                    ? arrowHead(toScene(e.points.back()), toScene(e.arrowEnd))
                                    : QPolygonF();
        auto* item = new EdgeItem(path, arrow, qs(e.label), toScene(e.labelPos), ve.fromNode,
                                  ve.toNode, &m_style);
        item->setData(0, static_cast<uint>(ve.from));
        item->setData(1, static_cast<uint>(ve.to));
        addItem(item);
        m_edges.push_back(item);
    }
}

void GraphScene::setRegionOverlays(std::optional<std::vector<RegionOverlay>> regions)
{
    m_regions = std::move(regions);
    if (m_view) {
        rebuildHulls();
    }
}

void GraphScene::rebuildHulls()
{
    for (HullItem* h : m_hulls) {
        removeItem(h);
        delete h;
    }
    m_hulls.clear();
    if (m_regions) {
        addOverlayHulls(*m_regions);
        return;
    }
    for (const layout::RegionHull& h : m_annotationHulls) {
        QPolygonF poly;
        for (const layout::Point& p : h.polygon) {
            poly << toScene(p);
        }
        const QColor tint(QLatin1String(layout::regionTint(h.tint).data()));
        m_hulls.push_back(new HullItem(poly, tint,
                                       tr("compile_with_inductor: %1").arg(qs(h.value)), {},
                                       hullAlpha()));
        addItem(m_hulls.back());
    }
}

// Convex hulls around the (padded) boxes of the distinct items showing each region's nodes, one
// per expanded-group frame: a hull across frames would cover unrelated nodes between them (the
// annotation hulls split the same way, core/layout/region_hulls.h). Regions shown by the same
// items of a frame (several regions inside one collapsed module) share one hull: drawn once per
// region, their translucent tints stacked into an opaque block over the module's box.
void GraphScene::addOverlayHulls(const std::vector<RegionOverlay>& regions)
{
    constexpr double kPad = 6.0;
    // One hull for each (frame, the items showing a region there) met, in the regions' order,
    // with the regions it shows.
    struct Hull {
        std::vector<std::uint32_t> items; // sorted
        std::vector<std::size_t> regions;
    };
    std::vector<Hull> hulls;
    std::map<std::pair<layout::GroupId, std::vector<std::uint32_t>>, std::size_t> hullOf;
    for (std::size_t r = 0; r < regions.size(); ++r) {
        std::unordered_set<std::uint32_t> seen;
        std::map<layout::GroupId, std::vector<std::uint32_t>> itemsByFrame;
        for (graph::NodeId id : regions[r].nodes) {
            if (id < m_itemOfNode.size() && seen.insert(m_itemOfNode[id]).second) {
                itemsByFrame[m_itemCluster.at(m_itemOfNode[id])].push_back(m_itemOfNode[id]);
            }
        }
        for (auto& [frame, items] : itemsByFrame) {
            std::sort(items.begin(), items.end());
            const auto [it, fresh] = hullOf.try_emplace({frame, items}, hulls.size());
            if (fresh) {
                hulls.push_back({std::move(items), {}});
            }
            hulls[it->second].regions.push_back(r);
        }
    }
    const auto nameOf = [](const RegionOverlay& region) {
        return region.label == region.id ? region.id
                                         : QStringLiteral("%1 (%2)").arg(region.label, region.id);
    };
    for (const Hull& hull : hulls) {
        std::vector<layout::Point> corners;
        for (std::uint32_t index : hull.items) {
            const QRectF r =
                m_visibleItems.at(index)->sceneBoundingRect().adjusted(-kPad, -kPad, kPad, kPad);
            for (const QPointF& p : {r.topLeft(), r.topRight(), r.bottomLeft(), r.bottomRight()}) {
                corners.push_back({p.x(), p.y()});
            }
        }
        QPolygonF poly;
        for (const layout::Point& p : layout::convexHull(std::move(corners))) {
            poly << QPointF(p.x, p.y);
        }
        const RegionOverlay& first = regions[hull.regions.front()];
        QString tip = tr("%1 · %n node(s)", "", int(first.nodes.size())).arg(nameOf(first));
        QStringList ids;
        QStringList names;
        constexpr qsizetype kNamed = 6;
        for (std::size_t r : hull.regions) {
            ids << regions[r].id;
            if (names.size() < kNamed) {
                names << nameOf(regions[r]);
            }
        }
        if (ids.size() > 1) {
            tip = tr("%n regions inside what this hull surrounds: %1%2", "", int(ids.size()))
                      .arg(names.join(QStringLiteral(", ")),
                           ids.size() > kNamed ? QStringLiteral(", …") : QString());
        }
        m_hulls.push_back(new HullItem(poly, first.tint, tip, ids, hullAlpha()));
        addItem(m_hulls.back());
    }
}

void GraphScene::setRegionTint(const QString& id, const QColor& tint)
{
    for (HullItem* h : m_hulls) {
        if (h->regionId() == id) { // a shared hull takes its first region's tint
            h->setTint(tint);
        }
    }
}

HullItem* GraphScene::hullItem(const QString& id) const
{
    for (HullItem* h : m_hulls) {
        if (h->regionIds().contains(id)) {
            return h;
        }
    }
    return nullptr;
}

std::vector<graph::NodeId> GraphScene::nodesInRect(const QRectF& rect) const
{
    std::vector<graph::NodeId> nodes;
    for (const auto& [id, item] : m_nodes) {
        if (rect.contains(item->mapRectToScene(item->shape().boundingRect()))) {
            nodes.push_back(id);
        }
    }
    for (const auto& [id, item] : m_groups) {
        if (rect.contains(item->sceneBoundingRect())) {
            const auto& inside = m_view->group(id).nodes;
            nodes.insert(nodes.end(), inside.begin(), inside.end());
        }
    }
    std::sort(nodes.begin(), nodes.end());
    return nodes;
}

QGraphicsItem* GraphScene::itemShowing(graph::NodeId id) const
{
    if (id >= m_itemOfNode.size()) {
        return nullptr;
    }
    return m_visibleItems.at(m_itemOfNode[id]);
}

NodeItem* GraphScene::nodeItem(graph::NodeId id) const
{
    const auto it = m_nodes.find(id);
    return it == m_nodes.end() ? nullptr : it->second;
}

GroupItem* GraphScene::groupItem(layout::GroupId id) const
{
    const auto it = m_groups.find(id);
    return it == m_groups.end() ? nullptr : it->second;
}

ClusterItem* GraphScene::clusterItem(layout::GroupId id) const
{
    const auto it = m_clusters.find(id);
    return it == m_clusters.end() ? nullptr : it->second;
}

void GraphScene::markSelection(const std::unordered_set<graph::NodeId>& selected,
                               std::optional<graph::NodeId> current)
{
    m_selected = selected;
    m_current = current;
    refreshMarks();
}

void GraphScene::markHighlighted(const std::unordered_set<graph::NodeId>& ids)
{
    m_highlighted = ids;
    refreshMarks();
}

void GraphScene::setOverlays(const std::unordered_map<graph::NodeId, QColor>& colors,
                             const NodeAmounts& amounts)
{
    for (auto& [id, item] : m_nodes) {
        const auto it = colors.find(id);
        item->setOverlay(it == colors.end() ? std::nullopt : std::optional<QColor>(it->second));
    }
    struct GroupHeat {
        std::optional<QColor> color;
        std::optional<double> sum; // of the amounts given for its nodes
    };
    std::unordered_map<GroupItem*, GroupHeat> heat;
    for (const auto& [id, colour] : colors) {
        auto* g = qgraphicsitem_cast<GroupItem*>(itemShowing(id));
        if (!g) {
            continue;
        }
        GroupHeat& h = heat[g];
        if (!h.color || colour.lightnessF() < h.color->lightnessF()) {
            h.color = colour;
        }
    }
    for (const auto& [id, value] : amounts.values) {
        if (auto* g = qgraphicsitem_cast<GroupItem*>(itemShowing(id))) {
            std::optional<double>& sum = heat[g].sum;
            sum = sum.value_or(0.0) + value;
        }
    }
    for (auto& [id, item] : m_groups) {
        const auto it = heat.find(item);
        if (it == heat.end()) {
            item->setOverlay(std::nullopt, QString());
            continue;
        }
        const std::optional<double> v = it->second.sum;
        const QString note = v ? QStringLiteral("%1 %2").arg(
                                     QString::number(*v, 'f', *v >= 100 ? 0 : *v >= 10 ? 1 : 2),
                                     amounts.unit)
                               : QString();
        item->setOverlay(it->second.color, note);
    }
}

void GraphScene::refreshMarks()
{
    for (auto& [id, item] : m_nodes) {
        item->setMarked(m_selected.count(id) > 0, m_highlighted.count(id) > 0);
    }
    const auto groupsShowing = [this](const std::unordered_set<graph::NodeId>& ids) {
        std::unordered_set<layout::GroupId> groups;
        for (graph::NodeId id : ids) {
            if (auto* g = qgraphicsitem_cast<GroupItem*>(itemShowing(id))) {
                groups.insert(g->groupId());
            }
        }
        return groups;
    };
    const auto highlightedGroups = groupsShowing(m_highlighted);
    const auto selectedGroups = groupsShowing(m_selected);
    for (auto& [id, item] : m_groups) {
        item->setHoldsSelection(selectedGroups.count(id) > 0);
        item->setHighlighted(highlightedGroups.count(id) > 0);
    }
    const uint selectedIndex = m_current && *m_current < m_itemOfNode.size()
                                   ? m_itemOfNode[*m_current]
                                   : std::numeric_limits<uint>::max();
    for (EdgeItem* e : m_edges) {
        e->setEmphasized(e->data(0).toUInt() == selectedIndex ||
                         e->data(1).toUInt() == selectedIndex);
    }
}

} // namespace fxs::views
