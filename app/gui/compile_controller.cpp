#include "app/gui/compile_controller.h"

#include "app/gui/app_context.h"
#include "core/cache/cache_store.h"
#include "views/panels/compile_results_panel.h"
#include "views/panels/region_commands.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QToolButton>

#include <algorithm>

namespace fxs::app {

// One background compile: inputs (snapshots) and what it produced.
struct CompileController::Job {
    graph::GraphPtr graph;
    std::vector<partition::Region> regions;
    std::string cachePath;
    std::string remoteUrl;
    int repeats = 3;
    compile::GraphCompileReport report;
    QString error;
    QStringList remoteWarnings;
};

CompileController::CompileController(AppContext* context)
    : QObject(context), m_context(context),
      m_results(new views::CompileResultsPanel(context->host()))
{
    m_resultsDock = context->addBottomDock(m_results, tr("Compile Results"),
                                           QStringLiteral("compileResultsDock"));
    createActions();
    createStatusWidgets();
    connect(m_results, &views::CompileResultsPanel::regionSelected, this,
            &CompileController::onRegionSelected);
    connect(context->selection(), &views::NodeSelectionModel::currentChanged, this,
            &CompileController::onNodeSelected);
    // The hull tints by cache state are this controller's layer; a graph shown again gets them
    // back when the results are about it.
    context->decorations()->claim(views::DecorationLayer::CompileState, this);
    connect(context->decorations(), &views::GraphDecorations::graphChanged, this,
            &CompileController::applyTints);
    connect(context, &AppContext::currentDocumentChanged, this, &CompileController::watchDocument);
    watchDocument(context->currentDocument());
    connect(&m_jobs, &jobs::JobTracker::runningChanged, this, [this](bool running) {
        if (running) {
            Q_EMIT started(m_starting);
        }
    });
    // Progress reaches this object's signal on the worker thread (see the header).
    connect(&m_jobs, &jobs::JobTracker::progress, this,
            [this](int, double fraction, const QString& phase) { Q_EMIT progress(fraction, phase); },
            Qt::DirectConnection);
}

CompileController::~CompileController()
{
    // The worker emits progress through this object: stop it before the object goes away.
    m_jobs.shutdown();
}

void CompileController::createActions()
{
    m_compileAction = new QAction(tr("&Compile Regions"), this);
    m_compileAction->setObjectName(QStringLiteral("compileRegionsAction"));
    m_compileAction->setShortcut(QKeySequence(tr("Ctrl+B")));
    m_compileAction->setStatusTip(tr("Compile the current graph's regions with fxscope's code "
                                     "generator through the artifact cache"));
    connect(m_compileAction, &QAction::triggered, this, [this] { compileRegions(); });
}

void CompileController::createStatusWidgets()
{
    // The phase is a label of its own, as wide as its text ("Compiling model.layers.3.mlp
    // (12/219)"); the bar shows the percentage only, so nothing is clipped.
    m_progressLabel = new QLabel(m_context->host());
    m_progressLabel->setObjectName(QStringLiteral("compileProgressLabel"));
    m_progress = new QProgressBar(m_context->host());
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(160);
    m_progress->setFormat(QStringLiteral("%p%"));
    m_cancel = new QToolButton(m_context->host());
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop compiling after the current region"));
    m_context->addStatusWidget(m_progressLabel);
    m_context->addStatusWidget(m_progress);
    m_context->addStatusWidget(m_cancel);
    m_progressLabel->hide();
    m_progress->hide();
    m_cancel->hide();
    connect(m_cancel, &QToolButton::clicked, this, &CompileController::cancel);
    connect(this, &CompileController::progress, this,
            [this](double fraction, const QString& phase) {
                m_progress->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
                m_progressLabel->setText(tr("Compiling %1").arg(phase));
            });
}

QString CompileController::cachePath() const
{
    return m_context->cachePath();
}

void CompileController::setCachePath(const QString& path)
{
    m_context->setCachePath(path);
}

void CompileController::showRunning(bool running)
{
    m_compileAction->setEnabled(!running);
    m_progressLabel->setVisible(running);
    m_progress->setVisible(running);
    m_cancel->setVisible(running);
    if (running) {
        m_progress->setValue(0);
        m_progressLabel->setText(tr("Compiling…"));
    }
}

bool CompileController::compileRegions()
{
    views::RegionDocument* doc = m_context->currentDocument();
    if (isRunning()) {
        return false;
    }
    if (doc == nullptr || !doc->graph() || doc->regions().empty()) {
        const QString why = doc == nullptr ? tr("Nothing to compile: open a graph first")
                                           : tr("Nothing to compile: the graph has no regions "
                                                "(Regions › Auto-propose or create one)");
        m_context->showStatus(why, 5000);
        m_results->setStatusText(why);
        return false;
    }
    auto job = std::make_shared<Job>();
    job->graph = doc->graph();
    job->regions = doc->regions();
    job->cachePath = cachePath().toStdString();
    job->remoteUrl = m_context->remoteUrl().toStdString();
    job->repeats = m_repeats;
    showRunning(true);
    m_results->setStatusText(tr("Compiling %1 regions…").arg(job->regions.size()));
    // started goes out from runningChanged: before the worker starts, with its token set.
    m_starting = static_cast<int>(job->regions.size());

    m_jobs.start(
        [job](const CancelToken& token, const ProgressSink& sink) {
            auto store = AppContext::openCache(job->cachePath);
            if (!store) {
                job->error = QString::fromStdString(store.error().toString());
                return job;
            }
            auto tier = AppContext::openRemote(job->remoteUrl);
            if (!tier) {
                job->error = QString::fromStdString(tier.error().toString());
                return job;
            }
            compile::GraphCompileOptions o;
            o.compile.store = store->get();
            o.compile.remote = tier->get();
            o.compile.timingRepeats = job->repeats;
            auto report = compile::compileGraphRegions(*job->graph, job->regions, o, token, sink);
            if (!report) {
                job->error = QString::fromStdString(report.error().toString());
                return job;
            }
            job->report = std::move(*report);
            for (const auto& w : *tier ? (*tier)->warnings() : std::vector<std::string>{}) {
                job->remoteWarnings << QString::fromStdString(w);
            }
            for (auto& r : job->report.regions) {
                r.outputs.clear(); // the app shows numbers and source, not tensors
            }
            return job;
        },
        [this](const std::shared_ptr<Job>& done) { onFinished(done); });
    return true;
}

CancelToken CompileController::cancelToken() const
{
    return m_jobs.currentToken();
}

void CompileController::cancel()
{
    if (m_jobs.isRunning()) {
        m_jobs.cancel();
        m_progressLabel->setText(tr("Cancelling after the current region…"));
    }
}

void CompileController::onFinished(const std::shared_ptr<Job>& job)
{
    showRunning(false);
    if (!job->error.isEmpty()) {
        m_results->setStatusText(tr("Compile failed: %1").arg(job->error));
        m_context->showStatus(tr("Compile failed: %1").arg(job->error), 8000);
        Q_EMIT failed(job->error);
        return;
    }
    m_graph = job->graph;
    m_regions = job->regions;
    m_report = std::move(job->report);
    m_stale = false;
    // Rows are named by the module that holds each region, when the graph's structure is known.
    const auto tree = m_context->currentStructure();
    const bool named = tree && m_graph && tree->moduleOf.size() == m_graph->size();
    std::vector<views::CompileResultRow> rows;
    for (const auto& r : m_report.regions) {
        rows.push_back(views::compileResultRow(r));
        const auto region = std::find_if(m_regions.begin(), m_regions.end(),
                                         [&](const partition::Region& x) { return x.id == r.id; });
        if (named && region != m_regions.end()) {
            if (const auto m = tree->commonModule(region->nodes)) {
                rows.back().module = QString::fromStdString(tree->module(*m).path);
            }
        }
    }
    m_results->setResults(std::move(rows), m_report.totalEagerMs, m_report.totalCompiledMs,
                          m_report.cancelled);
    applyTints();
    m_resultsDock->show();
    m_resultsDock->raise();
    m_context->notifyCacheWritten();
    // The remote tier's warnings (offline, no team key) are said once per run.
    const QString remote = job->remoteWarnings.join(QStringLiteral("; "));
    m_context->showStatus(remote.isEmpty() ? m_results->summaryText()
                                           : m_results->summaryText() + QStringLiteral(" — ") +
                                                 remote,
                          8000);
    Q_EMIT finished(m_report.cancelled);
}

void CompileController::watchDocument(views::RegionDocument* doc)
{
    disconnect(m_documentConnection);
    if (doc != nullptr) {
        m_documentConnection = connect(doc, &views::RegionDocument::regionsChanged, this,
                                       &CompileController::onRegionsEdited);
    }
}

void CompileController::onRegionsEdited()
{
    views::GraphDecorations* decorations = m_context->decorations();
    if (m_stale || !m_graph || decorations->graph() != m_graph || m_report.regions.empty()) {
        return;
    }
    // The outcomes describe regions that no longer exist as they were.
    m_stale = true;
    decorations->clear(views::DecorationLayer::CompileState);
    m_results->setStatusText(m_results->summaryText() +
                             tr(" — the regions changed since: compile again (Ctrl+B)"));
}

void CompileController::applyTints()
{
    views::GraphDecorations* decorations = m_context->decorations();
    if (!m_graph || m_stale || decorations->graph() != m_graph) {
        return;
    }
    for (const auto& r : m_report.regions) {
        decorations->setRegionTint(views::DecorationLayer::CompileState,
                                   QString::fromStdString(r.id), views::regionStateColor(r.state));
    }
}

void CompileController::onRegionSelected(const QString& id)
{
    views::NodeSelectionModel* selection = m_context->selection();
    const auto it = std::find_if(m_regions.begin(), m_regions.end(),
                                 [&](const auto& r) { return QString::fromStdString(r.id) == id; });
    if (it == m_regions.end() || selection->graph() != m_graph) {
        return;
    }
    selection->select(it->nodes);
}

void CompileController::onNodeSelected(graph::NodeId id)
{
    if (m_context->selection()->graph() != m_graph) {
        return;
    }
    for (const auto& r : m_regions) {
        if (r.contains(id)) {
            m_results->selectRegion(QString::fromStdString(r.id));
            return;
        }
    }
}

} // namespace fxs::app
