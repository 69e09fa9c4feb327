// The zoomable, pannable QGraphicsView the graph is drawn in (wheel zooms around the cursor,
// +/- keys, drag pans, a click on empty space clears the selection, Shift- or Ctrl-drag from
// empty space draws a rubber band). Its overview is the Minimap (minimap.h).
#pragma once

#include <QGraphicsView>

namespace fxs::views {

class GraphCanvas : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphCanvas(QWidget* parent = nullptr);

    void zoomBy(qreal factor, const QPoint* anchorViewportPos = nullptr);
    void fitScene();
    qreal zoom() const { return transform().m11(); }
    // The scene rectangle currently shown.
    QRectF visibleSceneRect() const;

Q_SIGNALS:
    void backgroundClicked(); // a plain click (no Shift/Ctrl) on empty space
    void viewportChanged();
    // A rubber band was dragged (Shift- or Ctrl-drag starting on empty space); rect in scene
    // coordinates, modifiers as held at the press.
    void rubberBandSelected(const QRectF& rect, Qt::KeyboardModifiers modifiers);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QPoint m_pressPos;
    Qt::KeyboardModifiers m_pressModifiers;
};

} // namespace fxs::views
