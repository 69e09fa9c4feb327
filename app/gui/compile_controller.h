// The app's region compiler: Build › Compile Regions (Ctrl+B) compiles the current graph's
// regions (the AppContext's region document) in the background with progress and Cancel in the
// status bar, tints the regions by cache state (hit green, miss amber, fallback grey: its
// CompileState decoration layer, over the regions' own tints) and fills
// the Compile results dock (row → generated C++ and the region's nodes selected). Compiles into
// the context's cache database and says when it wrote to it. Editing the regions afterwards
// drops the tints and marks the results stale. Not the compiling itself (core/compile).
#pragma once

#include "core/compile/graph_compile.h"
#include "core/partition/region.h"
#include "views/jobs/job_tracker.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

class QAction;
class QDockWidget;
class QLabel;
class QProgressBar;
class QToolButton;

namespace fxs::views {
class CompileResultsPanel;
class RegionDocument;
} // namespace fxs::views

namespace fxs::app {

class AppContext;

class CompileController : public QObject {
    Q_OBJECT
public:
    explicit CompileController(AppContext* context);
    ~CompileController() override;

    // Starts compiling the current document's regions; false (with a status message) when no
    // graph is shown, it has no regions, or a compile is already running.
    bool compileRegions();
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }
    // The running compile's token (a fresh one when idle); cancelling it from any thread stops
    // the run before its next region, as cancel() does.
    CancelToken cancelToken() const;

    // The context's cache database, used by compiles ("" = the default path).
    QString cachePath() const;
    void setCachePath(const QString& path);
    int timingRepeats() const { return m_repeats; }
    void setTimingRepeats(int repeats) { m_repeats = repeats; }

    const compile::GraphCompileReport& lastReport() const { return m_report; }
    views::CompileResultsPanel* resultsPanel() const { return m_results; }
    // Build › Compile Regions (objectName "compileRegionsAction", Ctrl+B).
    QAction* compileAction() const { return m_compileAction; }

Q_SIGNALS:
    void started(int regions);
    // Emitted on the worker thread before the eager run and before each region ("r0 (1/2)").
    void progress(double fraction, const QString& phase);
    // The run ended: cancelled (partial results shown) or not. Errors emit failed instead.
    void finished(bool cancelled);
    void failed(const QString& message);

private:
    struct Job;
    void createActions();
    void createStatusWidgets();
    void onFinished(const std::shared_ptr<Job>& job);
    void applyTints();
    void onRegionSelected(const QString& id);
    void onNodeSelected(graph::NodeId id);
    void showRunning(bool running); // action, progress bar and Cancel follow isRunning()
    void watchDocument(views::RegionDocument* doc);
    void onRegionsEdited();

    AppContext* m_context;
    views::CompileResultsPanel* m_results;
    QDockWidget* m_resultsDock = nullptr;
    QAction* m_compileAction = nullptr;
    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolButton* m_cancel = nullptr;
    jobs::JobTracker m_jobs; // one compile at a time (compileRegions refuses while running)
    bool m_stale = false; // the regions were edited after the results were made
    QMetaObject::Connection m_documentConnection;
    int m_repeats = 3;
    int m_starting = 0; // regions of the compile being started (for started())
    // What the results refer to: the compiled graph and its regions at the time.
    graph::GraphPtr m_graph;
    std::vector<partition::Region> m_regions;
    compile::GraphCompileReport m_report;
};

} // namespace fxs::app
