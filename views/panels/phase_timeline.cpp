#include "views/panels/phase_timeline.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace fxs::views {
namespace {

constexpr int kRow = 18;      // bar row height
constexpr int kLaneGap = 8;   // between compile lanes
constexpr int kAxis = 20;     // time axis at the top
constexpr int kLabel = 90;    // compile id column
constexpr int kRightPad = 12;

// Stable colour per phase name, lighter with depth so nesting reads at a glance.
QColor phaseColor(const QString& name, int depth)
{
    const int hue = static_cast<int>(qHash(name) % 360);
    return QColor::fromHsl(hue, 150, std::min(120 + depth * 18, 200));
}

} // namespace

PhaseTimeline::PhaseTimeline(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    clear();
}

void PhaseTimeline::clear()
{
    m_bars.clear();
    m_lanes.clear();
    m_maxMs = 0;
    m_height = kAxis + kRow;
    setMinimumHeight(m_height);
    setMaximumHeight(m_height);
    update();
}

void PhaseTimeline::addPhases(const std::vector<profile::Phase>& phases, double originUs,
                              int depth, Lane& lane)
{
    for (const auto& ph : phases) {
        TimelineBar bar;
        bar.compileId = lane.compileId;
        bar.name = QString::fromStdString(ph.name);
        bar.lane = static_cast<int>(m_lanes.size());
        bar.depth = depth;
        bar.startMs = (ph.startUs - originUs) / 1000.0;
        bar.endMs = (ph.endUs - originUs) / 1000.0;
        bar.unterminated = ph.unterminated;
        m_bars.push_back(bar);
        lane.depths = std::max(lane.depths, depth + 1);
        m_maxMs = std::max(m_maxMs, bar.endMs);
        addPhases(ph.children, originUs, depth + 1, lane);
    }
}

void PhaseTimeline::setCompileProfile(const profile::CompileProfileResult& compile)
{
    clear();
    int top = kAxis;
    for (const auto& c : compile.compiles) {
        if (c.phases.empty()) {
            continue;
        }
        Lane lane;
        lane.compileId = QString::fromStdString(c.compileId.toString());
        lane.totalMs = c.totalMs;
        lane.top = top;
        addPhases(c.phases, c.phases.front().startUs, 0, lane);
        top += lane.depths * kRow + kLaneGap;
        m_lanes.push_back(lane);
    }
    m_height = std::max(top, kAxis + kRow);
    setMinimumHeight(m_height);
    setMaximumHeight(m_height);
    updateGeometry();
    update();
}

QSize PhaseTimeline::sizeHint() const
{
    return {600, m_height};
}

QSize PhaseTimeline::minimumSizeHint() const
{
    return {kLabel + 100, m_height};
}

double PhaseTimeline::plotLeft() const
{
    return kLabel;
}

double PhaseTimeline::msToX(double ms) const
{
    const double span = std::max(1.0, width() - plotLeft() - kRightPad);
    return plotLeft() + (m_maxMs > 0 ? ms / m_maxMs * span : 0.0);
}

QRectF PhaseTimeline::barRect(int index) const
{
    const TimelineBar& b = m_bars[static_cast<std::size_t>(index)];
    const Lane& lane = m_lanes[static_cast<std::size_t>(b.lane)];
    const double x0 = msToX(b.startMs);
    const double x1 = std::max(msToX(b.endMs), x0 + 1.0); // keep instant phases visible
    return {x0, double(lane.top + b.depth * kRow), x1 - x0, double(kRow - 2)};
}

int PhaseTimeline::barAt(const QPointF& pos) const
{
    // Deepest first: a child is drawn over its parent.
    int found = -1;
    int depth = -1;
    for (int i = 0; i < static_cast<int>(m_bars.size()); ++i) {
        if (barRect(i).contains(pos) && m_bars[static_cast<std::size_t>(i)].depth > depth) {
            found = i;
            depth = m_bars[static_cast<std::size_t>(i)].depth;
        }
    }
    return found;
}

void PhaseTimeline::paintAxis(QPainter& p) const
{
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRectF(0, 0, kLabel, kAxis), Qt::AlignVCenter | Qt::AlignLeft, tr("compile"));
    if (m_maxMs <= 0) {
        return;
    }
    // About one tick per 80 px, at 1/2/5 × 10^k ms.
    const double raw = m_maxMs / std::max(1.0, (width() - plotLeft()) / 80.0);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : (raw / mag < 5 ? 5 * mag : 10 * mag);
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
    for (double t = 0; t <= m_maxMs + 1e-9; t += step) {
        const double x = msToX(t);
        p.drawLine(QPointF(x, kAxis - 4), QPointF(x, kAxis));
        p.drawText(QRectF(x + 2, 0, 80, kAxis - 4), Qt::AlignVCenter | Qt::AlignLeft,
                   QString::number(t, 'f', decimals) + (t == 0 ? tr(" ms") : QString()));
    }
}

void PhaseTimeline::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (m_lanes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No compile phases: open a TORCH_TRACE run."));
        return;
    }
    paintAxis(p);
    for (const Lane& lane : m_lanes) {
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRectF(2, lane.top, kLabel - 4, kRow), Qt::AlignVCenter | Qt::AlignLeft,
                   lane.compileId + QStringLiteral("  ") + QString::number(lane.totalMs, 'f', 0) +
                       tr(" ms"));
    }
    for (int i = 0; i < static_cast<int>(m_bars.size()); ++i) {
        const TimelineBar& b = m_bars[static_cast<std::size_t>(i)];
        const QRectF r = barRect(i);
        const QColor fill = phaseColor(b.name, b.depth);
        p.fillRect(r, fill);
        if (b.unterminated) {
            p.setPen(QPen(Qt::red, 1, Qt::DashLine));
            p.drawRect(r);
        }
        if (r.width() > 30) {
            p.setPen(fill.lightnessF() > 0.55 ? Qt::black : Qt::white);
            p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(b.name, Qt::ElideRight, int(r.width()) - 5));
        }
    }
}

void PhaseTimeline::mousePressEvent(QMouseEvent* event)
{
    const int i = barAt(event->position());
    if (i >= 0) {
        const TimelineBar& b = m_bars[static_cast<std::size_t>(i)];
        Q_EMIT phaseClicked(b.compileId, b.name);
    }
    QWidget::mousePressEvent(event);
}

bool PhaseTimeline::event(QEvent* event)
{
    if (event->type() != QEvent::ToolTip) {
        return QWidget::event(event);
    }
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = barAt(help->pos());
    if (i < 0) {
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    const TimelineBar& b = m_bars[static_cast<std::size_t>(i)];
    QToolTip::showText(help->globalPos(),
                       tr("%1 (%2)\n%3 ms, from %4 to %5 ms%6")
                           .arg(b.name, b.compileId)
                           .arg(b.endMs - b.startMs, 0, 'f', 2)
                           .arg(b.startMs, 0, 'f', 2)
                           .arg(b.endMs, 0, 'f', 2)
                           .arg(b.unterminated ? tr("\nno end event: ends at the compile's last "
                                                    "event")
                                               : QString()),
                       this);
    return true;
}

} // namespace fxs::views
