// A small overlay listing the op-category colours of the graph view and, when the graph has
// annotated regions, their tints. Paints only; click it to fold it to its title (the fold is
// remembered in QSettings, "graphView/legendFolded").
#pragma once

#include <QWidget>

#include <string>
#include <utility>
#include <vector>

namespace fxs::views {

class GraphLegend : public QWidget {
    Q_OBJECT
public:
    explicit GraphLegend(QWidget* parent = nullptr);
    // Annotation values, tinted by the core palette.
    void setRegions(const std::vector<std::string>& values);
    // Regions of the app's document: tint and label each; past kMaxRegions one "+n more" line.
    void setRegionEntries(const std::vector<std::pair<QColor, QString>>& entries);
    static constexpr int kMaxRegions = 8;
    QSize sizeHint() const override;
    bool isFolded() const { return m_folded; }
    void setFolded(bool folded); // remembered for the next views

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    struct Entry {
        QColor color;
        QString text;
        bool region = false;
    };
    std::vector<Entry> m_entries;
    std::size_t m_categoryCount = 0;
    bool m_folded = false;
};

} // namespace fxs::views
