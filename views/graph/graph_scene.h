// The scene of one laid-out view: builds node, group, cluster, edge and hull items from a
// LayoutResult (flipping Graphviz's y), and marks selection, highlights and colour overlays by
// NodeId. Clicks on items come back as signals; GraphView decides what they do.
#pragma once

#include "core/layout/graph_layout.h"
#include "views/graph/graph_items.h"

#include <QGraphicsScene>

#include <memory>
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

    void markSelection(std::optional<graph::NodeId> selected);
    void markHighlighted(const std::unordered_set<graph::NodeId>& ids);
    void setOverlays(const std::unordered_map<graph::NodeId, QColor>& colors);

Q_SIGNALS:
    void nodeClicked(fxs::graph::NodeId id);
    void groupToggled(fxs::layout::GroupId id);
    void jumpRequested(fxs::graph::NodeId id);

private:
    void addItems(const layout::LayoutResult& r);
    void addEdges(const layout::LayoutResult& r);
    void addHulls(const layout::LayoutResult& r);
    QPointF toScene(const layout::Point& p) const;
    void refreshMarks();

    GraphStyle m_style;
    std::shared_ptr<const layout::ViewGraph> m_view;
    std::vector<std::uint32_t> m_itemOfNode; // node -> visible item index
    std::vector<QGraphicsItem*> m_visibleItems;
    std::unordered_map<graph::NodeId, NodeItem*> m_nodes;
    std::unordered_map<layout::GroupId, GroupItem*> m_groups;
    std::unordered_map<layout::GroupId, ClusterItem*> m_clusters;
    std::vector<EdgeItem*> m_edges;
    double m_top = 0;
    double m_left = 0;
    std::optional<graph::NodeId> m_selected;
    std::unordered_set<graph::NodeId> m_highlighted;
};

} // namespace fxs::views
