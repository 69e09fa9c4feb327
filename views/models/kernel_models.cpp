// KernelsModel and KernelModulesModel: rows over a runtime attribution, numeric sort values,
// the runtime heat scale.
#include "views/models/kernel_models.h"

#include "core/runtime/kernel_rates.h"
#include "views/models/profile_model.h"

#include <algorithm>
#include <numeric>

namespace fxs::views {

namespace {

QString joined(const std::vector<std::string>& names, std::size_t most)
{
    QStringList out;
    for (std::size_t i = 0; i < names.size() && i < most; ++i) {
        out << QString::fromStdString(names[i]);
    }
    if (names.size() > most) {
        out << QStringLiteral("+%1").arg(names.size() - most);
    }
    return out.join(QStringLiteral(", "));
}

QVariant optionalNumber(const std::optional<double>& v)
{
    return v ? QVariant(*v) : QVariant(-1.0);
}

} // namespace

// ---- KernelsModel ---------------------------------------------------------------------------

KernelsModel::KernelsModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelsModel::setAttribution(std::shared_ptr<const runtime::Attribution> a)
{
    beginResetModel();
    m_attribution = std::move(a);
    m_rows.resize(m_attribution ? m_attribution->kernels.size() : 0);
    std::iota(m_rows.begin(), m_rows.end(), std::size_t(0));
    m_filtered = false;
    endResetModel();
}

void KernelsModel::setFilter(std::optional<std::vector<std::size_t>> kernels)
{
    beginResetModel();
    const std::size_t count = m_attribution ? m_attribution->kernels.size() : 0;
    m_filtered = kernels.has_value();
    if (kernels) {
        m_rows.clear();
        for (const std::size_t k : *kernels) {
            if (k < count) {
                m_rows.push_back(k);
            }
        }
    } else {
        m_rows.resize(count);
        std::iota(m_rows.begin(), m_rows.end(), std::size_t(0));
    }
    endResetModel();
}

int KernelsModel::rowOf(std::size_t kernel) const
{
    const auto it = std::find(m_rows.begin(), m_rows.end(), kernel);
    return it == m_rows.end() ? -1 : static_cast<int>(it - m_rows.begin());
}

int KernelsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int KernelsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString KernelsModel::usText(double us)
{
    return QString::number(us, 'f', us >= 100 ? 0 : 1);
}

QString KernelsModel::shareText(double share)
{
    return QString::number(share * 100, 'f', 1) + QStringLiteral(" %");
}

QVariant KernelsModel::display(const runtime::KernelRow& r, int column) const
{
    const auto rates = runtime::kernelRates(r, m_attribution->peaks);
    switch (column) {
    case NameColumn: return QString::fromStdString(r.name);
    case SiteColumn:
        return r.handle.empty() ? tr("outside: %1").arg(QString::fromStdString(r.op))
                                : QString::fromStdString(r.handle);
    case TimeColumn: return usText(r.us);
    case ShareColumn: return shareText(r.share);
    case GbpsColumn: return rates.gbps ? QString::number(*rates.gbps, 'f', 1) : QString();
    case PeakColumn:
        if (!rates.pctPeak()) {
            return QString();
        }
        return QStringLiteral("%1 (%2)")
            .arg(*rates.pctPeak(), 0, 'f', 1)
            .arg(rates.pctPeakFlops ? QString::fromStdString(rates.peakKind) : tr("bw"));
    case CallsColumn: return QString::number(r.calls);
    case NodesColumn: return joined(r.postNodes, 4);
    default: return {};
    }
}

QVariant KernelsModel::sortValue(const runtime::KernelRow& r, int column) const
{
    const auto rates = runtime::kernelRates(r, m_attribution->peaks);
    switch (column) {
    case TimeColumn:
    case ShareColumn: return r.us;
    case GbpsColumn: return optionalNumber(rates.gbps);
    case PeakColumn: return optionalNumber(rates.pctPeak());
    case CallsColumn: return qlonglong(r.calls);
    case NodesColumn: return qulonglong(r.postNodes.size());
    default: return display(r, column);
    }
}

QString KernelsModel::toolTip(const runtime::KernelRow& r) const
{
    QStringList lines{QString::fromStdString(r.name)};
    if (!r.handle.empty()) {
        lines << tr("call site %1 of graph %2")
                     .arg(QString::fromStdString(r.handle), QString::fromStdString(r.graph));
    } else {
        lines << tr("outside compiled graphs, under %1").arg(QString::fromStdString(r.op));
    }
    lines << tr("%1 µs in %2 calls (%3 launches)").arg(usText(r.us)).arg(r.calls).arg(r.launches);
    if (!r.postNodes.empty()) {
        lines << tr("post-grad nodes: %1").arg(joined(r.postNodes, 12));
    }
    if (r.split) {
        lines << tr("its time is split evenly over its %1 nodes").arg(r.postNodes.size());
    }
    if (!r.autotune.empty()) {
        lines << tr("autotune: %1").arg(QString::fromStdString(r.autotune));
    }
    return lines.join(QLatin1Char('\n'));
}

QVariant KernelsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_attribution || index.row() >= rowCount()) {
        return {};
    }
    const std::size_t k = m_rows[static_cast<std::size_t>(index.row())];
    const runtime::KernelRow& r = m_attribution->kernels[k];
    switch (role) {
    case Qt::DisplayRole: return display(r, index.column());
    case SortRole: return sortValue(r, index.column());
    case KernelRole: return qulonglong(k);
    case Qt::ToolTipRole: return toolTip(r);
    case Qt::TextAlignmentRole:
        return index.column() >= TimeColumn && index.column() <= CallsColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    default: return {};
    }
}

QVariant KernelsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TimeColumn: return tr("GPU time over every profiled step");
        case ShareColumn: return tr("Share of the trace's total kernel time");
        case GbpsColumn: return tr("Bytes the kernel's post-grad nodes move, per second");
        case PeakColumn:
            return tr("Achieved share of the device's peak: FLOPs for GEMMs, convolutions and "
                      "attention (precision in brackets), else bandwidth (bw)");
        case NodesColumn: return tr("The post-grad nodes the kernel computes");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case NameColumn: return tr("Kernel");
    case SiteColumn: return tr("Call site");
    case TimeColumn: return tr("Time (µs)");
    case ShareColumn: return tr("Share");
    case GbpsColumn: return tr("GB/s");
    case PeakColumn: return tr("% peak");
    case CallsColumn: return tr("Calls");
    case NodesColumn: return tr("Nodes");
    default: return {};
    }
}

QColor KernelsModel::heatColor(double us, double maxUs)
{
    return ProfileModel::shareColor(us, maxUs);
}

std::unordered_map<graph::NodeId, QColor> KernelsModel::heatColors(
    const runtime::GraphTimes& times, const graph::Graph& graph)
{
    double maxUs = 0;
    for (const auto& [name, t] : times.nodes) {
        maxUs = std::max(maxUs, t.us);
    }
    return heatColors(heatAmounts(times, graph), maxUs);
}

std::unordered_map<graph::NodeId, QColor> KernelsModel::heatColors(const NodeAmounts& amounts,
                                                                   double maxUs)
{
    std::unordered_map<graph::NodeId, QColor> out;
    for (const auto& [id, us] : amounts.values) {
        out[id] = heatColor(us, maxUs);
    }
    return out;
}

NodeAmounts KernelsModel::heatAmounts(const runtime::GraphTimes& times, const graph::Graph& graph)
{
    NodeAmounts out;
    out.unit = QStringLiteral("µs");
    for (const auto& [name, t] : times.nodes) {
        if (t.us <= 0) {
            continue;
        }
        if (const auto id = graph.find(name)) {
            out.values[*id] = t.us;
        }
    }
    return out;
}

std::vector<std::pair<double, QColor>> KernelsModel::heatLegend(double maxUs)
{
    std::vector<std::pair<double, QColor>> stops;
    for (int i = 0; i <= 4; ++i) {
        stops.emplace_back(maxUs * i / 4.0, heatColor(maxUs * i / 4.0, maxUs));
    }
    return stops;
}

// ---- KernelModulesModel ---------------------------------------------------------------------

KernelModulesModel::KernelModulesModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelModulesModel::setAttribution(std::shared_ptr<const runtime::Attribution> a)
{
    beginResetModel();
    m_attribution = std::move(a);
    endResetModel();
}

QString KernelModulesModel::pathAt(int row) const
{
    if (!m_attribution || row < 0 || row >= rowCount()) {
        return {};
    }
    return QString::fromStdString(m_attribution->modules[static_cast<std::size_t>(row)].path);
}

int KernelModulesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_attribution ? 0
                                              : static_cast<int>(m_attribution->modules.size());
}

int KernelModulesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelModulesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const runtime::ModuleRow& m = m_attribution->modules[static_cast<std::size_t>(index.row())];
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort) {
        if (role == Qt::TextAlignmentRole && index.column() != PathColumn) {
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    }
    switch (index.column()) {
    case PathColumn: return QString::fromStdString(m.path);
    case TimeColumn: return sort ? QVariant(m.us) : QVariant(KernelsModel::usText(m.us));
    case ShareColumn: return sort ? QVariant(m.share) : QVariant(KernelsModel::shareText(m.share));
    case KernelsColumn: return sort ? QVariant(qulonglong(m.kernels.size()))
                                    : QVariant(QString::number(m.kernels.size()));
    default: return {};
    }
}

QVariant KernelModulesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case PathColumn: return tr("Module");
    case TimeColumn: return tr("Time (µs)");
    case ShareColumn: return tr("Share");
    case KernelsColumn: return tr("Kernels");
    default: return {};
    }
}

} // namespace fxs::views
