// Where the user's compiled model spends its GPU time, in the app: reads a torch.profiler trace
// (opened or dropped, or found in a TORCH_TRACE directory being opened) and joins it with the
// loaded TORCH_TRACE run it was recorded with (core/runtime) in the background, with progress
// and Cancel; paints the shown graph — the Dynamo, AOT or post-grad graph of a compile whose
// kernels ran — with the measured time of its nodes (its RuntimeTrace decoration layer: the
// runtime heat, and a banner line with the totals); docks the Kernels panel: selecting a kernel
// selects its nodes (NodeSelectionModel; the kernel's graph is shown first when the graph on
// screen has none of them), selecting a node lists its kernels, a kernel shows its source stack.
// Not the join itself (core/runtime) and not the eager profile (ProfileController).
#pragma once

#include "core/graph/graph.h"
#include "core/runtime/attribution.h"
#include "core/runtime/graph_times.h"
#include "views/jobs/job_tracker.h"
#include "views/models/workspace.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QDockWidget;

namespace fxs::views {
class KernelsPanel;
}

namespace fxs::app {

class AppContext;

class RuntimeController : public QObject {
    Q_OBJECT
public:
    // What one read-and-join produced (immutable once delivered).
    struct Result {
        QString path;             // the profiler trace
        QString readError;        // a cut or corrupt trace: what was read is kept
        views::RunPtr run;        // the TORCH_TRACE run joined with (null: none loaded)
        std::size_t knownGraphs = 0; // compiled graphs of the trace that the run logged
        runtime::RunProvenance provenance;
        std::shared_ptr<const runtime::Attribution> attribution;
        std::vector<runtime::GraphTimes> times; // by artifact index of run
        std::vector<views::GraphRef> parsed;    // graphs the join parsed (reported on delivery)
        bool cancelled = false;
    };

    explicit RuntimeController(AppContext* context);
    ~RuntimeController() override;

    // True when path is a file that sniffs as a torch.profiler Chrome trace (.json, .json.gz).
    static bool isProfileTrace(const QString& path);
    // Reads the trace and joins it with the loaded runs in the background (once a load that is
    // running has finished); a newer request cancels an older one.
    void openProfile(const QString& path);
    void cancel();
    bool isRunning() const { return m_jobs.isRunning() || !m_waiting.isEmpty(); }
    std::shared_ptr<const Result> result() const { return m_result; }

    // File › Open Profiler Trace… ("openProfilerTraceAction").
    QAction* openAction() const { return m_openAction; }
    views::KernelsPanel* panel() const { return m_panel; }
    QDockWidget* dock() const { return m_dock; }

    // The measured times of graph when it is a graph of the joined run (null: none).
    const runtime::GraphTimes* timesOf(const graph::GraphPtr& graph) const;

Q_SIGNALS:
    void finished(bool cancelled);
    // A module was picked in the Modules tab (the window selects it in the graph).
    void moduleSelected(const QString& path);

private:
    void start(const QString& path);
    void onLoadFinished(bool cancelled);
    void onFinished(std::shared_ptr<Result> result);
    void applyHeat();
    QString heatText(const runtime::GraphTimes* times) const;
    QString summaryText() const;
    void onKernelSelected(std::size_t kernel);
    void selectKernelNodes(std::size_t kernel);
    // The nodes of the shown graph whose source is file:line (a frame of a kernel's stack):
    // selected, the first revealed; same file by path, else by file name.
    void selectSourceNodes(const QString& file, int line);
    bool showKernelGraph(std::size_t kernel);
    QString stackText(std::size_t kernel) const;
    void onCurrentNodeChanged();
    void openDialog();

    AppContext* m_context;
    views::KernelsPanel* m_panel;
    QDockWidget* m_dock = nullptr;
    QAction* m_openAction = nullptr;
    jobs::JobTracker m_jobs;
    std::shared_ptr<const Result> m_result;
    QStringList m_loadPaths;   // of the load running (or last finished)
    QString m_waiting;         // a trace to read once the running load has finished
    std::optional<std::size_t> m_pendingKernel; // select its nodes once its graph is shown
    bool m_syncing = false;
};

} // namespace fxs::app
