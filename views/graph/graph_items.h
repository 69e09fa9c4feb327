// The QGraphicsItems of the graph view: node boxes, collapsed group boxes, expanded-group frames,
// edges (spline paths with arrowheads) and region hulls. Items only draw and forward clicks to
// GraphScene; they hold ids, never pointers into the graph (kgraphviewer keeps graph and scene
// items apart the same way).
#pragma once

#include "core/graph/node.h"
#include "core/layout/view_graph.h"

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QStringList>

#include <optional>

namespace fxs::views {

class GraphScene;

// Colours and fonts shared by all items of one scene, taken from the widget palette.
struct GraphStyle {
    QColor background;
    QColor text;        // text outside boxes (cluster labels, edge counts)
    QColor boxText;     // text on category fills
    QColor edge;
    QColor frame;       // cluster frames and box outlines
    QColor selection;
    QColor highlight;   // setHighlighted (diff) outline
    QFont titleFont;
    QFont subtitleFont;
};

class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    NodeItem(graph::NodeId id, QSizeF size, QString title, QString subtitle, QColor fill,
             const GraphStyle* style);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    graph::NodeId nodeId() const { return m_id; }
    const QString& title() const { return m_title; }
    void setMarked(bool selected, bool highlighted);
    void setOverlay(std::optional<QColor> color);
    bool isMarkedSelected() const { return m_selected; }
    bool isMarkedHighlighted() const { return m_highlighted; }
    const std::optional<QColor>& overlay() const { return m_overlay; }

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    graph::NodeId m_id;
    QRectF m_rect;
    QString m_title;
    QString m_subtitle;
    QColor m_fill;
    std::optional<QColor> m_overlay;
    bool m_selected = false;
    bool m_highlighted = false;
    const GraphStyle* m_style;
};

// A collapsed group: a stacked box with its label, node count and a "+" toggle.
class GroupItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    GroupItem(layout::GroupId id, QSizeF size, QString title, QString subtitle,
              const GraphStyle* style);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    layout::GroupId groupId() const { return m_id; }
    void setHoldsSelection(bool holds);
    bool holdsSelection() const { return m_holdsSelection; }
    void setHighlighted(bool highlighted);
    bool isHighlighted() const { return m_highlighted; } // holds a highlighted node
    // A colour layer's mark: the fill (the darkest of the nodes inside) and a note put before
    // the subtitle ("312 µs", what the nodes inside measured); nullopt and "" remove it.
    void setOverlay(std::optional<QColor> color, QString note);
    const std::optional<QColor>& overlay() const { return m_overlay; }
    const QString& note() const { return m_note; }
    QRectF toggleRect() const;

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    QString toolTipText() const; // its label, and what setOverlay marked
    layout::GroupId m_id;
    QRectF m_rect;
    QString m_title;
    QString m_subtitle;
    std::optional<QColor> m_overlay;
    QString m_note;
    bool m_holdsSelection = false;
    bool m_highlighted = false;
    const GraphStyle* m_style;
};

// The frame of an expanded group; only its header strip takes clicks (the "−" collapses), so
// dragging inside the frame still pans the view.
class ClusterItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };
    ClusterItem(layout::GroupId id, QRectF rect, QString label, const GraphStyle* style);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    layout::GroupId groupId() const { return m_id; }

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    QRectF headerRect() const;
    layout::GroupId m_id;
    QRectF m_rect;
    QString m_label;
    const GraphStyle* m_style;
};

// An edge: the Graphviz spline as cubics, an arrowhead and an optional "×n" count. The same path
// (stroked wider) is the hit area; a double-click jumps to the far end.
class EdgeItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 4 };
    EdgeItem(QPainterPath path, QPolygonF arrow, QString label, QPointF labelPos,
             graph::NodeId fromNode, graph::NodeId toNode, const GraphStyle* style);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    graph::NodeId fromNode() const { return m_from; }
    graph::NodeId toNode() const { return m_to; }
    void setEmphasized(bool on);
    // The node at the end farther from scenePos (the one a double-click travels to).
    graph::NodeId farEnd(QPointF scenePos) const;

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    QPolygonF m_arrow;
    QString m_label;
    QPointF m_labelPos;
    graph::NodeId m_from;
    graph::NodeId m_to;
    bool m_emphasized = false;
    const GraphStyle* m_style;
};

// A translucent convex hull behind the nodes of one region (annotated, or from the app's region
// document when regionIds is set), or of several regions shown by the same items (regions
// inside one collapsed module: GraphScene draws them once).
class HullItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 5 };
    // fillAlpha: opacity of the tint inside; a dark background wants more to show it.
    HullItem(const QPolygonF& polygon, QColor tint, const QString& tooltip,
             QStringList regionIds = {}, float fillAlpha = 0.16f);

    int type() const override { return Type; }
    // The first region's id ("" for an annotation hull); regionIds: all it shows.
    QString regionId() const { return m_regionIds.value(0); }
    const QStringList& regionIds() const { return m_regionIds; }
    QColor tint() const { return m_tint; }
    void setTint(QColor tint);

private:
    QStringList m_regionIds;
    QColor m_tint;
    float m_fillAlpha;
};

} // namespace fxs::views
