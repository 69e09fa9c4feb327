#include "views/models/component_diff_model.h"

namespace fxs::views {
namespace {

// First line of a value, with an ellipsis when more follows (gm holds a whole graph).
QString firstLine(const QString& value)
{
    const auto nl = value.indexOf(QLatin1Char('\n'));
    QString line = nl < 0 ? value : value.left(nl) + QStringLiteral(" …");
    constexpr qsizetype kMax = 200;
    return line.size() > kMax ? line.left(kMax) + QStringLiteral("…") : line;
}

} // namespace

ComponentDiffModel::ComponentDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComponentDiffModel::setRows(std::vector<ComponentDiffRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

void ComponentDiffModel::setChanges(const std::vector<explain::ComponentChange>& changes)
{
    std::vector<ComponentDiffRow> rows;
    rows.reserve(changes.size());
    for (const auto& c : changes) {
        rows.push_back(rowOf(c));
    }
    setRows(std::move(rows));
}

ComponentDiffRow ComponentDiffModel::rowOf(const explain::ComponentChange& c)
{
    QString change;
    switch (c.change) {
    case explain::ChangeKind::Changed: change = tr("changed"); break;
    case explain::ChangeKind::OnlyA: change = tr("only in A"); break;
    case explain::ChangeKind::OnlyB: change = tr("only in B"); break;
    }
    return {QString::fromStdString(c.component),
            QString::fromStdString(c.field.empty() ? c.family : c.field), change,
            QString::fromStdString(c.a), QString::fromStdString(c.b)};
}

void ComponentDiffModel::setSideNames(const QString& a, const QString& b)
{
    m_aName = a;
    m_bName = b;
    Q_EMIT headerDataChanged(Qt::Horizontal, AColumn, BColumn);
}

int ComponentDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ComponentDiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComponentDiffModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto& row = m_rows[static_cast<std::size_t>(index.row())];
    const QString* value = nullptr;
    switch (index.column()) {
    case ComponentColumn: value = &row.component; break;
    case FamilyColumn: value = &row.family; break;
    case ChangeColumn: value = &row.change; break;
    case AColumn: value = &row.a; break;
    case BColumn: value = &row.b; break;
    default: return {};
    }
    if (role == Qt::DisplayRole) {
        return firstLine(*value);
    }
    if (role == Qt::ToolTipRole && (index.column() == AColumn || index.column() == BColumn)) {
        constexpr qsizetype kMaxTip = 4000;
        return value->size() > kMaxTip ? value->left(kMaxTip) + QStringLiteral("\n…") : *value;
    }
    return {};
}

QVariant ComponentDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case ComponentColumn: return tr("Component");
    case FamilyColumn: return tr("Family");
    case ChangeColumn: return tr("Change");
    case AColumn: return m_aName;
    case BColumn: return m_bName;
    default: return {};
    }
}

} // namespace fxs::views
