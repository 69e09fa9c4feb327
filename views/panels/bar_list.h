// A horizontal bar list for "the slowest N" charts: one row per item, its label on the left in a
// column as wide as the widest label up to what leaves the bars room (elideLabel: a
// `module.path · node` label drops leading path components and keeps its distinctive tail, any
// other label is elided in the middle), a bar scaled to the largest value, the value as text
// after the bar, and a tooltip with the item's full label and detail (median and spread).
// Clicking a row emits its index. Painting only; the data comes in whole.
#pragma once

#include <QStringList>
#include <QWidget>

#include <vector>

class QFontMetrics;

namespace fxs::views {

class BarList : public QWidget {
    Q_OBJECT
public:
    struct Item {
        QString label;
        double value = 0.0;
        QString valueText; // drawn after the bar ("1.23 ms")
        QString detail;    // tooltip lines after the label ("median 1.23 ms (1.20–1.31)")
    };

    explicit BarList(QWidget* parent = nullptr);

    void setTitle(const QString& title);
    void setItems(std::vector<Item> items);
    const std::vector<Item>& items() const { return m_items; }
    // The labels as drawn at the current width (tests: whole when they fit).
    QStringList displayedLabels() const;
    // label as it fits width pixels: whole when it fits; "model.layers.3.mlp.down_proj · mm_103"
    // drops leading components of its module path ("…3.mlp.down_proj · mm_103", then
    // "…mlp.down_proj · mm_103", ...) and keeps the node after " · " whole when it can; other
    // labels (and a tail too long alone) are elided in the middle.
    static QString elideLabel(const QString& label, const QFontMetrics& metrics, int width);
    // The separator between a label's module path and its node.
    static QString pathSeparator() { return QStringLiteral(" \u00b7 "); }
    // The row under a point of the widget, -1 when none.
    int rowAt(QPoint pos) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void itemClicked(int index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override; // tooltips

private:
    int rowHeight() const;
    int titleHeight() const;
    // The label column: the widest label, at most what leaves the bars and values their room.
    int labelWidth() const;
    int valueWidth() const;

    QString m_title;
    std::vector<Item> m_items;
};

} // namespace fxs::views
