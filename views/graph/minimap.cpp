#include "views/graph/minimap.h"

#include "views/graph/graph_canvas.h"

#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <QSettings>
#include <QWheelEvent>

namespace fxs::views {

Minimap::Minimap(GraphCanvas* main, QWidget* parent) : QGraphicsView(parent), m_main(main)
{
    setScene(main->scene());
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setRenderHints(QPainter::Antialiasing);
    setFrameShape(QFrame::Box);
    setCursor(Qt::CrossCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
    connect(main, &GraphCanvas::viewportChanged, viewport(), qOverload<>(&QWidget::update));
    m_userEnabled = QSettings().value(QStringLiteral("graphView/overview"), true).toBool();
}

void Minimap::setUserEnabled(bool enabled)
{
    m_userEnabled = enabled;
    QSettings().setValue(QStringLiteral("graphView/overview"), enabled);
    updateVisibility();
}

void Minimap::updateVisibility()
{
    const QRectF all = scene() ? scene()->sceneRect() : QRectF();
    const bool fits = m_main->visibleSceneRect().contains(all);
    setVisible(m_userEnabled && !fits && !all.isEmpty());
}

void Minimap::refit()
{
    if (scene() && !scene()->sceneRect().isEmpty()) {
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    }
    viewport()->update();
}

void Minimap::drawForeground(QPainter* painter, const QRectF&)
{
    const QRectF shown = m_main->visibleSceneRect();
    QColor fill = palette().color(QPalette::Highlight);
    fill.setAlphaF(0.15f);
    painter->setBrush(fill);
    painter->setPen(QPen(palette().color(QPalette::Highlight), 0));
    painter->drawRect(shown);
}

void Minimap::mousePressEvent(QMouseEvent* event)
{
    m_main->centerOn(mapToScene(event->pos()));
    event->accept();
}

void Minimap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton) {
        m_main->centerOn(mapToScene(event->pos()));
    }
    event->accept();
}

void Minimap::wheelEvent(QWheelEvent* event)
{
    event->accept(); // the overview never scrolls itself
}

void Minimap::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    refit();
}

} // namespace fxs::views
