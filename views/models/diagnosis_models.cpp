#include "views/models/diagnosis_models.h"

#include <QColor>

#include <algorithm>
#include <map>
#include <set>

namespace fxs::views {
namespace {

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

QString severityText(diagnose::Severity s)
{
    return QString::fromLatin1(diagnose::severityName(s).data(),
                               qsizetype(diagnose::severityName(s).size()));
}

QString secondsText(double s)
{
    if (s <= 0.0) {
        return QStringLiteral("\u2013");
    }
    return s < 1.0 ? QStringLiteral("%1 ms").arg(s * 1000.0, 0, 'f', 0)
                   : QStringLiteral("%1 s").arg(s, 0, 'f', 2);
}

// "cold_miss" → "cold miss".
QString className(diagnose::CacheClass c)
{
    QString name = QString::fromLatin1(diagnose::cacheClassName(c).data(),
                                       qsizetype(diagnose::cacheClassName(c).size()));
    return name.replace(QLatin1Char('_'), QLatin1Char(' '));
}

const QColor kDivergent(0xf6, 0xd5, 0xd3);

} // namespace

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingsModel::setDiagnosis(DiagnosisPtr diagnosis)
{
    beginResetModel();
    m_diagnosis = std::move(diagnosis);
    endResetModel();
}

const diagnose::Finding* FindingsModel::finding(int row) const
{
    if (!m_diagnosis || row < 0 || row >= int(m_diagnosis->findings.size())) {
        return nullptr;
    }
    return &m_diagnosis->findings[std::size_t(row)];
}

int FindingsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_diagnosis ? 0 : int(m_diagnosis->findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    const diagnose::Finding* f = finding(index.row());
    if (f == nullptr || index.parent().isValid()) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case SeverityColumn: return severityText(f->severity);
        case CostColumn: return secondsText(f->costS);
        case TextColumn: return fromStd(f->text);
        case RemedyColumn: return f->remedy ? fromStd(f->remedy->text) : QString();
        case WhereColumn: return fromStd(f->where);
        case RunColumn: {
            const auto& runs = m_diagnosis->runs;
            if (f->link.run < 0 || f->link.run >= int(runs.size())) {
                return {};
            }
            const std::string& source = runs[std::size_t(f->link.run)].source;
            const auto slash = source.find_last_of('/');
            return fromStd(slash == std::string::npos ? source : source.substr(slash + 1));
        }
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        return f->remedy ? fromStd(f->text + "\n\u2192 " + f->remedy->text) : fromStd(f->text);
    }
    if (role == Qt::ForegroundRole && index.column() == SeverityColumn &&
        f->severity == diagnose::Severity::Error) {
        return QColor(0xd6, 0x45, 0x41);
    }
    if (role == Qt::TextAlignmentRole && index.column() == CostColumn) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case CostColumn: return tr("Cost");
    case TextColumn: return tr("Finding");
    case RemedyColumn: return tr("What to do");
    case WhereColumn: return tr("Where");
    case RunColumn: return tr("Run");
    default: return {};
    }
}

RankGridModel::RankGridModel(QObject* parent) : QAbstractTableModel(parent) {}

int RankGridModel::firstMultiRankRun(const diagnose::Diagnosis& d)
{
    for (std::size_t i = 0; i < d.runs.size(); ++i) {
        if (d.runs[i].ranks.size() >= 2) {
            return int(i);
        }
    }
    return -1;
}

void RankGridModel::setDiagnosis(DiagnosisPtr diagnosis, int run)
{
    beginResetModel();
    m_diagnosis = std::move(diagnosis);
    m_run = run;
    rebuild();
    endResetModel();
}

// Per (compile id, rank): compiled or not, the classes of its lookups, a recompile.
void RankGridModel::rebuild()
{
    m_ranks.clear();
    m_ids.clear();
    m_cells.clear();
    if (!m_diagnosis || m_run < 0 || m_run >= int(m_diagnosis->runs.size()) ||
        m_diagnosis->runs[std::size_t(m_run)].ranks.size() < 2) {
        return;
    }
    const auto& d = *m_diagnosis;
    m_ranks = d.runs[std::size_t(m_run)].ranks;
    std::set<std::pair<model::CompileId, int>> compiled;
    std::set<model::CompileId> ids;
    for (const auto& f : d.frames) {
        for (const auto& id : f.compileIds) {
            if (f.run == m_run) {
                compiled.emplace(id.withoutAttempt(), f.rank);
                ids.insert(id.withoutAttempt());
            }
        }
    }
    // Classes in log order, counted: "2 cold miss, hit".
    std::map<std::pair<model::CompileId, int>, std::vector<std::pair<QString, int>>> classes;
    for (const auto& c : d.cache) {
        if (c.run != m_run || !c.compileId.valid()) {
            continue;
        }
        const auto key = std::make_pair(c.compileId.withoutAttempt(), c.rank);
        ids.insert(key.first);
        compiled.insert(key);
        auto& list = classes[key];
        const QString name = className(c.cls);
        auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == name; });
        if (it == list.end()) {
            list.emplace_back(name, 1);
        } else {
            ++it->second;
        }
    }
    std::set<std::pair<model::CompileId, int>> recompiled;
    for (const auto& r : d.recompiles) {
        if (r.run == m_run) {
            recompiled.emplace(r.compileId.withoutAttempt(), r.rank);
        }
    }
    m_ids.assign(ids.begin(), ids.end());
    for (const auto& id : m_ids) {
        std::vector<QString> row;
        for (int rank : m_ranks) {
            const auto key = std::make_pair(id, rank);
            if (!compiled.count(key)) {
                row.push_back(tr("not compiled"));
                continue;
            }
            QStringList parts;
            for (const auto& [name, n] : classes[key]) {
                parts << (n > 1 ? QStringLiteral("%1 %2").arg(n).arg(name) : name);
            }
            QString text = tr("compiled");
            if (!parts.isEmpty()) {
                text += QStringLiteral(" \u00b7 ") + parts.join(QStringLiteral(", "));
            }
            if (recompiled.count(key)) {
                text += QStringLiteral(" \u00b7 ") + tr("recompile");
            }
            row.push_back(text);
        }
        m_cells.push_back(std::move(row));
    }
}

QString RankGridModel::cellText(int row, int column) const
{
    if (row < 0 || row >= int(m_cells.size()) || column < 0 || column >= int(m_ranks.size())) {
        return {};
    }
    return m_cells[std::size_t(row)][std::size_t(column)];
}

const diagnose::Divergence* RankGridModel::divergence(int row) const
{
    if (!m_diagnosis || row < 0 || row >= int(m_ids.size())) {
        return nullptr;
    }
    for (const auto& v : m_diagnosis->divergence) {
        if (v.run == m_run && v.compileId.withoutAttempt() == m_ids[std::size_t(row)]) {
            return &v;
        }
    }
    return nullptr;
}

int RankGridModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

int RankGridModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_ranks.size());
}

QVariant RankGridModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const diagnose::Divergence* v = divergence(index.row());
    switch (role) {
    case Qt::DisplayRole: return cellText(index.row(), index.column());
    case Qt::BackgroundRole: return v != nullptr ? QVariant(kDivergent) : QVariant();
    case Qt::ToolTipRole: {
        if (v == nullptr) {
            return {};
        }
        const auto it = v->detail.find(m_ranks[std::size_t(index.column())]);
        QString tip = fromStd(v->what);
        if (it != v->detail.end()) {
            tip += QStringLiteral(": ") + fromStd(it->second);
        }
        return tip;
    }
    default: return {};
    }
}

QVariant RankGridModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole) {
        return {};
    }
    if (orientation == Qt::Horizontal) {
        return section >= 0 && section < int(m_ranks.size())
                   ? tr("rank %1").arg(m_ranks[std::size_t(section)])
                   : QVariant();
    }
    if (section < 0 || section >= int(m_ids.size())) {
        return {};
    }
    QString id = fromStd(m_ids[std::size_t(section)].toString());
    if (const auto* v = divergence(section)) {
        id += QStringLiteral(" \u2260 ") + fromStd(v->what);
    }
    return id;
}

} // namespace fxs::views
