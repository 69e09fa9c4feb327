#include "views/graph/graph_scene.h"

#include "core/graph/op_category.h"
#include "core/layout/palette.h"

#include <cmath>

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
    update();
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
    m_visibleItems.clear();
    m_nodes.clear();
    m_groups.clear();
    m_clusters.clear();
    m_edges.clear();
}

void GraphScene::setLayout(const layout::LayoutResult& result,
                           std::shared_ptr<const layout::ViewGraph> view)
{
    clearLayout();
    m_view = std::move(view);
    m_top = result.bbox.y1;
    m_left = result.bbox.x0;
    m_itemOfNode = result.visible.itemOfNode;
    addHulls(result);
    for (const layout::ClusterBox& c : result.clusters) {
        const QRectF rect(toScene({c.rect.x0, c.rect.y1}), QSizeF(c.rect.width(), c.rect.height()));
        auto* item = new ClusterItem(c.group, rect, qs(c.label), &m_style);
        addItem(item);
        m_clusters.emplace(c.group, item);
    }
    addItems(result);
    addEdges(result);
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

void GraphScene::addHulls(const layout::LayoutResult& r)
{
    for (const layout::RegionHull& h : r.regions) {
        QPolygonF poly;
        for (const layout::Point& p : h.polygon) {
            poly << toScene(p);
        }
        const QColor tint(QLatin1String(layout::regionTint(h.tint).data()));
        addItem(new HullItem(poly, tint,
                             tr("compile_with_inductor: %1").arg(qs(h.value))));
    }
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

void GraphScene::markSelection(std::optional<graph::NodeId> selected)
{
    m_selected = selected;
    refreshMarks();
}

void GraphScene::markHighlighted(const std::unordered_set<graph::NodeId>& ids)
{
    m_highlighted = ids;
    refreshMarks();
}

void GraphScene::setOverlays(const std::unordered_map<graph::NodeId, QColor>& colors)
{
    for (auto& [id, item] : m_nodes) {
        const auto it = colors.find(id);
        item->setOverlay(it == colors.end() ? std::nullopt : std::optional<QColor>(it->second));
    }
}

void GraphScene::refreshMarks()
{
    for (auto& [id, item] : m_nodes) {
        item->setMarked(m_selected == id, m_highlighted.count(id) > 0);
    }
    std::unordered_set<layout::GroupId> highlightedGroups;
    for (graph::NodeId id : m_highlighted) {
        if (auto* g = dynamic_cast<GroupItem*>(itemShowing(id))) {
            highlightedGroups.insert(g->groupId());
        }
    }
    QGraphicsItem* selectedItem = m_selected ? itemShowing(*m_selected) : nullptr;
    for (auto& [id, item] : m_groups) {
        item->setHoldsSelection(item == selectedItem);
        item->setHighlighted(highlightedGroups.count(id) > 0);
    }
    const uint selectedIndex = m_selected && *m_selected < m_itemOfNode.size()
                                   ? m_itemOfNode[*m_selected]
                                   : std::numeric_limits<uint>::max();
    for (EdgeItem* e : m_edges) {
        e->setEmphasized(e->data(0).toUInt() == selectedIndex ||
                         e->data(1).toUInt() == selectedIndex);
    }
}

} // namespace fxs::views
