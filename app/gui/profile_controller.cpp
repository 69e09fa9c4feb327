#include "app/gui/profile_controller.h"

#include "app/gui/app_context.h"
#include "app/gui/shown_graph.h"
#include "core/model/lookup_graphs.h"
#include "core/cache/cache_store.h"
#include "core/trace_profile/chrome_trace.h"
#include "core/trace_profile/compile_profile.h"
#include "core/profile/profile_file.h"
#include "core/util/file_reader.h"
#include "views/models/workspace.h"
#include "views/panels/profile_panel.h"
#include "views/panels/region_commands.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QFileDialog>

#include <algorithm>

namespace fxs::app {

struct ProfileController::Job {
    graph::GraphPtr graph;
    views::GraphRef ref; // the workspace graph profiled (invalid: a body, a region document's)
    std::vector<partition::Region> regions;
    profile::ProfileOptions options;
    std::string cachePath;
    std::string remoteUrl;
    QStringList remoteWarnings;
    profile::RuntimeProfile result;
    std::shared_ptr<const structure::ModuleTree> modules; // of graph, when known
    std::shared_ptr<profile::ProfileMemo> memo;
    profile::ModuleBreakdown byModule;
    QString error;
    bool cancelled = false;
};

ProfileController::ProfileController(AppContext* context)
    : QObject(context), m_context(context), m_panel(new views::ProfilePanel(context->host())),
      m_memo(std::make_shared<profile::ProfileMemo>())
{
    m_dock = context->addBottomDock(m_panel, tr("Profile"), QStringLiteral("profileDock"));
    createActions();
    connect(m_panel, &views::ProfilePanel::profileRequested, this, [this] { profileGraph(); });
    connect(m_panel, &views::ProfilePanel::cancelRequested, this, &ProfileController::cancel);
    // The failure's link: show the runnable counterpart, and profile it once it is shown.
    connect(m_panel, &views::ProfilePanel::alternativeRequested, this, [this] {
        if (!m_alternative.valid() || isRunning()) {
            return;
        }
        m_profileWhenShown = m_alternative;
        m_context->requestGraph(m_alternative); // the window shows it, as the Navigator would
    });
    connect(context->shownGraph(), &ShownGraph::stateChanged, this, [this](ShownGraph::State s) {
        const ShownGraph* shown = m_context->shownGraph();
        if (!m_profileWhenShown.valid() || s != ShownGraph::State::Shown) {
            return;
        }
        const bool same = shown->ref() == m_profileWhenShown;
        m_profileWhenShown = {};
        if (same) {
            profileGraph();
        }
    });
    connect(m_panel, &views::ProfilePanel::moduleSelected, this,
            &ProfileController::moduleSelected);
    connect(&m_jobs, &jobs::JobTracker::progress, this,
            [this](int, double fraction, const QString& phase) {
                m_panel->setProgress(fraction, phase);
            });
    connect(m_panel, &views::ProfilePanel::nodeSelected, this,
            &ProfileController::onPanelNodeSelected);
    connect(m_panel, &views::ProfilePanel::regionSelected, this,
            &ProfileController::onPanelRegionSelected);
    connect(context->selection(), &views::NodeSelectionModel::currentChanged, this,
            &ProfileController::onViewNodeSelected);
    // The time-share colours are this controller's layer, written again for each graph shown.
    context->decorations()->claim(views::DecorationLayer::ProfileHeat, this);
    connect(context->decorations(), &views::GraphDecorations::graphChanged, this, [this] {
        updateCompileProfile();
        applyOverlay();
    });
    // Runs come and go (Close All, new loads): the run index alone no longer names the run.
    connect(context->workspace(), &views::Workspace::changed, this, [this] {
        m_compileRun = -2;
        updateCompileProfile();
    });
}

ProfileController::~ProfileController() = default;

void ProfileController::createActions()
{
    m_profileAction = new QAction(tr("&Profile Graph"), this);
    m_profileAction->setObjectName(QStringLiteral("profileGraphAction"));
    m_profileAction->setShortcut(QKeySequence(tr("Ctrl+Shift+B")));
    m_profileAction->setStatusTip(tr("Time every node and region (eager and compiled) and colour "
                                     "the graph by time share"));
    connect(m_profileAction, &QAction::triggered, this, [this] { profileGraph(); });
    m_exportAction = new QAction(tr("Export Pro&file…"), this);
    m_exportAction->setObjectName(QStringLiteral("exportProfileAction"));
    connect(m_exportAction, &QAction::triggered, this, &ProfileController::exportDialog);
    m_openAction = new QAction(tr("Open Pro&file…"), this);
    m_openAction->setObjectName(QStringLiteral("openProfileAction"));
    connect(m_openAction, &QAction::triggered, this, &ProfileController::openDialog);
}

bool ProfileController::profileGraph()
{
    views::RegionDocument* doc = m_context->currentDocument();
    const graph::GraphPtr onScreen = m_context->decorations()->graph();
    const graph::GraphPtr g = doc != nullptr ? doc->graph() : onScreen;
    if (isRunning() || !g) {
        m_context->showStatus(
            isRunning() ? tr("A profile is running") : tr("Nothing to profile: open a graph first"),
            5000);
        return false;
    }
    auto job = std::make_shared<Job>();
    job->graph = g;
    job->ref = g == onScreen ? m_context->currentGraph() : views::GraphRef{};
    job->regions = doc != nullptr ? doc->regions() : std::vector<partition::Region>{};
    job->options.repeat = m_repeat;
    job->options.compileRegions = m_compileRegions && !job->regions.empty();
    job->cachePath = m_context->cachePath().toStdString();
    if (g == onScreen) {
        job->modules = m_context->currentStructure();
    }
    if (job->modules && job->modules->moduleOf.size() == g->size()) {
        job->options.modules = job->modules.get(); // progress by module, the units of reuse
    }
    job->memo = m_memo;
    job->options.memo = job->memo.get();
    job->remoteUrl = m_context->remoteUrl().toStdString();
    m_panel->setBusy(true);
    m_dock->show();
    m_dock->raise();
    m_jobs.start(
        [job](const CancelToken& token, const ProgressSink& sink) {
            std::unique_ptr<cache::CacheStore> store;
            std::unique_ptr<remote::RemoteTier> tier;
            if (job->options.compileRegions) {
                auto remote = AppContext::openRemote(job->remoteUrl);
                if (!remote) {
                    job->error = QString::fromStdString(remote.error().toString());
                    return job;
                }
                tier = std::move(*remote);
                job->options.remote = tier.get();
                auto opened = AppContext::openCache(job->cachePath);
                if (!opened) {
                    job->error = QString::fromStdString(opened.error().toString());
                    return job;
                }
                store = std::move(*opened);
                job->options.store = store.get();
            }
            auto p = profile::profileGraph(*job->graph, job->regions, job->options, token, sink);
            job->options.store = nullptr; // the store and tier close with this scope
            job->options.remote = nullptr;
            for (const auto& w : tier ? tier->warnings() : std::vector<std::string>{}) {
                job->remoteWarnings << QString::fromStdString(w);
            }
            if (p) {
                job->result = std::move(*p);
                if (job->modules && job->modules->moduleOf.size() == job->graph->size()) {
                    job->byModule = profile::profileByModule(job->result, *job->graph,
                                                             *job->modules);
                }
            } else {
                job->cancelled = p.error().code == ErrorCode::Cancelled;
                job->error = QString::fromStdString(p.error().toString());
            }
            return job;
        },
        [this](const std::shared_ptr<Job>& done) { onFinished(done); });
    return true;
}

views::GraphRef ProfileController::runnableCounterpart(views::GraphRef ref) const
{
    const views::Workspace* ws = m_context->workspace();
    const model::GraphArtifact* a = ws->artifact(ref);
    if (a == nullptr || ref.run < 0 || !model::isPreGradKind(a->kind)) {
        return {};
    }
    const model::Run& run = *ws->runs()[static_cast<std::size_t>(ref.run)];
    for (const char* kind : {"aot_forward_graph", "aot_inference_graph"}) {
        for (int i : model::graphsOfKind(run, a->compileId, kind)) {
            if (run.graphs[static_cast<std::size_t>(i)].rank == a->rank) {
                return {ref.run, i};
            }
        }
    }
    return {};
}

void ProfileController::cancel()
{
    m_jobs.cancel();
}

void ProfileController::onFinished(const std::shared_ptr<Job>& job)
{
    m_panel->setBusy(false);
    if (job->cancelled) {
        m_context->showStatus(tr("Profiling cancelled"), 5000);
        Q_EMIT finished(true);
        return;
    }
    if (!job->error.isEmpty()) {
        m_context->showStatus(tr("Profiling failed: %1").arg(job->error), 8000);
        m_alternative = runnableCounterpart(job->ref);
        const views::Workspace* ws = m_context->workspace();
        m_panel->showFailure(tr("Profiling failed: %1").arg(job->error),
                             m_alternative.valid()
                                 ? tr("Profile %1 instead").arg(ws->graphTitle(m_alternative))
                                 : QString());
        Q_EMIT failed(job->error);
        return;
    }
    m_graph = job->graph;
    m_regions = job->regions;
    showProfile(std::move(job->result));
    m_panel->setModuleBreakdown(job->byModule);
    const profile::ProfileMemo::Stats stats = m_memo->lastStats();
    if (!job->remoteWarnings.isEmpty()) {
        m_context->showStatus(job->remoteWarnings.join(QStringLiteral("; ")), 8000);
    } else if (stats.unitsReused > 0) {
        m_context->showStatus(tr("Profiled: %1 of %2 modules reused from an earlier profile, "
                                 "%3 engine runs")
                                  .arg(stats.unitsReused)
                                  .arg(stats.units)
                                  .arg(stats.engineRuns),
                              8000);
    }
    Q_EMIT finished(false);
}

void ProfileController::showProfile(profile::RuntimeProfile p)
{
    m_panel->setProfile(std::move(p));
    m_hasProfile = true;
    applyOverlay();
}

void ProfileController::applyOverlay()
{
    views::GraphDecorations* decorations = m_context->decorations();
    const graph::GraphPtr shown = decorations->graph();
    if (!m_hasProfile || !shown) {
        return;
    }
    // A loaded profile applies to any graph with its node names; overlayColors skips others.
    if (m_graph && shown != m_graph) {
        return;
    }
    const profile::RuntimeProfile& profile = m_panel->model()->profile();
    decorations->setNodeColors(views::DecorationLayer::ProfileHeat,
                               views::ProfileModel::overlayColors(profile, *shown),
                               views::ProfileModel::overlayAmounts(profile, *shown));
}

void ProfileController::updateCompileProfile()
{
    const int run = m_context->currentGraph().run;
    if (run == m_compileRun) {
        return;
    }
    m_compileRun = run;
    const auto& runs = m_context->workspace()->runs();
    if (run < 0 || run >= static_cast<int>(runs.size())) {
        m_panel->setCompileProfile({});
        return;
    }
    m_panel->setCompileProfile(profile::buildCompileProfile(*runs[static_cast<std::size_t>(run)]));
}

void ProfileController::onPanelNodeSelected(const QString& name)
{
    const graph::GraphPtr shown = m_context->selection()->graph();
    if (m_syncing || !shown) {
        return;
    }
    if (const auto id = shown->find(name.toStdString())) {
        m_syncing = true;
        m_context->requestNode(*id);
        m_syncing = false;
    }
}

void ProfileController::onPanelRegionSelected(const QString& id)
{
    views::NodeSelectionModel* selection = m_context->selection();
    const auto it = std::find_if(m_regions.begin(), m_regions.end(),
                                 [&](const auto& r) { return QString::fromStdString(r.id) == id; });
    if (it != m_regions.end() && selection->graph() == m_graph) {
        m_syncing = true;
        selection->select(it->nodes);
        m_syncing = false;
    }
}

void ProfileController::onViewNodeSelected(graph::NodeId id)
{
    const graph::GraphPtr shown = m_context->selection()->graph();
    if (m_syncing || !m_hasProfile || !shown || std::size_t(id) >= shown->size()) {
        return;
    }
    m_panel->selectName(QString::fromStdString(shown->node(id).name));
}

bool ProfileController::exportProfile(const QString& path, ExportFormat format)
{
    if (!m_hasProfile) {
        m_context->showStatus(tr("No profile to export: run Build › Profile Graph"),
                                           5000);
        return false;
    }
    const profile::RuntimeProfile& p = m_panel->model()->profile();
    Status written;
    switch (format) {
    case ExportFormat::ChromeTrace:
        written = writeFile(path.toStdString(),
                            profile::writeChromeTrace(profile::runtimeProfileTraceEvents(p)));
        break;
    case ExportFormat::Csv:
        written = writeFile(path.toStdString(), profile::profileCsv(p));
        break;
    case ExportFormat::Saved:
        written = profile::saveProfile(path.toStdString(), p);
        break;
    }
    m_context->showStatus(
        written.ok() ? tr("Exported %1").arg(path)
                     : tr("Could not export: %1").arg(QString::fromStdString(
                           written.error().toString())),
        5000);
    return written.ok();
}

bool ProfileController::openProfile(const QString& path)
{
    auto loaded = profile::loadProfile(path.toStdString());
    if (!loaded) {
        m_context->reportOpenFailure(path, tr("saved profile"), loaded.error());
        return false;
    }
    QString message = tr("Opened profile %1").arg(path);
    if (m_hasProfile) {
        const auto cmp = profile::compareProfiles(m_panel->model()->profile(), *loaded);
        message += tr(" — total %1 ms before, %2 ms in the opened one")
                       .arg(cmp.beforeTotalMs, 0, 'f', 3)
                       .arg(cmp.afterTotalMs, 0, 'f', 3);
        if (cmp.beforeCompiledTotalMs || cmp.afterCompiledTotalMs) {
            const auto ms = [this](const std::optional<double>& v) {
                return v ? QString::number(*v, 'f', 3) + tr(" ms") : tr("not measured");
            };
            message += tr("; whole graph compiled %1 before, %2 in the opened one")
                           .arg(ms(cmp.beforeCompiledTotalMs), ms(cmp.afterCompiledTotalMs));
        }
    }
    m_graph = nullptr;
    m_regions.clear();
    showProfile(std::move(*loaded));
    m_panel->setModuleBreakdown({}); // a saved profile: its graph's modules are not known here
    m_dock->show();
    m_dock->raise();
    m_context->showStatus(message, 8000);
    return true;
}

void ProfileController::exportDialog()
{
    const QString chrome = tr("Chrome trace (*.json)");
    const QString csv = tr("CSV table (*.csv)");
    const QString saved = tr("fxscope profile (*.fxprofile)");
    QString filter;
    const QString path = QFileDialog::getSaveFileName(
        m_context->host(), tr("Export Profile"), QString(), chrome + ";;" + csv + ";;" + saved, &filter);
    if (path.isEmpty()) {
        return;
    }
    exportProfile(path, filter == csv     ? ExportFormat::Csv
                        : filter == saved ? ExportFormat::Saved
                                          : ExportFormat::ChromeTrace);
}

void ProfileController::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        m_context->host(), tr("Open Profile"), QString(),
        tr("fxscope profile (*.fxprofile *.json);;All files (*)"));
    if (!path.isEmpty()) {
        openProfile(path);
    }
}

} // namespace fxs::app
