// The overview of a GraphCanvas: a small second view of the same scene with the visible
// rectangle drawn on it; click or drag it to move the canvas. It shows itself while the graph
// does not fit the canvas, unless the user turned it off (kept in QSettings,
// "graphView/overview"). Not the canvas, and it draws no graph items of its own.
#pragma once

#include <QGraphicsView>

namespace fxs::views {

class GraphCanvas;

class Minimap : public QGraphicsView {
    Q_OBJECT
public:
    Minimap(GraphCanvas* main, QWidget* parent = nullptr);
    // Fits the whole scene (after a new layout).
    void refit();
    // The user's choice; remembered for the next start.
    void setUserEnabled(bool enabled);
    bool isUserEnabled() const { return m_userEnabled; }
    // Shown when enabled and the canvas does not show the whole scene.
    void updateVisibility();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    GraphCanvas* m_main;
    bool m_userEnabled = true;
};

} // namespace fxs::views
