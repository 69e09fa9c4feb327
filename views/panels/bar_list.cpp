#include "views/panels/bar_list.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace fxs::views {

namespace {
constexpr int kPad = 6;
}

BarList::BarList(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void BarList::setTitle(const QString& title)
{
    m_title = title;
    update();
}

void BarList::setItems(std::vector<Item> items)
{
    m_items = std::move(items);
    updateGeometry();
    update();
}

int BarList::rowHeight() const
{
    return fontMetrics().height() + 4;
}

int BarList::titleHeight() const
{
    return m_title.isEmpty() ? 0 : fontMetrics().height() + kPad;
}

int BarList::valueWidth() const
{
    int w = 0;
    for (const Item& item : m_items) {
        w = std::max(w, fontMetrics().horizontalAdvance(item.valueText));
    }
    return w + kPad;
}

int BarList::labelWidth() const
{
    int widest = 0;
    for (const Item& item : m_items) {
        widest = std::max(widest, fontMetrics().horizontalAdvance(item.label));
    }
    return std::min(widest + kPad, int(width() * 0.45));
}

QStringList BarList::displayedLabels() const
{
    QStringList out;
    const int w = labelWidth() - kPad;
    for (const Item& item : m_items) {
        out << fontMetrics().elidedText(item.label, Qt::ElideMiddle, std::max(w, 1));
    }
    return out;
}

int BarList::rowAt(QPoint pos) const
{
    const int y = pos.y() - titleHeight();
    if (y < 0) {
        return -1;
    }
    const int row = y / rowHeight();
    return row < int(m_items.size()) ? row : -1;
}

QSize BarList::sizeHint() const
{
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
    return {36 * em, titleHeight() + int(m_items.size()) * rowHeight() + kPad};
}

QSize BarList::minimumSizeHint() const
{
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
    return {16 * em, titleHeight() + 3 * rowHeight()};
}

void BarList::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    if (!m_title.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.drawText(QRect(kPad, 0, width() - 2 * kPad, titleHeight()),
                   Qt::AlignLeft | Qt::AlignVCenter, m_title);
        p.setFont(font());
    }
    const double largest = m_items.empty() ? 0.0
                                           : std::max_element(m_items.begin(), m_items.end(),
                                                              [](const Item& a, const Item& b) {
                                                                  return a.value < b.value;
                                                              })->value;
    const QStringList labels = displayedLabels();
    const int labelW = labelWidth();
    const int barX = kPad + labelW;
    const int barSpan = std::max(1, width() - barX - valueWidth() - kPad);
    const QColor bar = palette().highlight().color();
    for (int i = 0; i < int(m_items.size()); ++i) {
        const Item& item = m_items[std::size_t(i)];
        const int y = titleHeight() + i * rowHeight();
        p.setPen(palette().text().color());
        p.drawText(QRect(kPad, y, labelW - kPad, rowHeight()), Qt::AlignRight | Qt::AlignVCenter,
                   labels[i]);
        const int len = largest > 0 ? std::max(1, int(barSpan * item.value / largest)) : 1;
        p.fillRect(QRect(barX, y + 3, len, rowHeight() - 6), bar);
        p.drawText(QRect(barX + len + 4, y, valueWidth(), rowHeight()),
                   Qt::AlignLeft | Qt::AlignVCenter, item.valueText);
    }
}

void BarList::mousePressEvent(QMouseEvent* event)
{
    if (const int row = rowAt(event->position().toPoint()); row >= 0) {
        Q_EMIT itemClicked(row);
    }
}

bool BarList::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int row = rowAt(help->pos());
        if (row >= 0) {
            const Item& item = m_items[std::size_t(row)];
            QToolTip::showText(help->globalPos(), item.label + QLatin1Char('\n') + item.detail,
                               this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace fxs::views
