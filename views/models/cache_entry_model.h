// The Cache browser's table over the region compiler's SQLite store: one row per entry (key,
// region, state, size, compile ms, created, last hit, hits), numeric/time sort values under
// SortRole, and entries found corrupt by a verify shown as such. Holds an immutable snapshot
// handed over on the GUI thread; reading the database happens elsewhere (the panel, off-thread).
#pragma once

#include "core/cache/cache_store.h"

#include <QAbstractTableModel>
#include <QSet>

#include <vector>

namespace fxs::views {

class CacheEntryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        KeyColumn,
        RegionColumn,
        StateColumn,
        SizeColumn,
        CompileMsColumn,
        CreatedColumn,
        LastHitColumn,
        HitsColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, KeyRole };
    static constexpr int kShortKey = 12; // hex characters shown in the Key column

    explicit CacheEntryModel(QObject* parent = nullptr);

    void setEntries(std::vector<cache::EntryInfo> entries);
    const std::vector<cache::EntryInfo>& entries() const { return m_entries; }
    const cache::EntryInfo* entry(int row) const; // null when out of range
    int rowOf(const QString& key) const;          // -1 when absent
    // Keys a verify found corrupt (shown in State, red); replaces the previous set.
    void setCorrupt(const QSet<QString>& keys);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant display(const cache::EntryInfo& e, int column) const;
    QVariant sortValue(const cache::EntryInfo& e, int column) const;
    QString stateText(const cache::EntryInfo& e) const;

    std::vector<cache::EntryInfo> m_entries;
    QSet<QString> m_corrupt;
};

} // namespace fxs::views
