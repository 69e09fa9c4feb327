// The cache panel's diff table: one row per key component that differs between two lookups
// (component, family, change, value in A, value in B). Rows are plain data handed over by the
// caller (the explainer's result, converted); multi-line values show their first line and the
// whole text as tooltip.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace fxs::views {

struct ComponentDiffRow {
    QString component; // "inductor_config[max_fusion_size]"
    QString family;    // "inductor_config"
    QString change;    // "changed", "only in A", "only in B", ...
    QString a;         // value in A; empty when absent
    QString b;         // value in B; empty when absent
};

class ComponentDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ComponentColumn, FamilyColumn, ChangeColumn, AColumn, BColumn, ColumnCount };

    explicit ComponentDiffModel(QObject* parent = nullptr);

    void setRows(std::vector<ComponentDiffRow> rows);
    // Column titles for A and B, e.g. the two runs' names.
    void setSideNames(const QString& a, const QString& b);
    const std::vector<ComponentDiffRow>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<ComponentDiffRow> m_rows;
    QString m_aName = tr("A");
    QString m_bName = tr("B");
};

} // namespace fxs::views
