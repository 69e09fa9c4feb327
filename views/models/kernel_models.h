// The Kernels dock's tables over a runtime attribution (core/runtime): KernelsModel, one row per
// kernel call site (name, site, time, share, GB/s, % of peak, calls, nodes), optionally only the
// kernels of one node; KernelModulesModel, GPU time per module path. Numeric sort values under
// SortRole; the runtime heat scale (measured µs → colour) and its legend stops. Read-only; the
// app's RuntimeController owns reading traces and the join.
#pragma once

#include "core/graph/graph.h"
#include "core/runtime/attribution.h"
#include "core/runtime/graph_times.h"
#include "views/models/graph_decorations.h"

#include <QAbstractTableModel>
#include <QColor>

#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fxs::views {

class KernelsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        SiteColumn,
        TimeColumn,
        ShareColumn,
        GbpsColumn,
        PeakColumn,
        CallsColumn,
        NodesColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1,
        KernelRole, // the row's index into Attribution::kernels (qulonglong)
    };

    explicit KernelsModel(QObject* parent = nullptr);

    // Shows every kernel row of a (null: none); clears any filter.
    void setAttribution(std::shared_ptr<const runtime::Attribution> a);
    const runtime::Attribution* attribution() const { return m_attribution.get(); }
    // Only these kernel rows (indices into Attribution::kernels, in the given order), or all
    // of them (nullopt). Indices past the attribution are ignored.
    void setFilter(std::optional<std::vector<std::size_t>> kernels);
    bool isFiltered() const { return m_filtered; }
    // The kernel index of a row; the row of a kernel index (-1 when not shown).
    std::size_t kernelAt(int row) const { return m_rows[static_cast<std::size_t>(row)]; }
    int rowOf(std::size_t kernel) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // "123.4": µs as the tables show them; "12.3 %" shares.
    static QString usText(double us);
    static QString shareText(double share);

    // The heat scale: 0 µs → pale yellow, maxUs → dark red (ProfileModel's sequential scale, so
    // both heats read alike); lightness falls monotonically with time.
    static QColor heatColor(double us, double maxUs);
    // Colours of the nodes of graph that times names (those with time > 0); other nodes none.
    static std::unordered_map<graph::NodeId, QColor> heatColors(const runtime::GraphTimes& times,
                                                                const graph::Graph& graph);
    // The same nodes' times (µs), for what a collapsed group's nodes add up to.
    static NodeAmounts heatAmounts(const runtime::GraphTimes& times, const graph::Graph& graph);
    // Their colours, from the times already found (heatAmounts) against the largest time.
    static std::unordered_map<graph::NodeId, QColor> heatColors(const NodeAmounts& amounts,
                                                                double maxUs);
    // Legend stops (µs, colour) at 0, 25, 50, 75 and 100 % of maxUs.
    static std::vector<std::pair<double, QColor>> heatLegend(double maxUs);

private:
    QVariant display(const runtime::KernelRow& r, int column) const;
    QVariant sortValue(const runtime::KernelRow& r, int column) const;
    QString toolTip(const runtime::KernelRow& r) const;

    std::shared_ptr<const runtime::Attribution> m_attribution;
    std::vector<std::size_t> m_rows; // kernel index per row
    bool m_filtered = false;
};

class KernelModulesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { PathColumn, TimeColumn, ShareColumn, KernelsColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit KernelModulesModel(QObject* parent = nullptr);
    void setAttribution(std::shared_ptr<const runtime::Attribution> a);
    QString pathAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const runtime::Attribution> m_attribution;
};

} // namespace fxs::views
