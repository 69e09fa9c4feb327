// The Profile panel's table over a run-time profile: one row per node, then one per region
// (name, kind, eager, compiled, speedup, share, bound), numeric sort values under SortRole, and
// the graph overlay: a sequential colour scale by time share with its legend stops.
// Read-only; the panel owns running and loading profiles.
#pragma once

#include "core/graph/graph.h"
#include "core/profile/runtime_profile.h"
#include "views/models/graph_decorations.h"

#include <QAbstractTableModel>
#include <QColor>

#include <optional>

#include <unordered_map>
#include <utility>
#include <vector>

namespace fxs::views {

class ProfileModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        KindColumn,
        EagerColumn,
        CompiledColumn,
        SpeedupColumn,
        ShareColumn,
        BoundColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, IsRegionRole, ShareRole };

    explicit ProfileModel(QObject* parent = nullptr);

    void setProfile(profile::RuntimeProfile profile);
    const profile::RuntimeProfile& profile() const { return m_profile; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Row of a node or region name; -1 when absent.
    int rowOf(const QString& name) const;

    // The sequential scale: share 0 → pale yellow, the largest share → dark red (lightness
    // falls monotonically with share). maxShare <= 0 gives the scale's start.
    static QColor shareColor(double share, double maxShare);
    // "0.1234": milliseconds as the table shows them.
    // Three significant digits, at most four decimals: "74.1", "2.00", "0.250", "0.0123".
    static QString msText(double ms);
    // "0.1234 (0.1200–0.1301)": the median and, when the runs differ, their range.
    static QString timeText(const profile::TimeStat& t);
    // "1.17× (0.76–1.49)": the speedup at the compiled median and across the compiled range.
    static QString speedupText(const profile::RegionProfile& r);
    // The share the table shows for a row: its Eager median over the sum of the Eager medians
    // shown (nodes outside regions and regions, a region timed as a whole), so shares are
    // proportional to the Eager column and add up to 100 %; a node inside a region shows none
    // (its region counts it).
    std::optional<double> shownShare(int row) const;
    // Colours for every profiled node found in the graph, by its share of the largest share.
    static std::unordered_map<graph::NodeId, QColor> overlayColors(
        const profile::RuntimeProfile& profile, const graph::Graph& graph);
    // The same nodes' eager medians (ms), for what a collapsed group's nodes add up to.
    static NodeAmounts overlayAmounts(const profile::RuntimeProfile& profile,
                                      const graph::Graph& graph);
    // Legend stops: (share, colour) at 0, 25, 50, 75, 100 % of the largest share.
    static std::vector<std::pair<double, QColor>> legend(const profile::RuntimeProfile& profile);

private:
    QVariant display(int row, int column) const;
    QVariant sortValue(int row, int column) const;

    profile::RuntimeProfile m_profile;
};

} // namespace fxs::views
