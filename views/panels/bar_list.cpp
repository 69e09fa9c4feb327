#include "views/panels/bar_list.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace fxs::views {

namespace {
constexpr int kPad = 6;
constexpr int kMinBarEm = 8;    // the bars keep at least this many 'M's of width
constexpr double kMinLabelShare = 0.35; // a narrow chart still gives labels this much

// The prefix minus its first n dotted components, after an ellipsis: "…mlp.down_proj".
QString dropComponents(const QStringList& parts, int n)
{
    return QChar(0x2026) + parts.mid(n).join(QLatin1Char('.'));
}
} // namespace

QString BarList::elideLabel(const QString& label, const QFontMetrics& metrics, int width)
{
    if (metrics.horizontalAdvance(label) <= width) {
        return label;
    }
    const qsizetype sep = label.lastIndexOf(pathSeparator());
    if (sep < 0) {
        return metrics.elidedText(label, Qt::ElideMiddle, std::max(width, 1));
    }
    const QString tail = label.mid(sep); // " · mm_103"
    const QStringList parts = label.left(sep).split(QLatin1Char('.'));
    // Drop path components from the left while it does not fit: the node and the module's last
    // parts tell the bars apart ("layers.3.mlp.down_proj · mm_103"), the model's root does not.
    for (int n = 1; n < parts.size(); ++n) {
        const QString shorter = dropComponents(parts, n) + tail;
        if (metrics.horizontalAdvance(shorter) <= width) {
            return shorter;
        }
    }
    const QString node = label.mid(sep + pathSeparator().size());
    if (metrics.horizontalAdvance(node) <= width) {
        return node;
    }
    return metrics.elidedText(node, Qt::ElideMiddle, std::max(width, 1));
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
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
    const int room = width() - 2 * kPad - valueWidth() - kMinBarEm * em;
    return std::min(widest + kPad, std::max(room, int(width() * kMinLabelShare)));
}

QStringList BarList::displayedLabels() const
{
    QStringList out;
    const int w = labelWidth() - kPad;
    for (const Item& item : m_items) {
        out << elideLabel(item.label, fontMetrics(), w);
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
    // Room for the widest label (up to 40 'M's), the bars and the values.
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
    int widest = 0;
    for (const Item& item : m_items) {
        widest = std::max(widest, fontMetrics().horizontalAdvance(item.label));
    }
    const int wanted = std::min(widest, 40 * em) + valueWidth() + (kMinBarEm + 4) * em;
    return {std::max(36 * em, wanted), titleHeight() + int(m_items.size()) * rowHeight() + kPad};
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
