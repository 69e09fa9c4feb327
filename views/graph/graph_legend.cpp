#include "views/graph/graph_legend.h"

#include "core/layout/palette.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QPainter>
#include <QSettings>

namespace fxs::views {

namespace {

constexpr int kPad = 6;
constexpr int kSwatch = 10;

} // namespace

GraphLegend::GraphLegend(QWidget* parent) : QWidget(parent)
{
    for (graph::OpCategory c : layout::kLegendCategories) {
        const std::string_view name = graph::opCategoryName(c);
        m_entries.push_back({QColor(QLatin1String(layout::categoryFill(c).data())),
                             QString::fromUtf8(name.data(), static_cast<int>(name.size())),
                             false});
    }
    m_categoryCount = m_entries.size();
    setToolTip(tr("Node colours by op category; click to fold"));
    setCursor(Qt::PointingHandCursor);
    m_folded = QSettings().value(QStringLiteral("graphView/legendFolded"), false).toBool();
    resize(sizeHint());
}

void GraphLegend::setFolded(bool folded)
{
    m_folded = folded;
    QSettings().setValue(QStringLiteral("graphView/legendFolded"), folded);
    resize(sizeHint());
    update();
}

void GraphLegend::setRegions(const std::vector<std::string>& values)
{
    m_entries.resize(m_categoryCount);
    for (std::size_t i = 0; i < values.size(); ++i) {
        m_entries.push_back({QColor(QLatin1String(layout::regionTint(i).data())),
                             tr("region %1").arg(QString::fromStdString(values[i])), true});
    }
    resize(sizeHint());
    update();
}

void GraphLegend::setRegionEntries(const std::vector<std::pair<QColor, QString>>& entries)
{
    m_entries.resize(m_categoryCount);
    const std::size_t shown = std::min<std::size_t>(entries.size(), kMaxRegions);
    for (std::size_t i = 0; i < shown; ++i) {
        m_entries.push_back({entries[i].first, entries[i].second, true});
    }
    if (entries.size() > shown) {
        m_entries.push_back({palette().color(QPalette::Mid),
                             tr("+%n more region(s)", "", int(entries.size() - shown)), true});
    }
    resize(sizeHint());
    update();
}

QSize GraphLegend::sizeHint() const
{
    const QFontMetrics fm(font());
    const int line = fm.height();
    if (m_folded) {
        return QSize(fm.horizontalAdvance(tr("Legend ▸")) + 2 * kPad, line + 2 * kPad);
    }
    int width = fm.horizontalAdvance(tr("Legend ▾"));
    for (const Entry& e : m_entries) {
        width = std::max(width, kSwatch + 6 + fm.horizontalAdvance(e.text));
    }
    const int rows = static_cast<int>(m_entries.size()) + 1;
    return QSize(width + 2 * kPad, rows * line + 2 * kPad);
}

void GraphLegend::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QColor bg = palette().color(QPalette::Window);
    bg.setAlphaF(0.88f);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(bg);
    p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 4, 4);
    const QFontMetrics fm(font());
    const int line = fm.height();
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(kPad, kPad + fm.ascent(), m_folded ? tr("Legend ▸") : tr("Legend ▾"));
    if (m_folded) {
        return;
    }
    int y = kPad + line;
    for (const Entry& e : m_entries) {
        const QRect swatch(kPad, y + (line - kSwatch) / 2, kSwatch, kSwatch);
        QColor fill = e.color;
        if (e.region) {
            fill.setAlphaF(0.35f);
        }
        p.setPen(e.region ? e.color : palette().color(QPalette::Mid));
        p.setBrush(fill);
        p.drawRoundedRect(swatch, 2, 2);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(kPad + kSwatch + 6, y + fm.ascent(), e.text);
        y += line;
    }
}

void GraphLegend::mousePressEvent(QMouseEvent* event)
{
    setFolded(!m_folded);
    event->accept();
}

} // namespace fxs::views
