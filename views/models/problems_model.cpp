#include "views/models/problems_model.h"

#include <QFileInfo>
#include <QColor>

namespace fxs::views {

ProblemsModel::ProblemsModel(const Workspace* workspace, QObject* parent)
    : QAbstractTableModel(parent), m_workspace(workspace)
{
    connect(workspace, &Workspace::aboutToChange, this, [this] { beginResetModel(); });
    connect(workspace, &Workspace::changed, this, [this] {
        m_rows = static_cast<int>(m_workspace->diagnostics().size());
        endResetModel();
    });
    connect(workspace, &Workspace::diagnosticsAboutToBeAdded, this,
            [this](int first, int last) { beginInsertRows({}, first, last); });
    connect(workspace, &Workspace::diagnosticsAdded, this, [this] {
        m_rows = static_cast<int>(m_workspace->diagnostics().size());
        endInsertRows();
    });
    m_rows = static_cast<int>(workspace->diagnostics().size());
}

int ProblemsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int ProblemsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ProblemsModel::shortWhere(const Diagnostic& d)
{
    const QString name = QFileInfo(QString::fromStdString(d.file)).fileName();
    return d.line > 0 ? QStringLiteral("%1:%2").arg(name).arg(d.line) : name;
}

QString ProblemsModel::fullMessage(const Diagnostic& d)
{
    QString text = QString::fromStdString(d.message);
    if (!d.expected.empty() || !d.found.empty()) {
        QStringList parts;
        if (!d.expected.empty()) {
            parts << tr("expected %1").arg(QString::fromStdString(d.expected));
        }
        if (!d.found.empty()) {
            parts << tr("found %1").arg(QString::fromStdString(d.found));
        }
        text += QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
    }
    return text;
}

QVariant ProblemsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto& d = m_workspace->diagnostics().items()[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return d.severity == Severity::Error     ? tr("error")
                   : d.severity == Severity::Warning ? tr("warning")
                                                     : tr("note");
        case WhereColumn: return shortWhere(d);
        case MessageColumn: return fullMessage(d);
        default: return {};
        }
    case Qt::ToolTipRole: return QString::fromStdString(d.toString());
    case Qt::ForegroundRole:
        if (index.column() == SeverityColumn && d.severity == Severity::Error) {
            return QColor(0xd6, 0x45, 0x41);
        }
        return {};
    case FileRole: return QString::fromStdString(d.file);
    case LineRole: return d.line;
    default: return {};
    }
}

QVariant ProblemsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case WhereColumn: return tr("Where");
    case MessageColumn: return tr("Message");
    default: return {};
    }
}

} // namespace fxs::views
