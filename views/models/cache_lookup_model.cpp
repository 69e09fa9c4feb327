#include "views/models/cache_lookup_model.h"

#include "views/models/cache_state_style.h"

#include <algorithm>

namespace fxs::views {
namespace {

QString formatDurationMs(double ms)
{
    if (ms >= 1000.0) {
        return QStringLiteral("%1 s").arg(ms / 1000.0, 0, 'f', 2);
    }
    return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 10.0 ? 1 : 0);
}

} // namespace

CacheLookupModel::CacheLookupModel(const Workspace* workspace, QObject* parent)
    : QAbstractTableModel(parent), m_workspace(workspace)
{
    connect(workspace, &Workspace::aboutToChange, this, [this] { beginResetModel(); });
    connect(workspace, &Workspace::changed, this, [this] {
        const bool gone = m_run >= static_cast<int>(m_workspace->runs().size());
        if (gone) {
            m_run = -1;
        }
        m_headlines.clear();
        m_rows = m_run < 0 ? 0
                           : static_cast<int>(
                                 m_workspace->runs()[static_cast<std::size_t>(m_run)]->lookups.size());
        endResetModel();
    });
}

void CacheLookupModel::setRun(int run)
{
    beginResetModel();
    const int runs = static_cast<int>(m_workspace->runs().size());
    m_run = (run >= 0 && run < runs) ? run : -1;
    m_headlines.clear();
    m_rows = m_run < 0
                 ? 0
                 : static_cast<int>(m_workspace->runs()[static_cast<std::size_t>(m_run)]->lookups.size());
    endResetModel();
}

bool CacheLookupModel::hasRanks() const
{
    if (m_run < 0) {
        return false;
    }
    const auto& lookups = m_workspace->runs()[static_cast<std::size_t>(m_run)]->lookups;
    return std::any_of(lookups.begin(), lookups.end(),
                       [](const model::CacheLookup& l) { return l.rank >= 0; });
}

void CacheLookupModel::setHeadlines(QStringList headlines)
{
    m_headlines = std::move(headlines);
    if (m_rows > 0) {
        Q_EMIT dataChanged(index(0, WhyColumn), index(m_rows - 1, WhyColumn));
    }
}

QModelIndex CacheLookupModel::indexOf(LookupRef ref) const
{
    if (ref.run != m_run || ref.index < 0 || ref.index >= m_rows) {
        return {};
    }
    return index(ref.index, 0);
}

int CacheLookupModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int CacheLookupModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString CacheLookupModel::costText(const model::CacheLookup& l)
{
    if (l.state == model::CacheState::Bypass) {
        return l.bypassReason.empty() ? QString() : QString::fromStdString(l.bypassReason);
    }
    if (l.timeSavedMs) {
        return QObject::tr("%1 saved").arg(formatDurationMs(*l.timeSavedMs));
    }
    if (l.timeSavedNs) {
        return QObject::tr("%1 saved").arg(formatDurationMs(double(*l.timeSavedNs) / 1e6));
    }
    if (l.timeTakenNs) {
        return QObject::tr("%1 to compile").arg(formatDurationMs(double(*l.timeTakenNs) / 1e6));
    }
    return {};
}

QVariant CacheLookupModel::displayData(const model::CacheLookup& l, int row, int column) const
{
    switch (column) {
    case StateColumn: {
        QString s = cacheStateText(l.state);
        if (!l.detailedStatus.empty() && l.detailedStatus != model::cacheStateName(l.state)) {
            s += QStringLiteral(" (%1)").arg(QString::fromStdString(l.detailedStatus));
        }
        return s;
    }
    case CacheColumn: return QString::fromUtf8(model::cacheKindName(l.cache).data());
    case RankColumn: return l.rank >= 0 ? QVariant(l.rank) : QVariant(QStringLiteral("—"));
    case CompileIdColumn: return QString::fromStdString(l.compileId.toString());
    case KeyColumn: return l.key ? QString::fromStdString(*l.key).left(16) : QString();
    case CostColumn: return costText(l);
    case WhyColumn: return row < m_headlines.size() ? m_headlines[row] : QString();
    default: return {};
    }
}

QVariant CacheLookupModel::toolTip(const model::CacheLookup& l, int row, int column) const
{
    if (column == WhyColumn && row < m_headlines.size()) {
        return m_headlines[row];
    }
    if (column == KeyColumn && l.key) {
        return QString::fromStdString(*l.key);
    }
    if (column == CostColumn && l.state == model::CacheState::Bypass) {
        return QString::fromStdString(l.bypassExceptionType + (l.bypassExceptionType.empty() ? "" : ": ")
                                      + l.bypassReason);
    }
    return tr("%1:%2, %n key component(s)", "", int(l.components.size()))
        .arg(QString::fromStdString(l.file))
        .arg(l.line);
}

QVariant CacheLookupModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const LookupRef ref{m_run, index.row()};
    const model::CacheLookup* l = m_workspace->lookup(ref);
    if (!l) {
        return {};
    }
    switch (role) {
    case Qt::DisplayRole: return displayData(*l, index.row(), index.column());
    case Qt::ToolTipRole: return toolTip(*l, index.row(), index.column());
    case Qt::DecorationRole:
        return index.column() == StateColumn ? QVariant(cacheStateIcon(l->state)) : QVariant();
    case LookupRefRole: return QVariant::fromValue(ref);
    default: return {};
    }
}

QVariant CacheLookupModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case StateColumn: return tr("State");
    case CacheColumn: return tr("Cache");
    case RankColumn: return tr("Rank");
    case CompileIdColumn: return tr("Compile id");
    case KeyColumn: return tr("Key");
    case CostColumn: return tr("Cost");
    case WhyColumn: return tr("Why");
    default: return {};
    }
}

} // namespace fxs::views
