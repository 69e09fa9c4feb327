// The app's profiler: docks the Profile panel, runs Build › Profile Graph (eager runs plus the
// compiled regions, core/profile) in the background with progress per module and Cancel,
// reusing the timings of modules that did not change since an earlier profile (its
// ProfileMemo, for the app's lifetime), colours the graph
// by time share with the panel's own scale (its ProfileHeat decoration layer), keeps panel and
// graph selection in sync both ways,
// shows the compile-phase timeline of the current TORCH_TRACE run, and exports (Chrome trace,
// CSV, saved profile) and opens saved profiles. Not the profiling itself (core/profile).
#pragma once

#include "core/graph/graph.h"
#include "core/partition/region.h"
#include "core/profile/profile_reuse.h"
#include "core/profile/runtime_profile.h"
#include "views/jobs/job_tracker.h"
#include "views/models/workspace.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

class QAction;
class QDockWidget;

namespace fxs::views {
class ProfilePanel;
}

namespace fxs::app {

class AppContext;

class ProfileController : public QObject {
    Q_OBJECT
public:
    enum class ExportFormat { ChromeTrace, Csv, Saved };

    explicit ProfileController(AppContext* context);
    ~ProfileController() override;

    // Starts profiling the current graph with its regions; false when no graph is shown or a
    // profile is already running.
    bool profileGraph();
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }
    // Timed runs after the warm-up (default 5) and whether regions are compiled (default on).
    void setRepeat(int repeat) { m_repeat = repeat; }
    void setCompileRegions(bool on) { m_compileRegions = on; }

    // Writes the shown profile; false (status message) when none is shown or writing fails.
    bool exportProfile(const QString& path, ExportFormat format);
    // Shows a saved profile (its overlay applies when the current graph has its node names);
    // the status bar compares its total with the profile shown before.
    bool openProfile(const QString& path);

    // Build › Profile Graph ("profileGraphAction", Ctrl+Shift+B); File › Export Profile…
    // ("exportProfileAction") and Open Profile… ("openProfileAction").
    QAction* profileAction() const { return m_profileAction; }
    QAction* exportAction() const { return m_exportAction; }
    QAction* openAction() const { return m_openAction; }

    views::ProfilePanel* panel() const { return m_panel; }
    QDockWidget* dock() const { return m_dock; }
    bool hasProfile() const { return m_hasProfile; }
    // Per-module timings kept for re-profiles; lastStats() tells what the last profile ran.
    const profile::ProfileMemo& memo() const { return *m_memo; }

Q_SIGNALS:
    void finished(bool cancelled);
    void failed(const QString& message);
    // A module was picked in the Modules tab (the window selects it in the graph).
    void moduleSelected(const QString& path);

private:
    struct Job;
    void createActions();
    void onFinished(const std::shared_ptr<Job>& job);
    void showProfile(profile::RuntimeProfile p);
    void applyOverlay();
    void updateCompileProfile();
    void onPanelNodeSelected(const QString& name);
    void onPanelRegionSelected(const QString& id);
    void onViewNodeSelected(graph::NodeId id);
    void exportDialog();
    void openDialog();
    // For a graph the engine cannot run (Dynamo-level: torch.nn.functional calls), the AOT
    // graph of the same compile and rank that it can (forward, else inference); invalid
    // when there is none.
    views::GraphRef runnableCounterpart(views::GraphRef ref) const;

    AppContext* m_context;
    views::ProfilePanel* m_panel;
    QDockWidget* m_dock = nullptr;
    QAction* m_profileAction = nullptr;
    QAction* m_exportAction = nullptr;
    QAction* m_openAction = nullptr;
    jobs::JobTracker m_jobs; // one profile at a time
    std::shared_ptr<profile::ProfileMemo> m_memo; // shared with the running job
    int m_repeat = 5;
    bool m_compileRegions = true;
    bool m_hasProfile = false;
    bool m_syncing = false;
    graph::GraphPtr m_graph; // the graph the shown profile was taken on (null: loaded file)
    std::vector<partition::Region> m_regions;
    int m_compileRun = -2; // run whose compile profile the timeline shows
    views::GraphRef m_alternative;   // offered after a failure (showFailure's link)
    views::GraphRef m_profileWhenShown; // requested through that link: profiled once shown
};

} // namespace fxs::app
