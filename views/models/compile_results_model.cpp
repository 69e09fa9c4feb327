#include "views/models/compile_results_model.h"

#include <QFont>

namespace fxs::views {

CompileResultRow compileResultRow(const compile::RegionOutcome& o)
{
    CompileResultRow r;
    r.region = QString::fromStdString(o.id);
    r.state = o.state;
    r.headline = QString::fromStdString(o.headline);
    r.compileMs = o.compileMs;
    r.eagerMs = o.eagerMs;
    r.compiledMs = o.compiledMs;
    r.maxAbsErr = o.maxAbsErr;
    r.nodes = o.nodes;
    r.externNodes = o.externNodes;
    r.key = QString::fromStdString(o.key);
    r.source = QString::fromStdString(o.source);
    r.buildDiagnostics = QString::fromStdString(o.buildDiagnostics);
    r.timingsFromEntry = o.timingsFromEntry;
    return r;
}

QString regionMakeUpNote(const CompileResultRow& row)
{
    if (row.nodes <= 0 || row.externNodes * 2 < row.nodes ||
        row.state == compile::RegionState::Fallback) {
        return {};
    }
    return CompileResultsModel::tr("%1 of %2 nodes run as LibTorch calls (extern: matrix "
                                   "products, convolutions, views), as in eager: little is left "
                                   "to fuse, so expect eager's speed")
        .arg(row.externNodes)
        .arg(row.nodes);
}

QColor regionStateColor(compile::RegionState state)
{
    switch (state) {
    case compile::RegionState::Hit:
        return {0x3b, 0xa5, 0x5c};
    case compile::RegionState::Miss:
    case compile::RegionState::Built: // built now, like a miss, before its entry is written
        return {0xe8, 0xa3, 0x17};
    case compile::RegionState::Fallback:
        break;
    }
    return {0x9e, 0x9e, 0x9e};
}

CompileResultsModel::CompileResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompileResultsModel::setRows(std::vector<CompileResultRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int CompileResultsModel::rowOf(const QString& region) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].region == region) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

int CompileResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CompileResultsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompileResultsModel::display(const CompileResultRow& row, int column) const
{
    switch (column) {
    case RegionColumn:
    {
        const QString name =
            row.module.isEmpty() ? row.region : row.module + QStringLiteral(" · ") + row.region;
        QString text = row.nodes == 1 ? tr("%1 (1 node").arg(name)
                                      : tr("%1 (%2 nodes").arg(name).arg(row.nodes);
        return text + (row.externNodes > 0 ? tr(", %1 extern)").arg(row.externNodes)
                                           : QStringLiteral(")"));
    }
    case StateColumn:
        return QString::fromLatin1(compile::regionStateName(row.state).data());
    case HeadlineColumn:
    {
        const QString note = regionMakeUpNote(row);
        return note.isEmpty() ? row.headline : row.headline + QStringLiteral(" — ") + note;
    }
    case CompileMsColumn:
        return QString::number(row.compileMs, 'f', 1);
    case EagerMsColumn:
        return QString::number(row.eagerMs, 'f', 3);
    case CompiledMsColumn:
        return QString::number(row.compiledMs, 'f', 3);
    case ErrorColumn:
        return QString::number(row.maxAbsErr, 'g', 2);
    default:
        return {};
    }
}

QVariant CompileResultsModel::sortValue(const CompileResultRow& row, int column) const
{
    switch (column) {
    case CompileMsColumn:
        return row.compileMs;
    case EagerMsColumn:
        return row.eagerMs;
    case CompiledMsColumn:
        return row.compiledMs;
    case ErrorColumn:
        return row.maxAbsErr;
    case RegionColumn:
        return row.region;
    default:
        return display(row, column);
    }
}

QVariant CompileResultsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const CompileResultRow& row = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return display(row, index.column());
    case SortRole:
        return sortValue(row, index.column());
    case Qt::DecorationRole:
        return index.column() == StateColumn ? QVariant(regionStateColor(row.state)) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == HeadlineColumn) {
            const QString text = display(row, HeadlineColumn).toString();
            return row.buildDiagnostics.isEmpty() ? text : text + "\n\n" + row.buildDiagnostics;
        }
        if ((index.column() == EagerMsColumn || index.column() == CompiledMsColumn) &&
            row.timingsFromEntry) {
            return tr("Measured when the cache entry was built on this device (a verified "
                      "hit is not timed again; fxscope-cli compile --retime measures anew)");
        }
        return index.column() == RegionColumn ? row.key : QVariant();
    case Qt::FontRole: // timings saved with the cache entry read in italics (tooltip: why)
        if ((index.column() == EagerMsColumn || index.column() == CompiledMsColumn) &&
            row.timingsFromEntry) {
            QFont italic;
            italic.setItalic(true);
            return italic;
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() >= CompileMsColumn
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    default:
        return {};
    }
}

QVariant CompileResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case RegionColumn:
        return tr("Region");
    case StateColumn:
        return tr("State");
    case HeadlineColumn:
        return tr("Headline");
    case CompileMsColumn:
        return tr("Compile ms");
    case EagerMsColumn:
        return tr("Eager ms");
    case CompiledMsColumn:
        return tr("Compiled ms");
    case ErrorColumn:
        return tr("Max abs err");
    default:
        return {};
    }
}

} // namespace fxs::views
