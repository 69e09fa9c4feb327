#include "views/models/cache_entry_model.h"

#include <QColor>
#include <QDateTime>
#include <QLocale>

namespace fxs::views {
namespace {

QString timeText(std::int64_t ms)
{
    if (ms <= 0) {
        return {};
    }
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd hh:mm:ss"));
}

QString key(const cache::EntryInfo& e)
{
    return QString::fromStdString(e.key);
}

} // namespace

CacheEntryModel::CacheEntryModel(QObject* parent) : QAbstractTableModel(parent) {}

void CacheEntryModel::setEntries(std::vector<cache::EntryInfo> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    m_corrupt.clear();
    endResetModel();
}

const cache::EntryInfo* CacheEntryModel::entry(int row) const
{
    return row >= 0 && row < rowCount() ? &m_entries[static_cast<std::size_t>(row)] : nullptr;
}

int CacheEntryModel::rowOf(const QString& k) const
{
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        if (key(m_entries[i]) == k) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

void CacheEntryModel::setCorrupt(const QSet<QString>& keys)
{
    m_corrupt = keys;
    if (!m_entries.empty()) {
        Q_EMIT dataChanged(index(0, StateColumn), index(rowCount() - 1, StateColumn));
    }
}

int CacheEntryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int CacheEntryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString CacheEntryModel::stateText(const cache::EntryInfo& e) const
{
    if (m_corrupt.contains(key(e))) {
        return tr("corrupt");
    }
    return QString::fromLatin1(cache::entryStatusName(e.status).data());
}

QVariant CacheEntryModel::display(const cache::EntryInfo& e, int column) const
{
    switch (column) {
    case KeyColumn:
        return key(e).left(kShortKey);
    case RegionColumn:
        return QString::fromStdString(e.title);
    case StateColumn:
        return stateText(e);
    case SizeColumn:
        return QLocale().formattedDataSize(e.blobBytes);
    case CompileMsColumn:
        return QString::number(e.compileMs, 'f', 1);
    case CreatedColumn:
        return timeText(e.createdMs);
    case LastHitColumn:
        // The store starts last_hit at the creation time (LRU order); no hit yet is "never".
        return e.hitCount > 0 ? timeText(e.lastHitMs) : tr("never");
    case HitsColumn:
        return QString::number(e.hitCount);
    default:
        return {};
    }
}

QVariant CacheEntryModel::sortValue(const cache::EntryInfo& e, int column) const
{
    switch (column) {
    case SizeColumn:
        return qint64(e.blobBytes);
    case CompileMsColumn:
        return e.compileMs;
    case CreatedColumn:
        return qint64(e.createdMs);
    case LastHitColumn:
        return qint64(e.lastHitMs);
    case HitsColumn:
        return qint64(e.hitCount);
    default:
        return display(e, column);
    }
}

QVariant CacheEntryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const cache::EntryInfo& e = m_entries[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return display(e, index.column());
    case SortRole:
        return sortValue(e, index.column());
    case KeyRole:
        return key(e);
    case Qt::ToolTipRole:
        if (index.column() == KeyColumn) {
            return key(e);
        }
        if (index.column() == StateColumn && !e.statusReason.empty()) {
            return QString::fromStdString(e.statusReason);
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() == StateColumn &&
            (m_corrupt.contains(key(e)) || e.status == cache::EntryStatus::Bad)) {
            return QColor(0xd3, 0x2f, 0x2f);
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() >= SizeColumn && index.column() != CreatedColumn &&
                       index.column() != LastHitColumn
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    default:
        return {};
    }
}

QVariant CacheEntryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    static const char* const kTitles[ColumnCount] = {
        QT_TR_NOOP("Key"),     QT_TR_NOOP("Region"),   QT_TR_NOOP("State"),
        QT_TR_NOOP("Size"),    QT_TR_NOOP("Compile ms"), QT_TR_NOOP("Created"),
        QT_TR_NOOP("Last hit"), QT_TR_NOOP("Hits")};
    return section >= 0 && section < ColumnCount ? tr(kTitles[section]) : QVariant();
}

} // namespace fxs::views
