// The scene of one laid-out view: builds node, group, cluster, edge and hull items from a
// LayoutResult (flipping Graphviz's y), and marks selection, highlights and colour overlays by
// NodeId. Region hulls come from the layout's annotation hulls, or from RegionOverlays when the
// app sets them. Clicks on items come back as signals; GraphView decides what they do.
#pragma once

#include "core/layout/graph_layout.h"
#include "views/graph/graph_items.h"
#include "views/models/graph_decorations.h"
#include "views/models/region_overlay.h"

#include <QGraphicsScene>

#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace fxs::views {

class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);

    void setStyle(const GraphStyle& style);
    const GraphStyle& style() const { return m_style; }

    // Replaces every item. view must be the ViewGraph the layout was computed from; the scene
    // keeps it for mapping nodes to the items showing them.
    void setLayout(const layout::LayoutResult& result,
                   std::shared_ptr<const layout::ViewGraph> view);
    void clearLayout();
    const layout::ViewGraph* viewGraph() const { return m_view.get(); }

    // The item showing a node: its own box, or the collapsed group holding it; null when none.
    QGraphicsItem* itemShowing(graph::NodeId id) const;
    NodeItem* nodeItem(graph::NodeId id) const;
    GroupItem* groupItem(layout::GroupId id) const;
    ClusterItem* clusterItem(layout::GroupId id) const;
    std::size_t nodeItemCount() const { return m_nodes.size(); }
    std::size_t groupItemCount() const { return m_groups.size(); }
    std::size_t edgeItemCount() const { return m_edges.size(); }

    // selected: every selected node; current: the one whose edges are emphasised.
    void markSelection(const std::unordered_set<graph::NodeId>& selected,
                       std::optional<graph::NodeId> current);
    void markHighlighted(const std::unordered_set<graph::NodeId>& ids);
    // Node colours; a collapsed group takes the darkest colour among the nodes it shows (a
    // heat layer's slowest node) and, with amounts, their sum as the first words of its label.
    void setOverlays(const std::unordered_map<graph::NodeId, QColor>& colors,
                     const NodeAmounts& amounts = {});

    // Region hulls: nullopt draws the layout's annotation hulls, a list draws each region's
    // hull over the items showing its nodes, one hull per expanded-group frame they sit in
    // (regions with no visible item draw nothing); regions shown by the same items of a frame
    // (inside one collapsed module) share one hull, which lists them all.
    void setRegionOverlays(std::optional<std::vector<RegionOverlay>> regions);
    void setRegionTint(const QString& id, const QColor& tint);
    std::vector<HullItem*> hullItems() const { return m_hulls; }
    HullItem* hullItem(const QString& id) const; // the first hull showing the region
    // Nodes shown by items lying wholly inside rect (scene coordinates); a collapsed group
    // inside contributes all its nodes. Graph order.
    std::vector<graph::NodeId> nodesInRect(const QRectF& rect) const;

Q_SIGNALS:
    void nodeClicked(fxs::graph::NodeId id, Qt::KeyboardModifiers modifiers);
    void nodeDoubleClicked(fxs::graph::NodeId id); // after its nodeClicked, unmodified only
    void groupToggled(fxs::layout::GroupId id);
    void jumpRequested(fxs::graph::NodeId id);

private:
    void addItems(const layout::LayoutResult& r);
    void addEdges(const layout::LayoutResult& r);
    void rebuildHulls();
    float hullAlpha() const;
    void addOverlayHulls(const std::vector<RegionOverlay>& regions);
    QPointF toScene(const layout::Point& p) const;
    void refreshMarks();

    GraphStyle m_style;
    std::shared_ptr<const layout::ViewGraph> m_view;
    std::vector<std::uint32_t> m_itemOfNode; // node -> visible item index
    std::vector<layout::GroupId> m_itemCluster; // visible item -> its expanded frame
    std::vector<QGraphicsItem*> m_visibleItems;
    std::unordered_map<graph::NodeId, NodeItem*> m_nodes;
    std::unordered_map<layout::GroupId, GroupItem*> m_groups;
    std::unordered_map<layout::GroupId, ClusterItem*> m_clusters;
    std::vector<EdgeItem*> m_edges;
    double m_top = 0;
    double m_left = 0;
    std::unordered_set<graph::NodeId> m_selected;
    std::optional<graph::NodeId> m_current;
    std::unordered_set<graph::NodeId> m_highlighted;
    std::vector<layout::RegionHull> m_annotationHulls; // from the layout, scene coordinates
    std::optional<std::vector<RegionOverlay>> m_regions;
    std::vector<HullItem*> m_hulls;
};

} // namespace fxs::views
