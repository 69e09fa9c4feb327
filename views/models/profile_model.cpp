// ProfileModel: rows over nodes then regions, numeric sort values, the share colour scale.
#include "views/models/profile_model.h"

#include <algorithm>
#include <cmath>

namespace fxs::views {
namespace {

double maxShare(const profile::RuntimeProfile& p)
{
    double m = 0.0;
    for (const auto& n : p.nodes) {
        m = std::max(m, n.share);
    }
    return m;
}

} // namespace

QString ProfileModel::msText(double ms)
{
    const double a = std::abs(ms);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : 4;
    return QString::number(ms, 'f', decimals);
}

QString ProfileModel::timeText(const profile::TimeStat& t)
{
    if (t.maxMs <= t.minMs) {
        return msText(t.medianMs);
    }
    return QStringLiteral("%1 (%2\u2013%3)").arg(msText(t.medianMs), msText(t.minMs), msText(t.maxMs));
}

// "1.17× (0.76–1.49)": eager median over compiled median, and over the compiled range.
QString ProfileModel::speedupText(const profile::RegionProfile& r)
{
    const double compiled =
        r.compiled.medianMs > 0 ? r.compiled.medianMs : r.compiledMs.value_or(0.0);
    if (compiled <= 0) {
        return {};
    }
    QString text = QString::number(r.eager.medianMs / compiled, 'f', 2) + "×";
    if (r.compiled.minMs > 0 && r.compiled.maxMs > r.compiled.minMs) {
        text += QStringLiteral(" (%1\u2013%2)")
                    .arg(r.eager.medianMs / r.compiled.maxMs, 0, 'f', 2)
                    .arg(r.eager.medianMs / r.compiled.minMs, 0, 'f', 2);
    }
    return text;
}

std::optional<double> ProfileModel::shownShare(int row) const
{
    const auto nodes = static_cast<int>(m_profile.nodes.size());
    if (row < nodes) {
        if (!m_profile.nodes[static_cast<std::size_t>(row)].region.empty()) {
            return std::nullopt;
        }
    }
    double shown = 0.0;
    for (const auto& n : m_profile.nodes) {
        shown += n.region.empty() ? n.eager.medianMs : 0.0;
    }
    for (const auto& r : m_profile.regions) {
        shown += r.eager.medianMs;
    }
    const auto at = static_cast<std::size_t>(row < nodes ? row : row - nodes);
    const double eager = row < nodes ? m_profile.nodes[at].eager.medianMs
                                     : m_profile.regions[at].eager.medianMs;
    return shown > 0 ? eager / shown : 0.0;
}

ProfileModel::ProfileModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProfileModel::setProfile(profile::RuntimeProfile profile)
{
    beginResetModel();
    m_profile = std::move(profile);
    endResetModel();
}

int ProfileModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0
                            : static_cast<int>(m_profile.nodes.size() + m_profile.regions.size());
}

int ProfileModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileModel::display(int row, int column) const
{
    const auto nodes = static_cast<int>(m_profile.nodes.size());
    if (row < nodes) {
        const auto& n = m_profile.nodes[static_cast<std::size_t>(row)];
        switch (column) {
        case NameColumn: return QString::fromStdString(n.name);
        case KindColumn: return QString::fromStdString(n.target);
        case EagerColumn: return timeText(n.eager);
        case CompiledColumn:
        case SpeedupColumn: return QString();
        case ShareColumn:
            return n.region.empty()
                       ? QString::number(shownShare(row).value_or(0.0) * 100, 'f', 1) + "%"
                       : tr("in %1").arg(QString::fromStdString(n.region));
        default: return QString::fromUtf8(profile::boundName(n.bound).data());
        }
    }
    const auto& r = m_profile.regions[static_cast<std::size_t>(row - nodes)];
    switch (column) {
    case NameColumn: return QString::fromStdString(r.id);
    case KindColumn: return tr("region (%1 nodes)").arg(r.nodes.size());
    case EagerColumn: return timeText(r.eager);
    case CompiledColumn:
        return r.compiled.medianMs > 0 ? timeText(r.compiled)
                                       : (r.compiledMs ? msText(*r.compiledMs) : QString());
    case SpeedupColumn: return speedupText(r);
    case ShareColumn: return QString::number(shownShare(row).value_or(0.0) * 100, 'f', 1) + "%";
    default: return QString::fromUtf8(profile::boundName(r.bound).data());
    }
}

QVariant ProfileModel::sortValue(int row, int column) const
{
    const auto nodes = static_cast<int>(m_profile.nodes.size());
    const bool isNode = row < nodes;
    const auto* n = isNode ? &m_profile.nodes[static_cast<std::size_t>(row)] : nullptr;
    const auto* r = isNode ? nullptr : &m_profile.regions[static_cast<std::size_t>(row - nodes)];
    switch (column) {
    case EagerColumn: return isNode ? n->eager.medianMs : r->eager.medianMs;
    case CompiledColumn: return !isNode && r->compiledMs ? *r->compiledMs : -1.0;
    case SpeedupColumn:
        return !isNode && r->compiledMs && *r->compiledMs > 0
                   ? r->eager.medianMs / *r->compiledMs
                   : -1.0;
    case ShareColumn: return shownShare(row).value_or(isNode ? n->share : 0.0);
    default: return display(row, column);
    }
}

QVariant ProfileModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) {
        return {};
    }
    const int row = index.row();
    const bool isRegion = row >= static_cast<int>(m_profile.nodes.size());
    switch (role) {
    case Qt::DisplayRole: return display(row, index.column());
    case SortRole: return sortValue(row, index.column());
    case IsRegionRole: return isRegion;
    case ShareRole: return sortValue(row, ShareColumn);
    case Qt::TextAlignmentRole:
        return index.column() >= EagerColumn && index.column() <= ShareColumn
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    case Qt::DecorationRole:
        return index.column() == NameColumn && !isRegion
                   ? QVariant(shareColor(sortValue(row, ShareColumn).toDouble(),
                                         maxShare(m_profile)))
                   : QVariant();
    default: return {};
    }
}

QVariant ProfileModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case NameColumn: return tr("Node / region");
    case KindColumn: return tr("Target");
    case EagerColumn: return tr("Eager ms");
    case CompiledColumn: return tr("Compiled ms");
    case SpeedupColumn: return tr("Speedup");
    case ShareColumn: return tr("Share");
    case BoundColumn: return tr("Bound");
    default: return {};
    }
}

int ProfileModel::rowOf(const QString& name) const
{
    const std::string key = name.toStdString();
    for (std::size_t i = 0; i < m_profile.nodes.size(); ++i) {
        if (m_profile.nodes[i].name == key) {
            return static_cast<int>(i);
        }
    }
    for (std::size_t i = 0; i < m_profile.regions.size(); ++i) {
        if (m_profile.regions[i].id == key) {
            return static_cast<int>(m_profile.nodes.size() + i);
        }
    }
    return -1;
}

QColor ProfileModel::shareColor(double share, double maxShare)
{
    const double t = maxShare > 0 ? std::clamp(share / maxShare, 0.0, 1.0) : 0.0;
    // Pale yellow (hue 55°, lightness 92%) to dark red (hue 0°, lightness 30%).
    return QColor::fromHslF(static_cast<float>((55.0 - 55.0 * t) / 360.0), 0.85f,
                            static_cast<float>(0.92 - 0.62 * t));
}

std::unordered_map<graph::NodeId, QColor> ProfileModel::overlayColors(
    const profile::RuntimeProfile& profile, const graph::Graph& graph)
{
    std::unordered_map<graph::NodeId, QColor> out;
    const double m = maxShare(profile);
    for (const auto& n : profile.nodes) {
        if (auto id = graph.find(n.name)) {
            out[*id] = shareColor(n.share, m);
        }
    }
    return out;
}

NodeAmounts ProfileModel::overlayAmounts(const profile::RuntimeProfile& profile,
                                         const graph::Graph& graph)
{
    NodeAmounts out;
    out.unit = QStringLiteral("ms");
    for (const auto& n : profile.nodes) {
        if (auto id = graph.find(n.name)) {
            out.values[*id] = n.eager.medianMs;
        }
    }
    return out;
}

std::vector<std::pair<double, QColor>> ProfileModel::legend(const profile::RuntimeProfile& profile)
{
    const double m = maxShare(profile);
    std::vector<std::pair<double, QColor>> stops;
    for (int i = 0; i <= 4; ++i) {
        stops.emplace_back(m * i / 4.0, shareColor(m * i / 4.0, m));
    }
    return stops;
}

} // namespace fxs::views
