// The Profile dock: a sortable table of a run-time profile (node/region, eager, compiled,
// speedup, share, bound; times as median and spread), a top-N bar list of node times (labels
// that fit, tooltips with the spread), the compile-phase timeline (from a TORCH_TRACE run),
// the overlay legend and progress/cancel for a running profile, and a Modules tab (the eager
// time summed by module, nested, with the compiled regions' time and speed-up and the median and
// range of identical modules), and above them a whole-graph line: eager against the graph with its
// compiled regions in place, when the profile has it. Selecting a row or bar emits nodeSelected, a module
// moduleSelected;
// selectName selects from outside (the graph view). Does not run profiles itself: the app does,
// in the background, and feeds progress and the result in.
#pragma once

#include "core/trace_profile/compile_profile.h"
#include "core/profile/module_profile.h"
#include "views/models/profile_model.h"

#include <QHash>
#include <QWidget>

class QLabel;
class QStandardItem;
class QStandardItemModel;
class QTabWidget;
class QTreeView;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QHBoxLayout;
class QScrollArea;

namespace fxs::views {

class BarList;
class PhaseTimeline;

class ProfilePanel : public QWidget {
    Q_OBJECT
public:
    explicit ProfilePanel(QWidget* parent = nullptr);

    void setProfile(profile::RuntimeProfile profile);
    void setCompileProfile(const profile::CompileProfileResult& compile);
    // The profile by module (empty: the graph's modules are not known; the tab says so). Give it
    // after setProfile (which forgets the last one): the chart's labels take the nodes' modules
    // ("model.layers.3.mlp.down_proj · mm_103").
    void setModuleBreakdown(const profile::ModuleBreakdown& modules);
    enum ModuleColumn {
        ModuleNameColumn,
        ModuleEagerColumn,
        ModuleShareColumn,
        ModuleCompiledColumn,
        ModuleSpeedupColumn,
        ModuleIdenticalColumn,
        ModuleNodesColumn,
        ModuleColumnCount
    };
    QTreeView* moduleView() const { return m_modules; }
    QTabWidget* tabs() const { return m_tabs; }
    ProfileModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    BarList* topChart() const { return m_topChart; }
    PhaseTimeline* phaseTimeline() const { return m_timeline; }
    int legendStops() const;
    // The whole-graph line above the table: "Whole graph — eager 12.3 ms (±0.4) · compiled
    // 9.8 ms (±0.3) · 1.26× faster · 61 of 61 regions used" (± half the range of the timed runs),
    // or the eager total and how to get the comparison when regions were not compiled.
    QLabel* wholeGraphLabel() const { return m_summary; }
    static QString wholeGraphText(const profile::RuntimeProfile& profile);
    // The line beside the Profile button: the last profile's runs and median, or why the last
    // attempt failed (showFailure), which stays until the next profile starts or is shown.
    QLabel* statusLabel() const { return m_status; }
    bool failureShown() const { return m_failed; }
    // Node names behind the bars of the top-N chart, largest first.
    const QStringList& topNames() const { return m_topNames; }

    static constexpr int kTopN = 10;

public Q_SLOTS:
    // Selects the row of a node or region name (no signal back). Unknown names clear it.
    void selectName(const QString& name);
    // Running: shows the progress bar and Cancel; fraction in [0, 1].
    void setBusy(bool busy);
    void setProgress(double fraction, const QString& phase);
    // Why profiling failed, in the panel (not only the status bar, whose message goes away):
    // an earlier profile stays shown under it. With `alternative`, a link after the text
    // ("Profile 0/0 · AOT forward instead") that emits alternativeRequested.
    void showFailure(const QString& text, const QString& alternative = {});

Q_SIGNALS:
    void nodeSelected(const QString& name);
    void regionSelected(const QString& id);
    void moduleSelected(const QString& path); // "model.layers.3.mlp"
    void profileRequested();
    void cancelRequested();
    void alternativeRequested();

private:
    void rebuildTopChart();
    void rebuildLegend();
    void updateWholeGraph();
    void emitForSourceRow(int row);
    QList<QStandardItem*> moduleRow(const profile::ModuleBreakdown& modules, std::size_t index);

    ProfileModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    BarList* m_topChart;
    QTabWidget* m_tabs;
    QTreeView* m_modules;
    QStandardItemModel* m_moduleModel;
    PhaseTimeline* m_timeline;
    QScrollArea* m_timelineScroll;
    QHBoxLayout* m_legend;
    QProgressBar* m_progress;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QLabel* m_status;
    QLabel* m_summary;
    QStringList m_topNames;
    QHash<QString, QString> m_nodeModules; // node name -> its module's path
    bool m_selecting = false;
    bool m_failed = false;
};

} // namespace fxs::views
