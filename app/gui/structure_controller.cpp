#include "app/gui/structure_controller.h"

#include "app/gui/app_context.h"
#include "core/structure/structure.h"
#include "views/graph/graph_view.h"

namespace fxs::app {

namespace {

// The tree of ref: with its run's other graphs when it belongs to a run.
Result<structure::ModuleTree> recoverFor(const views::RunPtr& run, int index,
                                         const graph::GraphPtr& graph, const CancelToken& cancel)
{
    if (run) {
        return structure::recoverRunGraphStructure(*run, static_cast<std::size_t>(index), {},
                                                   cancel);
    }
    return structure::recoverStructure(*graph, {}, cancel);
}

views::RunPtr runOf(const views::Workspace& ws, views::GraphRef ref)
{
    return ref.run >= 0 && static_cast<std::size_t>(ref.run) < ws.runs().size()
               ? ws.runs()[static_cast<std::size_t>(ref.run)]
               : nullptr;
}

} // namespace

StructureController::StructureController(AppContext* context) : QObject(context), m_context(context)
{
    connect(context, &AppContext::currentGraphChanged, this, &StructureController::recover);
    if (views::GraphView* view = context->graphView()) {
        connect(view, &views::GraphView::graphChanged, this, [this](graph::GraphPtr graph) {
            if (graph && m_tree && m_context->workspace()->graph(m_ref) == graph) {
                follow(m_ref, graph);
            }
        });
    }
}

namespace {

std::string compileOf(const views::Workspace& ws, views::GraphRef ref)
{
    const auto* a = ws.artifact(ref);
    return a && a->compileId.valid() ? a->compileId.toString() : std::string();
}

} // namespace

void StructureController::selectModule(const QString& path)
{
    m_followed.clear();
    const views::Workspace& ws = *m_context->workspace();
    const graph::GraphPtr graph = ws.graph(m_ref);
    if (path.isEmpty() || !m_tree || !graph) {
        return;
    }
    const auto module = m_tree->find(path.toStdString());
    if (!module) {
        m_context->showStatus(tr("Module %1 is not in this graph").arg(path));
        return;
    }
    m_followed = path;
    m_followRun = m_ref.run;
    m_followCompile = compileOf(ws, m_ref);
    follow(m_ref, graph);
}

void StructureController::follow(views::GraphRef ref, const graph::GraphPtr& graph)
{
    views::GraphView* view = m_context->graphView();
    if (m_followed.isEmpty() || !view || view->graph() != graph || !m_tree) {
        return;
    }
    if (ref.run != m_followRun || compileOf(*m_context->workspace(), ref) != m_followCompile) {
        return;
    }
    const auto module = m_tree->find(m_followed.toStdString());
    if (!module) {
        return;
    }
    view->setSelectedNodes(m_tree->nodesOf(*module));
    m_context->showStatus(tr("Module %1: %2 nodes")
                              .arg(m_followed)
                              .arg(m_tree->module(*module).totalNodes));
}

void StructureController::recover(views::GraphRef ref)
{
    views::Workspace& ws = *m_context->workspace();
    graph::GraphPtr graph = ws.graph(ref);
    if (!graph && !ws.parsePending(ref)) {
        m_jobs.abandon();
        m_ref = {};
        m_tree.reset();
        return;
    }
    ws.reportParsed(ref); // a parse an abandoned job finished
    if (auto known = graph ? knownTree(graph) : nullptr) {
        m_jobs.abandon();
        m_ref = ref;
        m_tree = std::move(known);
        m_context->setStructure(ref, m_tree);
        Q_EMIT structureReady(ref, graph, m_tree);
        return;
    }
    struct Recovered {
        graph::GraphPtr graph;
        Result<structure::ModuleTree> tree = makeError(ErrorCode::Cancelled, "not recovered");
    };
    m_jobs.start(
        [run = runOf(ws, ref), index = ref.index, graph](const CancelToken& cancel,
                                                         const ProgressSink& progress) {
            Recovered out{graph};
            if (!out.graph) { // deferred at load: parsed now, off the GUI thread
                reportProgress(progress, 0.0, "Reading the graph code…");
                out.graph = run->graphs[static_cast<std::size_t>(index)].loadGraph();
            }
            if (out.graph && !cancel.isCancelled()) {
                reportProgress(progress, 0.5, "Reading the model's modules…");
                out.tree = recoverFor(run, index, out.graph, cancel);
            }
            return out;
        },
        [this, ref](Recovered result) {
            m_ref = ref;
            m_tree.reset();
            if (result.tree) {
                m_tree = std::make_shared<const structure::ModuleTree>(std::move(*result.tree));
                remember(result.graph, m_tree);
            } else if (result.graph && result.tree.error().code != ErrorCode::Cancelled) {
                m_context->showStatus(tr("Module structure: %1")
                                          .arg(QString::fromStdString(result.tree.error().toString())));
            }
            m_context->setStructure(ref, m_tree);
            Q_EMIT structureReady(ref, result.graph, m_tree);
            follow(ref, result.graph);
            // The window, the run tree and Problems learn of the graphs parsed: this one, and
            // the companions its structure read (a backward graph's forward, the Dynamo graph).
            m_context->workspace()->reportParsedGraphs(ref.run);
        });
}

std::shared_ptr<const structure::ModuleTree>
StructureController::knownTree(const graph::GraphPtr& graph) const
{
    for (const auto& [g, tree] : m_known) {
        if (!g.expired() && g.lock() == graph) {
            return tree;
        }
    }
    return nullptr;
}

void StructureController::remember(const graph::GraphPtr& graph,
                                   std::shared_ptr<const structure::ModuleTree> tree)
{
    constexpr std::size_t kKept = 16;
    std::erase_if(m_known, [](const auto& e) { return e.first.expired(); });
    if (m_known.size() >= kKept) {
        m_known.erase(m_known.begin());
    }
    m_known.emplace_back(graph, std::move(tree));
}

std::vector<graph::NodeId> StructureController::moduleNodesIn(views::GraphRef other,
                                                              const std::string& path) const
{
    const views::Workspace& ws = *m_context->workspace();
    const auto* artifact = ws.artifact(other);
    const graph::GraphPtr graph = artifact != nullptr ? artifact->loadGraph() : nullptr;
    if (!graph) {
        return {};
    }
    auto tree = recoverFor(runOf(ws, other), other.index, graph, CancelToken::none());
    const auto module = tree ? tree->find(path) : std::nullopt;
    return module ? tree->nodesOf(*module) : std::vector<graph::NodeId>{};
}

} // namespace fxs::app
