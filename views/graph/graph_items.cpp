#include "views/graph/graph_items.h"

#include "views/graph/graph_scene.h"

#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace fxs::views {

namespace {

constexpr qreal kRadius = 5.0;
constexpr Qt::KeyboardModifiers kToggleModifiers = Qt::ShiftModifier | Qt::ControlModifier;
// Below this zoom, text is unreadable: skip it (large scenes and the minimap stay fast).
constexpr qreal kTextLod = 0.4;

GraphScene* graphScene(const QGraphicsItem* item)
{
    return qobject_cast<GraphScene*>(item->scene());
}

qreal lod(const QStyleOptionGraphicsItem* option, const QPainter* p)
{
    return option->levelOfDetailFromTransform(p->worldTransform());
}

QColor textOn(const QColor& fill, const QColor& dark)
{
    return fill.lightnessF() < 0.5 ? QColor(Qt::white) : dark;
}

// Title (bold) and subtitle centred in rect, elided to its width.
void drawLabel(QPainter* p, const QRectF& rect, const QString& title, const QString& subtitle,
               const GraphStyle& style, qreal rightInset = 0)
{
    const QRectF area = rect.adjusted(6, 2, -6 - rightInset, -2);
    const QFontMetricsF tm(style.titleFont);
    const QFontMetricsF sm(style.subtitleFont);
    const qreal total = tm.height() + (subtitle.isEmpty() ? 0 : sm.height());
    qreal y = area.center().y() - total / 2;
    p->setFont(style.titleFont);
    p->drawText(QRectF(area.left(), y, area.width(), tm.height()), Qt::AlignCenter,
                tm.elidedText(title, Qt::ElideMiddle, area.width()));
    if (!subtitle.isEmpty()) {
        y += tm.height();
        p->setFont(style.subtitleFont);
        p->drawText(QRectF(area.left(), y, area.width(), sm.height()), Qt::AlignCenter,
                    sm.elidedText(subtitle, Qt::ElideRight, area.width()));
    }
}

} // namespace

// ---- NodeItem -------------------------------------------------------------------------------

NodeItem::NodeItem(graph::NodeId id, QSizeF size, QString title, QString subtitle, QColor fill,
                   const GraphStyle* style)
    : m_id(id), m_rect(QPointF(-size.width() / 2, -size.height() / 2), size),
      m_title(std::move(title)), m_subtitle(std::move(subtitle)), m_fill(std::move(fill)),
      m_style(style)
{
    setZValue(2);
    setAcceptedMouseButtons(Qt::LeftButton);
    setCursor(Qt::PointingHandCursor);
}

QRectF NodeItem::boundingRect() const
{
    return m_rect.adjusted(-3, -3, 3, 3);
}

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(m_rect, kRadius, kRadius);
    return path;
}

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const QColor fill = m_overlay.value_or(m_fill);
    QPen pen(m_style->frame, 1.0);
    if (m_selected) {
        pen = QPen(m_style->selection, 3.0);
    } else if (m_highlighted) {
        pen = QPen(m_style->highlight, 2.5, Qt::DashLine);
    }
    p->setPen(pen);
    p->setBrush(fill);
    p->drawRoundedRect(m_rect, kRadius, kRadius);
    if (lod(option, p) < kTextLod) {
        return;
    }
    p->setPen(textOn(fill, m_style->boxText));
    drawLabel(p, m_rect, m_title, m_subtitle, *m_style);
}

void NodeItem::setMarked(bool selected, bool highlighted)
{
    if (selected != m_selected || highlighted != m_highlighted) {
        m_selected = selected;
        m_highlighted = highlighted;
        setZValue(selected ? 3 : 2);
        update();
    }
}

void NodeItem::setOverlay(std::optional<QColor> color)
{
    m_overlay = std::move(color);
    update();
}

void NodeItem::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    if (auto* s = graphScene(this)) {
        s->nodeClicked(m_id, event->modifiers());
    }
    event->accept();
}

void NodeItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    // The press before it already toggled a modified click; a second toggle would undo it.
    if (auto* s = graphScene(this); s && !(event->modifiers() & kToggleModifiers)) {
        s->nodeClicked(m_id, event->modifiers());
        s->nodeDoubleClicked(m_id);
    }
    event->accept();
}

// ---- GroupItem ------------------------------------------------------------------------------

GroupItem::GroupItem(layout::GroupId id, QSizeF size, QString title, QString subtitle,
                     const GraphStyle* style)
    : m_id(id), m_rect(QPointF(-size.width() / 2, -size.height() / 2), size),
      m_title(std::move(title)), m_subtitle(std::move(subtitle)), m_style(style)
{
    setZValue(2);
    setAcceptedMouseButtons(Qt::LeftButton);
    setCursor(Qt::PointingHandCursor);
    setToolTip(toolTipText());
}

QString GroupItem::toolTipText() const
{
    QString tip = QObject::tr("%1\n%2 — double-click to expand").arg(m_title, m_subtitle);
    if (m_overlay) {
        tip += m_note.isEmpty() ? QObject::tr("\nColoured as its slowest node")
                                : QObject::tr("\nIts nodes: %1 in all; coloured as its slowest "
                                              "node")
                                      .arg(m_note);
    }
    return tip;
}

QRectF GroupItem::boundingRect() const
{
    return m_rect.adjusted(-3, -3, 6, 6);
}

QRectF GroupItem::toggleRect() const
{
    const qreal s = 12;
    return QRectF(m_rect.right() - s - 6, m_rect.center().y() - s / 2, s, s);
}

void GroupItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const QColor fill = m_overlay.value_or(QColor(QStringLiteral("#e8e4f4")));
    QPen pen(m_style->frame, 1.5);
    if (m_holdsSelection) {
        pen = QPen(m_style->selection, 3.0);
    } else if (m_highlighted) {
        pen = QPen(m_style->highlight, 2.5, Qt::DashLine);
    }
    p->setPen(QPen(m_style->frame, 1.0));
    p->setBrush(fill.darker(110));
    p->drawRoundedRect(m_rect.translated(4, 4), kRadius, kRadius); // the "stack" behind
    p->setPen(pen);
    p->setBrush(fill);
    p->drawRoundedRect(m_rect, kRadius, kRadius);
    if (lod(option, p) < kTextLod) {
        return;
    }
    const QRectF t = toggleRect();
    const QColor ink = textOn(fill, m_style->boxText);
    p->setPen(QPen(ink, 1.2));
    p->setBrush(Qt::NoBrush);
    p->drawRect(t);
    p->drawLine(QPointF(t.left() + 3, t.center().y()), QPointF(t.right() - 3, t.center().y()));
    p->drawLine(QPointF(t.center().x(), t.top() + 3), QPointF(t.center().x(), t.bottom() - 3));
    p->setPen(ink);
    drawLabel(p, m_rect, m_title,
              m_note.isEmpty() ? m_subtitle : m_note + QStringLiteral(" · ") + m_subtitle,
              *m_style, t.width() + 4);
}

void GroupItem::setOverlay(std::optional<QColor> color, QString note)
{
    if (color == m_overlay && note == m_note) {
        return;
    }
    m_overlay = std::move(color);
    m_note = std::move(note);
    setToolTip(toolTipText());
    update();
}

void GroupItem::setHoldsSelection(bool holds)
{
    if (holds != m_holdsSelection) {
        m_holdsSelection = holds;
        update();
    }
}

void GroupItem::setHighlighted(bool highlighted)
{
    if (highlighted != m_highlighted) {
        m_highlighted = highlighted;
        update();
    }
}

void GroupItem::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    event->accept();
    if (toggleRect().adjusted(-3, -3, 3, 3).contains(event->pos())) {
        if (auto* s = graphScene(this)) {
            s->groupToggled(m_id);
        }
    }
}

void GroupItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    event->accept();
    if (auto* s = graphScene(this)) {
        s->groupToggled(m_id);
    }
}

// ---- ClusterItem ----------------------------------------------------------------------------

ClusterItem::ClusterItem(layout::GroupId id, QRectF rect, QString label, const GraphStyle* style)
    : m_id(id), m_rect(rect), m_label(std::move(label)), m_style(style)
{
    setZValue(-5);
    setAcceptedMouseButtons(Qt::LeftButton);
    setToolTip(QObject::tr("%1 — click − to collapse").arg(m_label));
}

QRectF ClusterItem::boundingRect() const
{
    return m_rect.adjusted(-2, -2, 2, 2);
}

QRectF ClusterItem::headerRect() const
{
    return QRectF(m_rect.left(), m_rect.top(), m_rect.width(), 18);
}

QPainterPath ClusterItem::shape() const
{
    QPainterPath path;
    path.addRect(headerRect());
    return path;
}

void ClusterItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*)
{
    QColor tint = m_style->frame;
    tint.setAlphaF(0.06f);
    p->setPen(QPen(m_style->frame, 1.0, Qt::DashLine));
    p->setBrush(tint);
    p->drawRoundedRect(m_rect, 6, 6);
    if (lod(option, p) < kTextLod) {
        return;
    }
    const QRectF h = headerRect();
    const QRectF t(h.left() + 4, h.top() + 3, 12, 12);
    p->setPen(QPen(m_style->text, 1.2));
    p->setBrush(Qt::NoBrush);
    p->drawRect(t);
    p->drawLine(QPointF(t.left() + 3, t.center().y()), QPointF(t.right() - 3, t.center().y()));
    p->setFont(m_style->subtitleFont);
    const QFontMetricsF fm(m_style->subtitleFont);
    const QRectF textRect = h.adjusted(20, 0, -4, 0);
    p->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                fm.elidedText(m_label, Qt::ElideRight, textRect.width()));
}

void ClusterItem::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    event->accept();
    if (event->pos().x() < m_rect.left() + 20) {
        if (auto* s = graphScene(this)) {
            s->groupToggled(m_id);
        }
    }
}

void ClusterItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    event->accept();
    if (auto* s = graphScene(this)) {
        s->groupToggled(m_id);
    }
}

// ---- EdgeItem -------------------------------------------------------------------------------

EdgeItem::EdgeItem(QPainterPath path, QPolygonF arrow, QString label, QPointF labelPos,
                   graph::NodeId fromNode, graph::NodeId toNode, const GraphStyle* style)
    : QGraphicsPathItem(std::move(path)), m_arrow(std::move(arrow)), m_label(std::move(label)),
      m_labelPos(labelPos), m_from(fromNode), m_to(toNode), m_style(style)
{
    setZValue(1);
    setAcceptedMouseButtons(Qt::LeftButton);
    setToolTip(QObject::tr("Double-click to jump to the other end"));
}

QRectF EdgeItem::boundingRect() const
{
    QRectF r = QGraphicsPathItem::boundingRect().united(m_arrow.boundingRect());
    if (!m_label.isEmpty()) {
        r = r.united(QRectF(m_labelPos, QSizeF(40, 14)).translated(0, -10));
    }
    return r.adjusted(-4, -4, 4, 4);
}

QPainterPath EdgeItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(7);
    QPainterPath hit = stroker.createStroke(path());
    hit.addPolygon(m_arrow);
    return hit;
}

void EdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const QColor color = m_emphasized ? m_style->selection : m_style->edge;
    // One device pixel, cosmetic: Qt's cosmetic stroker draws it segment by segment within the
    // clip. Any other width goes through the path stroker and the rasterizer walks the whole
    // outline, which for the hundreds of edges crossing a 64-layer drawing cost a second and a
    // half per frame (bench_graph_view BM_Llama64_PanFrame). Emphasized edges are few.
    QPen pen(color, m_emphasized ? 2.0 : 1.0);
    pen.setCosmetic(true);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->drawPath(path());
    p->setPen(Qt::NoPen);
    p->setBrush(color);
    p->drawPolygon(m_arrow);
    if (!m_label.isEmpty() && lod(option, p) >= kTextLod) {
        p->setPen(m_style->text);
        p->setFont(m_style->subtitleFont);
        p->drawText(m_labelPos + QPointF(3, 4), m_label);
    }
}

void EdgeItem::setEmphasized(bool on)
{
    if (on != m_emphasized) {
        m_emphasized = on;
        setZValue(on ? 1.5 : 1);
        update();
    }
}

graph::NodeId EdgeItem::farEnd(QPointF scenePos) const
{
    const QPainterPath& p = path();
    if (p.elementCount() == 0) {
        return m_to;
    }
    const QPointF start = mapToScene(p.pointAtPercent(0));
    const QPointF end = mapToScene(p.pointAtPercent(1));
    const auto dist = [](QPointF a, QPointF b) { return std::hypot(a.x() - b.x(), a.y() - b.y()); };
    return dist(scenePos, start) < dist(scenePos, end) ? m_to : m_from;
}

void EdgeItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    event->accept();
    if (auto* s = graphScene(this)) {
        s->jumpRequested(farEnd(event->scenePos()));
    }
}

// ---- HullItem -------------------------------------------------------------------------------

HullItem::HullItem(const QPolygonF& polygon, QColor tint, const QString& tooltip,
                   QStringList regionIds, float fillAlpha)
    : m_regionIds(std::move(regionIds)), m_fillAlpha(fillAlpha)
{
    QPainterPath path;
    path.addPolygon(polygon);
    path.closeSubpath();
    setPath(path);
    setTint(std::move(tint));
    setZValue(-10);
    setAcceptedMouseButtons(Qt::NoButton);
    setToolTip(tooltip);
}

void HullItem::setTint(QColor tint)
{
    m_tint = tint;
    QColor fill = tint;
    fill.setAlphaF(m_fillAlpha);
    tint.setAlphaF(0.55f);
    setBrush(fill);
    setPen(QPen(tint, 1.5));
}

} // namespace fxs::views
