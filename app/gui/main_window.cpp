#include "app/gui/main_window.h"

#include "app/gui/app_context.h"
#include "app/gui/cache_browser_controller.h"
#include "app/gui/cache_controller.h"
#include "app/gui/compile_controller.h"
#include "app/gui/diagnosis_controller.h"
#include "app/gui/structure_controller.h"
#include "app/gui/graph_area.h"
#include "app/gui/profile_controller.h"
#include "app/gui/recent_files.h"
#include "app/gui/shown_graph_presenter.h"
#include "app/gui/region_controller.h"
#include "app/gui/runtime_controller.h"
#include "app/gui/workspace_loader.h"
#include "core/graph/subgraphs.h"
#include "views/graph/graph_view.h"
#include "views/models/body_inputs.h"
#include "views/panels/cache_panel.h"
#include "views/panels/code_panel.h"
#include "views/panels/inspector_panel.h"
#include "views/panels/navigator_panel.h"
#include "views/panels/problems_panel.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolButton>

#include <algorithm>

namespace fxs::app {

namespace {

bool hasMiss(const model::Run& run)
{
    return std::any_of(run.lookups.begin(), run.lookups.end(), [](const auto& lookup) {
        return lookup.state == model::CacheState::Miss;
    });
}

} // namespace

std::string MainWindow::runToOpen(const std::vector<model::Run>& runs, bool earlierRunsLoaded)
{
    // The newest run with misses that an earlier run can explain (a changed config, a changed
    // graph: what a user opens a trace for); else the newest run that holds anything.
    std::string explained;
    std::string newest;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const model::Run& run = runs[i];
        if (run.graphs.empty() && run.lookups.empty()) {
            continue;
        }
        newest = run.path;
        if ((i > 0 || earlierRunsLoaded) && hasMiss(run)) {
            explained = run.path;
        }
    }
    return explained.empty() ? newest : explained;
}

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_workspace(new views::Workspace(this)),
      m_area(new GraphArea(this)),
      m_navigator(new views::NavigatorPanel(m_workspace, this)),
      m_inspector(new views::InspectorPanel(this)),
      m_cache(new views::CachePanel(m_workspace, this)),
      m_code(new views::CodePanel(this)),
      m_problems(new views::ProblemsPanel(m_workspace, this)),
      m_progress(new QProgressBar(this)),
      m_cancel(new QToolButton(this)),
      m_statusLabel(new QLabel(this))
{
    setWindowTitle(QStringLiteral("fxscope"));
    setAcceptDrops(true);
    setCentralWidget(m_area);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    // The primary view renders the context's decorations and selection; the context's loader
    // loads and parses, its ShownGraph runs the shown graph's life.
    m_context = new AppContext(this, m_workspace, m_area->primary(), this);
    m_jobs = m_context->loader();
    createDocks();
    createStatusBar();
    createControllers();
    createMenus();
    connectPanels();
    m_defaultState = saveState(); // every dock made: what View › Reset Layout goes back to
    restoreSettings();
}

MainWindow::~MainWindow()
{
    delete m_runtime;
    delete m_diagnosis;
    delete m_profile;
    delete m_cacheExplainer;
    delete m_cacheBrowser;
    delete m_compile;
    delete m_regions;
}

// The controllers see the app only through the context; what they ask of the window comes
// back here as signals. Their docks come after the window's own (same tab order as always).
void MainWindow::createControllers()
{
    m_regions = new RegionController(m_context);
    m_compile = new CompileController(m_context);
    m_cacheBrowser = new CacheBrowserController(m_context);
    m_profile = new ProfileController(m_context);
    m_diagnosis = new DiagnosisController(m_context);
    m_structure = new StructureController(m_context);
    m_runtime = new RuntimeController(m_context);
    // The shown graph's states drawn in the view and panels; the window title follows.
    m_presenter = new ShownGraphPresenter(m_context->shownGraph(), m_workspace,
                                          {m_area, m_inspector, m_code, m_cache}, this);
    connect(m_presenter, &ShownGraphPresenter::titleChanged, this, &MainWindow::updateTitle);
    connect(m_area->primary(), &views::GraphView::escapePressed, m_regions,
            &RegionController::clearRefusal);
    connect(m_inspector, &views::InspectorPanel::moduleLinkActivated, m_structure,
            &StructureController::selectModule);
    connect(m_profile, &ProfileController::moduleSelected, m_structure,
            &StructureController::selectModule);
    connect(m_runtime, &RuntimeController::moduleSelected, m_structure,
            &StructureController::selectModule);
    m_cacheExplainer = new CacheController(m_cache, this);
    connect(m_regions, &RegionController::documentStateChanged, this, &MainWindow::updateTitle);
    connect(m_context, &AppContext::graphRequested, this, &MainWindow::revealGraph);
    connect(m_context, &AppContext::lookupRequested, this, [this](views::LookupRef ref) {
        m_cache->setRun(ref.run);
        m_cache->selectLookup(ref);
        if (QDockWidget* dock = m_context->dock(QStringLiteral("cacheDock"))) {
            dock->show();
            dock->raise();
        }
    });
    connect(m_context, &AppContext::nodeRequested, this, &MainWindow::selectNode);
    connect(m_context, &AppContext::openRequested, this, &MainWindow::openPaths);
    connect(this, &MainWindow::loadFinished, m_context, &AppContext::loadFinished);
}

views::GraphRef MainWindow::currentGraph() const
{
    return m_context->currentGraph();
}

views::GraphView* MainWindow::graphView() const
{
    return m_area->primary();
}

QDockWidget* MainWindow::addPanel(QWidget* panel, const QString& title, const QString& objectName,
                                  Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setWidget(panel);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::createDocks()
{
    auto* navigator = addPanel(m_navigator, tr("Navigator"), QStringLiteral("navigatorDock"),
                               Qt::LeftDockWidgetArea);
    auto* inspector = addPanel(m_inspector, tr("Inspector"), QStringLiteral("inspectorDock"),
                               Qt::RightDockWidgetArea);
    auto* code = addPanel(m_code, tr("Code"), QStringLiteral("codeDock"), Qt::RightDockWidgetArea);
    // Inspector above Code: both follow the selected node, so both stay visible.
    splitDockWidget(inspector, code, Qt::Vertical);
    auto* cache = addPanel(m_cache, tr("Cache"), QStringLiteral("cacheDock"),
                           Qt::BottomDockWidgetArea);
    m_problemsDock = addPanel(m_problems, tr("Problems"), QStringLiteral("problemsDock"),
                              Qt::BottomDockWidgetArea);
    tabifyDockWidget(cache, m_problemsDock);
    cache->raise();
    m_defaultDocks = {navigator, inspector, cache};
}

void MainWindow::createStatusBar()
{
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(true);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop loading"));
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_progress->hide();
    m_cancel->hide();
    connect(m_cancel, &QToolButton::clicked, m_jobs, &WorkspaceLoader::cancel);
    connect(m_jobs, &WorkspaceLoader::started, this, [this](int, const QStringList& paths) {
        m_statusLabel->setText(tr("Loading %1…").arg(paths.join(QStringLiteral(", "))));
        m_progress->setValue(0);
        m_progress->show();
        m_cancel->show();
    });
    connect(m_jobs, &WorkspaceLoader::progress, this,
            [this](int, double fraction, const QString&) {
                m_progress->setValue(static_cast<int>(fraction * 100.0));
            });
    connect(m_jobs, &WorkspaceLoader::finished, this,
            [this](int, std::shared_ptr<io::LoadResult> result, const QStringList& paths) {
                onLoadFinished(std::move(result), paths);
            });
    connect(m_jobs, &WorkspaceLoader::cancelled, this,
            [this](int, const QStringList& paths) { onLoadCancelled(paths); });
}

void MainWindow::connectPanels()
{
    connect(m_diagnosis, &DiagnosisController::reportWritten, this,
            [this](const QString& path, const QString& error) {
                statusBar()->showMessage(error.isEmpty()
                                             ? tr("Wrote %1").arg(path)
                                             : tr("Could not write the report: %1").arg(error),
                                         8000);
            });
    connect(m_area, &GraphArea::openRequested, this, &MainWindow::openDialog);
    connect(m_area, &GraphArea::gettingStartedRequested, this, &MainWindow::showGettingStarted);
    connect(m_navigator, &views::NavigatorPanel::graphActivated, this, &MainWindow::showGraph);
    connect(m_navigator, &views::NavigatorPanel::bodyActivated, this,
            [this](views::GraphRef caller, const QStringList& path) {
                showGraph(caller);
                for (const QString& body : path) { // a nested body: through its parents
                    if (!showBody(body)) {
                        break;
                    }
                }
            });
    connect(m_area->primary(), &views::GraphView::nodeActivated, this, &MainWindow::enterBodyOf);
    for (views::GraphView* view : {m_area->primary(), m_area->secondary()}) {
        connect(view, &views::GraphView::nodeSelected, this,
                [this, view](graph::NodeId id) { onNodeSelected(view, id); });
        connect(view, &views::GraphView::selectionCleared, m_inspector,
                &views::InspectorPanel::clear);
        // A selection grown or shrunk without a new current node: the count follows.
        connect(view, &views::GraphView::selectionChanged, this,
                [this, view](const std::vector<graph::NodeId>& nodes) {
                    if (nodes.size() > 1) {
                        m_inspector->setSelection(view->graph(), nodes, m_inspector->node());
                    }
                });
    }
    connect(m_inspector, &views::InspectorPanel::nodeLinkActivated, this, &MainWindow::selectNode);
    connect(m_inspector, &views::InspectorPanel::bodyLinkActivated, this, &MainWindow::showBody);
    connect(m_cache, &views::CachePanel::lookupSelected, this, &MainWindow::onLookupSelected);
    connect(m_cache, &views::CachePanel::graphComparisonRequested, this,
            [this](const views::GraphComparison& c) {
                m_area->showComparison(c);
                m_inspector->clear();
                m_code->setGraph(c.b);
            });
    connect(m_problems, &views::ProblemsPanel::countChanged, this, &MainWindow::onProblemsChanged);
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty()) {
        return;
    }
    m_recent->add(paths);
    // Projects (.fxscope) open through the region controller, which loads their source.
    // One load request for everything (a second request would cancel the first): a project's
    // source goes into the same request as the files given beside it.
    // Profiler traces (sniffed) go to the runtime controller, which joins them with the logs
    // loaded (after this load, when one starts below).
    QStringList sources, traces;
    for (const QString& path : paths) {
        if (RuntimeController::isProfileTrace(path)) {
            traces << path;
        } else if (!path.endsWith(QStringLiteral(".fxscope"), Qt::CaseInsensitive)) {
            sources << path;
        }
    }
    for (const QString& path : paths) {
        if (path.endsWith(QStringLiteral(".fxscope"), Qt::CaseInsensitive)) {
            QStringList projectSources;
            m_regions->openProject(path, &projectSources);
            for (const QString& source : projectSources) {
                if (!sources.contains(source)) {
                    sources << source;
                }
            }
        }
    }
    if (!sources.isEmpty()) {
        m_jobs->load(sources);
    }
    for (const QString& trace : traces) {
        m_runtime->openProfile(trace);
    }
}

void MainWindow::onLoadFinished(std::shared_ptr<io::LoadResult> result, const QStringList& paths)
{
    m_progress->hide();
    m_cancel->hide();
    const std::string newestPath = runToOpen(result->runs, !m_workspace->runs().empty());
    const bool readSomething = result->readSomething();
    const std::size_t errors = result->diagnostics.errorCount();
    m_workspace->add(std::move(*result));
    // Show the chosen run (its cache panel compares it with the run before and selects the
    // most telling lookup); standalone graph files when no run came in.
    int newest = -1;
    for (int r = 0; !newestPath.empty() && r < static_cast<int>(m_workspace->runs().size()); ++r) {
        newest = m_workspace->runs()[static_cast<std::size_t>(r)]->path == newestPath ? r : newest;
    }
    if (newest >= 0) {
        m_cache->setRun(newest);
    }
    if (!currentGraph().valid() || !m_workspace->artifact(currentGraph())) {
        views::GraphRef first = m_navigator->firstGraph(newest);
        first = first.valid() ? first : m_navigator->firstGraph();
        if (first.valid()) {
            revealGraph(first);
        }
    }
    QString message = readSomething ? tr("Loaded %1").arg(paths.join(QStringLiteral(", ")))
                                    : tr("Nothing readable in %1").arg(paths.join(QStringLiteral(", ")));
    if (errors > 0) {
        message += tr(" — %n problem(s), see the Problems panel", "", int(errors));
        m_problemsDock->show();
        if (!readSomething) {
            m_problemsDock->raise();
        }
    }
    m_statusLabel->setText(message);
    Q_EMIT loadFinished(false);
}

void MainWindow::onLoadCancelled(const QStringList& paths)
{
    m_progress->hide();
    m_cancel->hide();
    m_statusLabel->setText(tr("Loading of %1 cancelled").arg(paths.join(QStringLiteral(", "))));
    Q_EMIT loadFinished(true);
}

void MainWindow::showGraph(views::GraphRef ref)
{
    if (!m_workspace->artifact(ref)) {
        return;
    }
    if (m_backAction != nullptr) {
        m_backAction->setEnabled(false);
    }
    m_presenter->show(ref);
}

bool MainWindow::showBody(const QString& name)
{
    const graph::GraphPtr shown = m_area->primary()->graph();
    const auto subs = shown ? graph::listSubgraphs(*shown) : std::vector<graph::Subgraph>{};
    const auto it = std::find_if(subs.begin(), subs.end(), [&](const graph::Subgraph& s) {
        return s.parent.empty() && s.name == name.toStdString();
    });
    if (it == subs.end()) {
        return false;
    }
    if (currentGraph().valid()) { // from a workspace graph (not from a body inside a body)
        m_bodyCaller = currentGraph();
    }
    m_bodyCallSite = it->callSites.empty() ? graph::kNoNode : it->callSites.front();
    // Not a workspace graph: regions and compiling stay with the calling graph.
    m_context->shownGraph()->cancel();
    m_presenter->forgetDrawn();
    const int calls = static_cast<int>(it->calls());
    const QString title = tr("%1 › %2 · called %3")
                              .arg(m_workspace->graphTitle(m_bodyCaller), name,
                                   calls == 1 ? tr("once") : tr("%1 times").arg(calls));
    m_area->showGraph(it->graph, title);
    const auto modules = m_structure->knownTree(shown); // parameter paths of the caller
    m_area->primary()->setNodeTitles(it->graph,
                                     views::bodyInputNames(*shown, *it, modules.get()));
    m_inspector->clear();
    m_code->setGraph(it->graph, {});
    m_backAction->setEnabled(m_bodyCaller.valid());
    return true;
}

bool MainWindow::enterBodyOf(graph::NodeId id)
{
    const graph::GraphPtr shown = m_area->primary()->graph();
    if (!shown || id >= shown->size() || !graph::isHigherOrderCall(shown->node(id))) {
        return false;
    }
    for (const graph::Subgraph& s : graph::listSubgraphs(*shown)) {
        if (s.parent.empty() &&
            std::find(s.callSites.begin(), s.callSites.end(), id) != s.callSites.end()) {
            // cond: its true branch first; Back returns to the node double-clicked.
            const bool shownBody = showBody(QString::fromStdString(s.name));
            m_bodyCallSite = shownBody ? id : m_bodyCallSite;
            return shownBody;
        }
    }
    return false;
}

void MainWindow::selectNode(graph::NodeId id)
{
    views::GraphView* view = m_area->primary();
    view->selectNode(id);
    onNodeSelected(view, id);
}

void MainWindow::onNodeSelected(views::GraphView* view, graph::NodeId id)
{
    m_inspector->setSelection(view->graph(), view->selectedNodes(), id);
    if (view == m_area->primary()) {
        m_code->showNode(id);
    }
}

void MainWindow::onLookupSelected(views::LookupRef ref)
{
    const views::GraphRef target = m_workspace->graphForLookup(ref);
    if (!target.valid() || target == currentGraph()) {
        return;
    }
    revealGraph(target);
}

void MainWindow::revealGraph(views::GraphRef ref)
{
    showGraph(ref);
    m_navigator->selectGraph(ref);
}

void MainWindow::onProblemsChanged(int count)
{
    m_problemsDock->setWindowTitle(count > 0 ? tr("Problems (%1)").arg(count) : tr("Problems"));
}

void MainWindow::closeAll()
{
    if (!confirmDiscardRegions()) {
        return;
    }
    m_jobs->cancel();
    m_context->setCurrentGraph({});
    m_area->showWelcome();
    m_inspector->clear();
    m_code->clear();
    m_workspace->clear();
    m_presenter->clear();
}

// "proj.fxscope* · 1_cold.log · 0/0 · AOT forward — fxscope": the project, the unsaved marker,
// the graph shown.
void MainWindow::updateTitle()
{
    QStringList parts;
    const QString project = m_regions ? m_regions->projectPath() : QString();
    if (!project.isEmpty()) {
        parts << QFileInfo(project).fileName() + QStringLiteral("[*]");
    }
    if (const QString graph = m_presenter ? m_presenter->title() : QString(); !graph.isEmpty()) {
        parts << (project.isEmpty() ? graph + QStringLiteral("[*]") : graph);
    }
    setWindowTitle(parts.isEmpty() ? QStringLiteral("fxscope")
                                   : tr("%1 — fxscope").arg(parts.join(QStringLiteral(" · "))));
    setWindowModified(m_regions && m_regions->hasUnsavedRegions());
}

// Unsaved regions: Save (to the project, else asking where), Discard or Cancel.
bool MainWindow::confirmDiscardRegions()
{
    if (!m_regions || !m_regions->hasUnsavedRegions()) {
        return true;
    }
    QMessageBox box(QMessageBox::Warning, tr("Unsaved regions"),
                    tr("The regions were changed since they were last saved."),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("unsavedRegionsBox"));
    box.setInformativeText(tr("Save them as a project before closing?"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return m_regions->saveProjectAsked();
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray())) {
        resize(1400, 900); // first run
    }
    // Never larger than the screen (a 1280×800 laptop, or a smaller screen than last time).
    if (const QRect screen = this->screen() ? this->screen()->availableGeometry() : QRect();
        !screen.isEmpty() && (width() > screen.width() || height() > screen.height())) {
        resize(std::min(width(), screen.width()), std::min(height(), screen.height()));
    }
    if (!restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray())) {
        resetLayout(); // first run
    }
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState);
    // Room for run names, node details and a screenful of lookups, and the canvas keeps at
    // least 60 % of the window's height (the bottom docks at most a quarter, up to 20 lines).
    // Docks take sizes only once the window is laid out, hence the deferred call.
    QTimer::singleShot(0, this, [this] {
        const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
        const int bottom = std::min(20 * fontMetrics().height(), height() / 4);
        resizeDocks({m_defaultDocks[0], m_defaultDocks[1]}, {28 * em, 34 * em}, Qt::Horizontal);
        resizeDocks({m_defaultDocks[2]}, {bottom}, Qt::Vertical);
    });
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!confirmDiscardRegions()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    m_jobs->cancel();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (std::any_of(urls.begin(), urls.end(), [](const QUrl& u) { return u.isLocalFile(); })) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) {
            paths << url.toLocalFile();
        }
    }
    openPaths(paths);
    event->acceptProposedAction();
}

} // namespace fxs::app
