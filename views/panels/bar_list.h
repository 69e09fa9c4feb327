// A horizontal bar list for "the slowest N" charts: one row per item, its label on the left
// (elided in the middle only when it does not fit the label column, so `convolution_backward_12`
// reads whole and a long module path keeps its start and end), a bar scaled to the largest
// value, the value as text after the bar, and a tooltip with the item's full name and detail
// (median and spread). Clicking a row emits its index. Painting only; the data comes in whole.
#pragma once

#include <QStringList>
#include <QWidget>

#include <vector>

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
    int labelWidth() const; // the label column: the widest label, at most 45 % of the width
    int valueWidth() const;

    QString m_title;
    std::vector<Item> m_items;
};

} // namespace fxs::views
