#include "views/graph/graph_canvas.h"

#include "views/graph/graph_items.h"

#include <QGraphicsItem>
#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace fxs::views {

namespace {

constexpr qreal kMinZoom = 0.02;
constexpr qreal kMaxZoom = 6.0;
constexpr qreal kStep = 1.25;

} // namespace

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent)
{
    setDragMode(QGraphicsView::ScrollHandDrag);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::NoAnchor);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setFocusPolicy(Qt::StrongFocus);
    setFrameShape(QFrame::NoFrame);
}

QRectF GraphCanvas::visibleSceneRect() const
{
    return mapToScene(viewport()->rect()).boundingRect();
}

void GraphCanvas::zoomBy(qreal factor, const QPoint* anchorViewportPos)
{
    const qreal target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    factor = target / zoom();
    const QPoint anchor = anchorViewportPos ? *anchorViewportPos : viewport()->rect().center();
    const QPointF before = mapToScene(anchor);
    scale(factor, factor);
    // Scroll so that the scene point under the anchor stays there.
    const QPointF moved = mapToScene(anchor) - before;
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - qRound(moved.x() * zoom()));
    verticalScrollBar()->setValue(verticalScrollBar()->value() - qRound(moved.y() * zoom()));
    Q_EMIT viewportChanged();
}

void GraphCanvas::fitScene()
{
    if (!scene() || scene()->sceneRect().isEmpty()) {
        return;
    }
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    if (zoom() > 1.0) {
        // Small graphs: do not blow them up beyond 100 %.
        resetTransform();
        centerOn(scene()->sceneRect().center());
    } else if (zoom() < kMinZoom) {
        const qreal f = kMinZoom / zoom();
        scale(f, f);
    }
    Q_EMIT viewportChanged();
}

void GraphCanvas::wheelEvent(QWheelEvent* event)
{
    const int delta = event->angleDelta().y();
    if (delta == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    zoomBy(std::pow(kStep, delta / 120.0), &pos);
    event->accept();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(kStep); return;
    case Qt::Key_Minus: zoomBy(1.0 / kStep); return;
    default: QGraphicsView::keyPressEvent(event);
    }
}

// Plain drags pan; with Shift or Ctrl held the drag draws a rubber band instead (a press on an
// item is taken by the item first, so Shift/Ctrl-clicks on nodes still toggle them).
void GraphCanvas::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = event->pos();
    m_pressModifiers = event->modifiers() & (Qt::ShiftModifier | Qt::ControlModifier);
    // Only boxes and frame headers take presses; edges and hulls let a band start on them.
    const QGraphicsItem* hit = itemAt(event->pos());
    const int type = hit != nullptr ? hit->type() : 0;
    const bool onItem =
        type == NodeItem::Type || type == GroupItem::Type || type == ClusterItem::Type;
    if (event->button() == Qt::LeftButton && m_pressModifiers != Qt::NoModifier && !onItem) {
        setDragMode(QGraphicsView::RubberBandDrag);
    }
    QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    QGraphicsView::mouseReleaseEvent(event);
    const bool banding = dragMode() == QGraphicsView::RubberBandDrag;
    setDragMode(QGraphicsView::ScrollHandDrag);
    if (event->button() != Qt::LeftButton) {
        return;
    }
    const bool click = (event->pos() - m_pressPos).manhattanLength() < 4;
    if (banding && !click) {
        const QRect band = QRect(m_pressPos, event->pos()).normalized();
        Q_EMIT rubberBandSelected(mapToScene(band).boundingRect(), m_pressModifiers);
        return;
    }
    if (click && m_pressModifiers == Qt::NoModifier) {
        QGraphicsItem* hit = itemAt(event->pos());
        if (hit == nullptr || hit->acceptedMouseButtons() == Qt::NoButton) {
            Q_EMIT backgroundClicked();
        }
    }
}

void GraphCanvas::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    Q_EMIT viewportChanged();
}

void GraphCanvas::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    Q_EMIT viewportChanged();
}

} // namespace fxs::views
