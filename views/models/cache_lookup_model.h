// The cache panel's lookup table: every cache lookup of one run with its state, cache, compile
// id, key and cost (time taken on a miss, time saved on a hit, the reason of a bypass).
// An optional "Why" column holds one explanation headline per lookup (set by the cache panel).
// Read-only; follows the Workspace and shows nothing when its run is gone.
#pragma once

#include "views/models/workspace.h"

#include <QAbstractTableModel>
#include <QStringList>

namespace fxs::views {

class CacheLookupModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        StateColumn,
        CacheColumn,
        RankColumn, // hidden by the Cache dock unless the run has ranks
        CompileIdColumn,
        KeyColumn,
        CostColumn,
        WhyColumn,
        ColumnCount
    };
    enum Role { LookupRefRole = Qt::UserRole + 1 };

    explicit CacheLookupModel(const Workspace* workspace, QObject* parent = nullptr);

    // Shows the lookups of workspace->runs()[run]; -1 shows none.
    void setRun(int run);
    int run() const { return m_run; }
    // True when a lookup of the run shown names a rank (a distributed run).
    bool hasRanks() const;
    QModelIndex indexOf(LookupRef ref) const;
    // One headline per row of the current run (missing entries show empty); cleared by setRun.
    void setHeadlines(QStringList headlines);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // "1.23 s saved", "412 ms", "bypass: <reason>"; "" when the log says nothing.
    static QString costText(const model::CacheLookup& lookup);

private:
    QVariant displayData(const model::CacheLookup& lookup, int row, int column) const;
    QVariant toolTip(const model::CacheLookup& lookup, int row, int column) const;

    const Workspace* m_workspace;
    int m_run = -1;
    int m_rows = 0;
    QStringList m_headlines;
};

} // namespace fxs::views
