// The fxscope main window: the graph area in the middle, docks for navigator, inspector, cache,
// code and problems; background loading with progress and Cancel; drag and drop; recent files;
// window/dock state in QSettings. The one place that wires: it builds the AppContext, the
// controllers on it, and every menu from their actions (menus and actions carry object names,
// "fileMenu", "buildMenu", "quitAction", ...; nothing is looked up by its translated text).
#pragma once

#include "app/gui/shown_graph.h"
#include "core/model/run.h"
#include "views/graph/graph_view.h"
#include "views/models/workspace.h"

#include <QMainWindow>

#include <memory>
#include <string>
#include <vector>

class QAction;
class QDockWidget;
class QLabel;
class QProgressBar;
class QToolButton;

namespace fxs::views {
class CachePanel;
class CodePanel;
class GraphView;
class InspectorPanel;
class NavigatorPanel;
class ProblemsPanel;
struct GraphComparison;
} // namespace fxs::views

namespace fxs::io {
struct LoadResult;
}

namespace fxs::app {

class AppContext;
class CacheBrowserController;
class CacheController;
class CompileController;
class DiagnosisController;
class GraphArea;
class ProfileController;
class RecentFiles;
class RegionController;
class RuntimeController;
class ShownGraphPresenter;
class StructureController;
class WorkspaceLoader;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override; // the controllers go first (they use the context and the views)

    // Loads the paths in the background (files, TORCH_TRACE directories); the newest request
    // wins. Results are added to the workspace; problems go to the Problems dock.
    void openPaths(const QStringList& paths);
    // Shows a graph of the workspace: asks the ShownGraph for it and draws what its states
    // ask for. Graphs of logs are read when first shown: one of at most kInlineParseLines
    // lines at once (a couple of milliseconds), a larger one in the background, with "Reading
    // N lines of graph code…" in the view until it is there.
    void showGraph(views::GraphRef ref);
    static constexpr int kInlineParseLines = ShownGraph::kInlineParseLines;
    // Shows the higher-order body `name` of the graph on screen (its calls counted in the
    // title); View › Back to Calling Graph returns. False when the graph has no such body.
    bool showBody(const QString& name);
    // Double-click on a node: a higher-order call enters the (first) body it runs, as
    // showBody; false for other nodes.
    bool enterBodyOf(graph::NodeId id);
    void selectNode(graph::NodeId id);
    views::GraphRef currentGraph() const;

    views::Workspace* workspace() const { return m_workspace; }
    views::NavigatorPanel* navigator() const { return m_navigator; }
    views::InspectorPanel* inspector() const { return m_inspector; }
    views::CachePanel* cachePanel() const { return m_cache; }
    views::CodePanel* codePanel() const { return m_code; }
    views::ProblemsPanel* problemsPanel() const { return m_problems; }
    views::GraphView* graphView() const;
    GraphArea* graphArea() const { return m_area; }
    WorkspaceLoader* jobs() const { return m_jobs; }
    AppContext* context() const { return m_context; }
    RegionController* regions() const { return m_regions; }
    CompileController* compile() const { return m_compile; }
    CacheBrowserController* cacheBrowser() const { return m_cacheBrowser; }
    CacheController* cacheExplainer() const { return m_cacheExplainer; }
    ProfileController* profile() const { return m_profile; }
    DiagnosisController* diagnosis() const { return m_diagnosis; }
    StructureController* structure() const { return m_structure; }
    RuntimeController* runtime() const { return m_runtime; }

    // "Qt 6.4.2 · LibTorch 1.13.0 · Graphviz 2.43.0 · SQLite 3.40.1 [· CUDA driver 12.4 · NVRTC
    // 12.4]", as the About box shows it (core/about's list with Qt in front).
    static QString versionsText();
    // The run a load opens on: the newest with misses an earlier run explains, else the newest
    // that holds anything ("" when none). earlierRunsLoaded: the workspace already had runs.
    static std::string runToOpen(const std::vector<model::Run>& runs, bool earlierRunsLoaded);

Q_SIGNALS:
    // A load finished and its result is in the workspace (or it was cancelled).
    void loadFinished(bool cancelled);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    QDockWidget* addPanel(QWidget* panel, const QString& title, const QString& objectName,
                          Qt::DockWidgetArea area);
    void createDocks();
    void createControllers();
    void createMenus();
    void createFileMenu();
    void createEditMenu();
    void createViewMenu();
    void createBuildMenu();
    void createHelpMenu();
    void createToolBar();
    void showGettingStarted();
    void createStatusBar();
    void connectPanels();
    void restoreSettings();
    // The docks where a first run puts them (View › Reset Layout): the canvas keeps ≥ 60 % of
    // the window's height.
    void resetLayout();
    void onLoadFinished(std::shared_ptr<io::LoadResult> result, const QStringList& paths);
    void onLoadCancelled(const QStringList& paths);
    void onNodeSelected(views::GraphView* view, graph::NodeId id);
    void onLookupSelected(views::LookupRef ref);
    void revealGraph(views::GraphRef ref); // shows it and selects it in the navigator
    void onProblemsChanged(int count);
    void openDialog();
    void openDirectoryDialog();
    void exportReport(bool redact);
    void exportView(bool svg);
    void closeAll();
    void updateTitle();
    bool confirmDiscardRegions(); // false: the user cancelled
    void about();

    views::Workspace* m_workspace;
    GraphArea* m_area;
    views::NavigatorPanel* m_navigator;
    views::InspectorPanel* m_inspector;
    views::CachePanel* m_cache;
    views::CodePanel* m_code;
    views::ProblemsPanel* m_problems;
    QDockWidget* m_problemsDock = nullptr;
    WorkspaceLoader* m_jobs = nullptr; // the context's
    RecentFiles* m_recent = nullptr;
    AppContext* m_context = nullptr;
    RegionController* m_regions = nullptr;
    CompileController* m_compile = nullptr;
    CacheBrowserController* m_cacheBrowser = nullptr;
    CacheController* m_cacheExplainer = nullptr;
    ProfileController* m_profile = nullptr;
    DiagnosisController* m_diagnosis = nullptr;
    StructureController* m_structure = nullptr;
    RuntimeController* m_runtime = nullptr;
    QProgressBar* m_progress;
    QToolButton* m_cancel;
    QLabel* m_statusLabel;
    ShownGraphPresenter* m_presenter = nullptr;
    std::vector<QDockWidget*> m_defaultDocks; // navigator, inspector, cache
    QByteArray m_defaultState;                // saveState() once every dock was made
    // While a body is shown: the graph that calls it (to go back to) and its first call site.
    views::GraphRef m_bodyCaller;
    graph::NodeId m_bodyCallSite = graph::kNoNode;
    QAction* m_backAction = nullptr;
};

} // namespace fxs::app
