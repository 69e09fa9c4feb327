#include "app/gui/runtime_controller.h"

#include "app/gui/app_context.h"
#include "app/gui/shown_graph.h"
#include "app/gui/workspace_loader.h"
#include "core/runtime/profile_trace_files.h"
#include "core/runtime/profile_trace_reader.h"
#include "views/models/kernel_models.h"
#include "views/panels/kernels_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>

#include <algorithm>
#include <cstdlib>

namespace fxs::app {

namespace {

using Result = RuntimeController::Result;

// The run a trace was recorded with: the one that logged most of its compiled graphs (the
// newest of equals); null when no run is loaded.
views::RunPtr runFor(const runtime::ProfileTrace& trace, const std::vector<views::RunPtr>& runs,
                     std::size_t* known)
{
    views::RunPtr best;
    *known = 0;
    for (const auto& run : runs) {
        const std::size_t n = runtime::knownGraphKeys(trace, *run);
        if (!best || n >= *known) {
            best = run;
            *known = n;
        }
    }
    return best;
}

// The join reads the post-grad and pre-grad graphs: parsed here, off the GUI thread (the
// parses are the run's own, shared; the workspace is told on delivery).
std::vector<std::size_t> parseJoinedGraphs(const model::Run& run, const CancelToken& cancel)
{
    std::vector<std::size_t> parsed;
    for (std::size_t i = 0; i < run.graphs.size() && !cancel.isCancelled(); ++i) {
        const model::GraphArtifact& a = run.graphs[i];
        if ((a.kind == "inductor_post_grad_graph" || a.kind == "after_pre_grad_graph") &&
            a.parsePending()) {
            a.deferred->get();
            parsed.push_back(i);
        }
    }
    return parsed;
}

std::shared_ptr<Result> readAndJoin(const QString& path, const std::vector<views::RunPtr>& runs,
                                    const CancelToken& cancel, const ProgressSink& progress)
{
    auto out = std::make_shared<Result>();
    out->path = path;
    reportProgress(progress, 0.0, "Reading the profiler trace…");
    auto read = runtime::readProfileTrace(path.toStdString(), {}, cancel);
    if (read.error) {
        out->readError = QString::fromStdString(read.error->toString());
    }
    out->run = runFor(read.trace, runs, &out->knownGraphs);
    reportProgress(progress, 0.6, "Reading the graphs…");
    std::vector<std::size_t> parsed;
    if (out->run && !cancel.isCancelled()) {
        parsed = parseJoinedGraphs(*out->run, cancel);
    }
    out->cancelled = cancel.isCancelled();
    if (out->cancelled) {
        return out;
    }
    reportProgress(progress, 0.8, "Joining kernels with their nodes…");
    out->provenance = out->run ? runtime::collectProvenance(*out->run) : runtime::RunProvenance{};
    auto attribution = std::make_shared<runtime::Attribution>(
        runtime::attribute(read.trace, out->provenance));
    if (out->run) {
        out->times = runtime::timesByGraph(*attribution, out->provenance, *out->run);
    }
    out->attribution = std::move(attribution);
    for (const std::size_t i : parsed) {
        out->parsed.push_back({-1, static_cast<int>(i)}); // the run's index is set on delivery
    }
    return out;
}

const std::map<std::string, runtime::NodeTime> kNoTimes;

QString us(double v)
{
    return views::KernelsModel::usText(v);
}

} // namespace

RuntimeController::RuntimeController(AppContext* context)
    : QObject(context), m_context(context), m_panel(new views::KernelsPanel(context->host()))
{
    m_dock = context->addBottomDock(m_panel, tr("Kernels"), QStringLiteral("kernelsDock"));
    m_openAction = new QAction(tr("Open Profiler &Trace…"), this);
    m_openAction->setObjectName(QStringLiteral("openProfilerTraceAction"));
    m_openAction->setStatusTip(tr("Join a torch.profiler trace with the loaded TORCH_TRACE log: "
                                  "GPU time per kernel, node and module"));
    connect(m_openAction, &QAction::triggered, this, &RuntimeController::openDialog);
    // The runtime heat is this controller's layer, written again for each graph shown.
    context->decorations()->claim(views::DecorationLayer::RuntimeTrace, this);
    connect(context->decorations(), &views::GraphDecorations::graphChanged, this,
            &RuntimeController::applyHeat);
    // A kernel's graph asked for: its nodes selected once it is drawn with its module groups
    // (selecting earlier would reveal them in groups the module tree then replaces).
    connect(context->shownGraph(), &ShownGraph::stateChanged, this, [this](ShownGraph::State s) {
        if (s == ShownGraph::State::Shown && m_pendingKernel) {
            const std::size_t k = *m_pendingKernel;
            m_pendingKernel.reset();
            selectKernelNodes(k);
        } else if (s == ShownGraph::State::Failed || s == ShownGraph::State::Cancelled) {
            m_pendingKernel.reset();
        }
    });
    connect(context->selection(), &views::NodeSelectionModel::currentChanged, this,
            &RuntimeController::onCurrentNodeChanged);
    connect(context->selection(), &views::NodeSelectionModel::currentCleared, this,
            &RuntimeController::onCurrentNodeChanged);
    connect(context->loader(), &WorkspaceLoader::started, this,
            [this](int, const QStringList& paths) { m_loadPaths = paths; });
    connect(context, &AppContext::loadFinished, this, &RuntimeController::onLoadFinished);
    // Runs come and go (Close All, reloads): the heat follows what is still loaded.
    connect(context->workspace(), &views::Workspace::changed, this, &RuntimeController::applyHeat);
    connect(&m_jobs, &jobs::JobTracker::progress, this,
            [this](int, double fraction, const QString& phase) {
                m_panel->setProgress(fraction, phase);
            });
    connect(m_panel, &views::KernelsPanel::cancelRequested, this, &RuntimeController::cancel);
    connect(m_panel, &views::KernelsPanel::kernelSelected, this,
            &RuntimeController::onKernelSelected);
    connect(m_panel, &views::KernelsPanel::moduleSelected, this,
            &RuntimeController::moduleSelected);
    connect(m_panel, &views::KernelsPanel::showAllRequested, this,
            [this] { m_panel->setFilter(std::nullopt); });
    connect(m_panel, &views::KernelsPanel::sourceLineActivated, this,
            &RuntimeController::selectSourceNodes);
}

RuntimeController::~RuntimeController() = default;

bool RuntimeController::isProfileTrace(const QString& path)
{
    return runtime::isProfileTrace(path.toStdString());
}

void RuntimeController::openProfile(const QString& path)
{
    if (m_context->loader()->isRunning()) {
        m_waiting = path; // joined with what the load brings
        m_panel->setBusy(true);
        m_panel->setProgress(0, tr("Waiting for the load…"));
        return;
    }
    start(path);
}

void RuntimeController::onLoadFinished(bool cancelled)
{
    QString path = m_waiting;
    m_waiting.clear();
    if (path.isEmpty() && !cancelled) {
        // A TORCH_TRACE directory opened with its profiler trace beside the log.
        for (const QString& p : m_loadPaths) {
            if (QFileInfo(p).isDir()) {
                const auto found = runtime::profileTracesIn(p.toStdString());
                if (!found.empty()) {
                    path = QString::fromStdString(found.front());
                    break;
                }
            }
        }
        // A trace opened before its log: joined again now that runs came.
        if (path.isEmpty() && m_result && m_result->knownGraphs == 0) {
            path = m_result->path;
        }
    }
    if (!path.isEmpty()) {
        start(path);
    } else if (!m_jobs.isRunning()) {
        m_panel->setBusy(false);
    }
}

void RuntimeController::start(const QString& path)
{
    m_panel->setBusy(true);
    m_dock->show();
    m_dock->raise();
    m_context->showStatus(tr("Reading the profiler trace %1…").arg(path), 0);
    m_jobs.start(
        [path, runs = m_context->workspace()->runs()](const CancelToken& cancel,
                                                      const ProgressSink& progress) {
            return readAndJoin(path, runs, cancel, progress);
        },
        [this](std::shared_ptr<Result> done) { onFinished(std::move(done)); });
}

void RuntimeController::cancel()
{
    m_waiting.clear();
    m_jobs.cancel();
    if (!m_jobs.isRunning()) {
        m_panel->setBusy(false);
    }
}

void RuntimeController::onFinished(std::shared_ptr<Result> result)
{
    m_panel->setBusy(false);
    if (result->cancelled) {
        m_context->showStatus(tr("Reading the profiler trace cancelled"));
        Q_EMIT finished(true);
        return;
    }
    // The graphs the join parsed are told to the workspace (their problems, graphReady).
    const auto& runs = m_context->workspace()->runs();
    const auto at = std::find(runs.begin(), runs.end(), result->run);
    if (at != runs.end()) {
        for (auto& ref : result->parsed) {
            ref.run = static_cast<int>(at - runs.begin());
        }
        m_context->loader()->ensureParsed(result->parsed);
    }
    m_result = std::move(result);
    m_pendingKernel.reset();
    m_panel->setAttribution(m_result->attribution, summaryText());
    applyHeat();
    m_context->showStatus(m_result->readError.isEmpty()
                              ? tr("Profiler trace %1 joined").arg(m_result->path)
                              : tr("Profiler trace %1: %2 (what was read is shown)")
                                    .arg(m_result->path, m_result->readError),
                          8000);
    Q_EMIT finished(false);
}

QString RuntimeController::summaryText() const
{
    const runtime::Attribution& a = *m_result->attribution;
    const int steps = std::max(a.steps, 1);
    QString text = tr("%1 · %2 · %n step(s): %3 µs of GPU kernel time (%4 µs a step), %5 "
                      "attributed",
                      "", a.steps)
                       .arg(QFileInfo(m_result->path).fileName(),
                            a.device.empty() ? tr("unknown device")
                                             : QString::fromStdString(a.device),
                            us(a.totalKernelUs), us(a.totalKernelUs / steps),
                            views::KernelsModel::shareText(
                                a.totalKernelUs > 0 ? a.attributedUs / a.totalKernelUs : 0));
    if (!m_result->run) {
        text += tr(" — no TORCH_TRACE log is loaded: kernels are listed, not drawn");
    } else if (m_result->knownGraphs == 0) {
        text += tr(" — none of its compiled graphs is in the loaded logs");
    }
    for (const auto& u : a.unattributed) {
        text += tr("; unattributed %1 µs: %2").arg(us(u.us), QString::fromStdString(u.reason));
    }
    if (!m_result->readError.isEmpty()) {
        text += tr("; the trace is cut or corrupt, what was read is shown: %1")
                    .arg(m_result->readError);
    }
    return text;
}

const runtime::GraphTimes* RuntimeController::timesOf(const graph::GraphPtr& graph) const
{
    if (!m_result || !m_result->run || !graph) {
        return nullptr;
    }
    const auto& runs = m_context->workspace()->runs();
    if (std::find(runs.begin(), runs.end(), m_result->run) == runs.end()) {
        return nullptr; // closed or reloaded since
    }
    for (const runtime::GraphTimes& t : m_result->times) {
        if (m_result->run->graphs[t.artifact].parsedGraph() == graph) {
            return &t;
        }
    }
    return nullptr;
}

QString RuntimeController::heatText(const runtime::GraphTimes* times) const
{
    const runtime::Attribution& a = *m_result->attribution;
    if (!times) {
        return tr("Runtime heat: none of the measured kernels computes a node of this graph");
    }
    const int steps = std::max(a.steps, 1);
    QString text =
        tr("Runtime heat (%1): the nodes of this graph ran %2 µs of the %3 µs of GPU kernel time "
           "(%4; %5 µs a step)")
            .arg(QFileInfo(m_result->path).fileName(), us(times->us), us(a.totalKernelUs),
                 views::KernelsModel::shareText(a.totalKernelUs > 0 ? times->us / a.totalKernelUs
                                                                    : 0),
                 us(times->us / steps));
    QStringList from, missing;
    const runtime::CompiledGraph* first = m_result->provenance.find(times->keys.front());
    for (const runtime::GraphRow& g : a.graphs) {
        const runtime::CompiledGraph* c = m_result->provenance.find(g.key);
        if (!c || !first || c->compileId != first->compileId) {
            continue;
        }
        const bool drawn =
            std::find(times->keys.begin(), times->keys.end(), g.key) != times->keys.end();
        const QString kind = g.kind.empty() ? tr("compiled") : QString::fromStdString(g.kind);
        if (drawn) {
            from << kind;
        } else if (times->preGrad && g.us > 0) {
            missing << tr("the %1 graph's %2 µs are not on these nodes (its log maps no post-grad "
                          "node to a pre-grad one)")
                           .arg(kind, us(g.us));
        }
    }
    if (!from.isEmpty()) {
        text += tr(", from the %1 graph").arg(from.join(tr(" and ")));
    }
    if (!missing.isEmpty()) {
        text += QStringLiteral("; ") + missing.join(QStringLiteral("; "));
    }
    return text + tr(" — darker is slower; uncoloured nodes ran no kernel");
}

void RuntimeController::applyHeat()
{
    views::GraphDecorations* decorations = m_context->decorations();
    const graph::GraphPtr shown = decorations->graph();
    const runtime::GraphTimes* times = timesOf(shown);
    if (!times) {
        decorations->clear(views::DecorationLayer::RuntimeTrace);
        // Said only about graphs of the joined run; others are not the trace's business.
        const bool ofRun = m_result && m_result->run && shown &&
                           std::any_of(m_result->run->graphs.begin(), m_result->run->graphs.end(),
                                       [&](const auto& a) { return a.parsedGraph() == shown; });
        if (ofRun) {
            decorations->setBanner(views::DecorationLayer::RuntimeTrace, heatText(nullptr));
        }
        m_panel->setHeatLegend(0, ofRun ? heatText(nullptr) : QString());
        return;
    }
    double maxUs = 0;
    for (const auto& [name, t] : times->nodes) {
        maxUs = std::max(maxUs, t.us);
    }
    views::NodeAmounts amounts = views::KernelsModel::heatAmounts(*times, *shown);
    auto colors = views::KernelsModel::heatColors(amounts, maxUs);
    decorations->setNodeColors(views::DecorationLayer::RuntimeTrace, std::move(colors),
                               std::move(amounts));
    decorations->setBanner(views::DecorationLayer::RuntimeTrace, heatText(times));
    m_panel->setHeatLegend(maxUs, tr("this graph: %1 µs").arg(us(times->us)));
}

void RuntimeController::onKernelSelected(std::size_t kernel)
{
    if (!m_result || kernel >= m_result->attribution->kernels.size()) {
        return;
    }
    m_panel->setStack(stackText(kernel));
    const runtime::GraphTimes* times = timesOf(m_context->selection()->graph());
    const bool here = times && std::any_of(times->nodes.begin(), times->nodes.end(), [&](auto& n) {
        return std::binary_search(n.second.kernels.begin(), n.second.kernels.end(), kernel);
    });
    if (!here && showKernelGraph(kernel)) {
        return; // its nodes are selected when its graph is shown
    }
    selectKernelNodes(kernel);
}

void RuntimeController::selectKernelNodes(std::size_t kernel)
{
    views::NodeSelectionModel* selection = m_context->selection();
    const graph::GraphPtr graph = selection->graph();
    const runtime::GraphTimes* times = timesOf(graph);
    std::vector<graph::NodeId> ids;
    for (const auto& [name, t] : times ? times->nodes : kNoTimes) {
        if (std::binary_search(t.kernels.begin(), t.kernels.end(), kernel)) {
            if (const auto id = graph->find(name)) {
                ids.push_back(*id);
            }
        }
    }
    m_syncing = true;
    if (!ids.empty()) {
        m_context->requestNode(ids.front()); // revealed in its group, centred, inspected
    }
    selection->select(ids);
    m_syncing = false;
    const auto& row = m_result->attribution->kernels[kernel];
    m_context->showStatus(
        ids.empty() ? tr("%1 computes no node of this graph").arg(QString::fromStdString(row.name))
                    : tr("%1: %n node(s) selected", "", static_cast<int>(ids.size()))
                          .arg(QString::fromStdString(row.handle.empty() ? row.name
                                                                         : row.handle)));
}

void RuntimeController::selectSourceNodes(const QString& file, int line)
{
    views::NodeSelectionModel* selection = m_context->selection();
    const graph::GraphPtr graph = selection->graph();
    if (!graph) {
        return;
    }
    const std::string path = file.toStdString();
    const auto baseName = [](const std::string& p) { return p.substr(p.rfind('/') + 1); };
    std::vector<graph::NodeId> exact;
    std::vector<graph::NodeId> sameName;
    for (const graph::Node& n : graph->nodes()) {
        if (n.source.line != line || !n.source.known()) {
            continue;
        }
        if (n.source.file == path) {
            exact.push_back(n.id);
        } else if (baseName(n.source.file) == baseName(path)) {
            sameName.push_back(n.id);
        }
    }
    const std::vector<graph::NodeId>& ids = exact.empty() ? sameName : exact;
    m_syncing = true;
    if (!ids.empty()) {
        m_context->requestNode(ids.front());
    }
    selection->select(ids);
    m_syncing = false;
    const QString where = QStringLiteral("%1:%2").arg(file).arg(line);
    m_context->showStatus(ids.empty()
                              ? tr("No node of this graph comes from %1").arg(where)
                              : tr("%1: %n node(s) selected", "", static_cast<int>(ids.size()))
                                    .arg(where));
}

// Shows the post-grad graph of the kernel's compiled graph (else another graph of the run that
// it ran for); false when it has none in the run.
bool RuntimeController::showKernelGraph(std::size_t kernel)
{
    const auto& runs = m_context->workspace()->runs();
    const auto at = std::find(runs.begin(), runs.end(), m_result->run);
    const std::string& key = m_result->attribution->kernels[kernel].graph;
    if (at == runs.end() || key.empty()) {
        return false;
    }
    const runtime::GraphTimes* best = nullptr;
    for (const runtime::GraphTimes& t : m_result->times) {
        const bool ran = std::any_of(t.nodes.begin(), t.nodes.end(), [&](auto& n) {
            return std::binary_search(n.second.kernels.begin(), n.second.kernels.end(), kernel);
        });
        const bool postGrad = m_result->run->graphs[t.artifact].kind == "inductor_post_grad_graph";
        if (ran && (!best || postGrad)) {
            best = &t;
        }
    }
    if (!best) {
        return false;
    }
    m_pendingKernel = kernel;
    m_context->requestGraph({static_cast<int>(at - runs.begin()), static_cast<int>(best->artifact)});
    return true;
}

QString RuntimeController::stackText(std::size_t kernel) const
{
    const runtime::KernelRow& r = m_result->attribution->kernels[kernel];
    if (r.handle.empty()) {
        return tr("%1\nran outside compiled graphs, under %2")
            .arg(QString::fromStdString(r.name), QString::fromStdString(r.op));
    }
    QStringList lines{QString::fromStdString(r.handle) + QStringLiteral("  ") +
                      QString::fromStdString(r.name)};
    const auto join = [](const std::vector<std::string>& v) {
        QStringList l;
        for (const auto& s : v) {
            l << QString::fromStdString(s);
        }
        return l.isEmpty() ? QStringLiteral("—") : l.join(QStringLiteral(", "));
    };
    lines << tr("post-grad nodes: %1").arg(join(r.postNodes));
    lines << tr("pre-grad nodes: %1").arg(join(r.preNodes));
    lines << tr("modules: %1").arg(join(r.modules));
    const runtime::CompiledGraph* g = m_result->provenance.find(r.graph);
    const auto colon = r.handle.rfind(':');
    const runtime::CallSite* site =
        g && colon != std::string::npos ? g->site(std::atoi(r.handle.c_str() + colon + 1)) : nullptr;
    lines << QString();
    if (!site || site->stack.empty()) {
        lines << tr("No source stack logged for this kernel "
                    "(inductor_provenance_tracking_kernel_stack_traces)");
    }
    for (const auto& s : site ? site->stack : std::vector<std::string>{}) {
        lines << QString::fromStdString(s);
    }
    return lines.join(QLatin1Char('\n'));
}

void RuntimeController::onCurrentNodeChanged()
{
    views::NodeSelectionModel* selection = m_context->selection();
    if (m_syncing || !m_result) {
        return;
    }
    const auto current = selection->currentNode();
    const runtime::GraphTimes* times = timesOf(selection->graph());
    if (!current || !times) {
        m_panel->setFilter(std::nullopt);
        return;
    }
    const std::string& name = selection->graph()->node(*current).name;
    const auto it = times->nodes.find(name);
    const QString node = QString::fromStdString(name);
    if (it == times->nodes.end()) {
        m_panel->setFilter(std::vector<std::size_t>{},
                           tr("Node %1 ran no measured kernel").arg(node));
        return;
    }
    m_panel->setFilter(it->second.kernels,
                       tr("Kernels of node %1 (%2 µs)").arg(node, us(it->second.us)));
}

void RuntimeController::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        m_context->host(), tr("Open Profiler Trace"), QString(),
        tr("torch.profiler traces (*.json *.json.gz);;All files (*)"));
    if (!path.isEmpty()) {
        openProfile(path);
    }
}

} // namespace fxs::app
