// The diff table of the Cache dock and the Cache browser: one row per key component that
// differs between two keys (component, family or field, change, value in A, value in B). Rows
// come from explain::ComponentChange (setChanges: the one conversion, for both differs) or as
// plain data; multi-line values show their first line and the whole text as tooltip.
#pragma once

#include "core/explain/component_change.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace fxs::views {

struct ComponentDiffRow {
    QString component; // "inductor_config[max_fusion_size]"
    QString family;    // "inductor_config"; for region keys the differing field ("dtype")
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
    // One row per change, in the order given.
    void setChanges(const std::vector<explain::ComponentChange>& changes);
    // The row of one change: the field (when one differs) stands in the family column;
    // "changed", "only in A", "only in B".
    static ComponentDiffRow rowOf(const explain::ComponentChange& change);
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
