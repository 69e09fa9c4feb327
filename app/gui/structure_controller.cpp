#include "app/gui/structure_controller.h"

#include "app/gui/app_context.h"
#include "app/gui/shown_graph.h"
#include "app/gui/workspace_loader.h"
#include "core/structure/structure.h"

#include <algorithm>

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
    ShownGraph* shown = context->shownGraph();
    connect(shown, &ShownGraph::refChanged, this, &StructureController::onRefChanged);
    connect(shown, &ShownGraph::graphReady, this, &StructureController::recover);
    // The graph on screen changed (its selection was reset): select the followed module again.
    connect(context->decorations(), &views::GraphDecorations::graphChanged, this,
            [this](graph::GraphPtr graph) {
                if (graph && m_tree && m_context->workspace()->graph(m_ref) == graph) {
                    follow(m_ref, graph);
                }
            });
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
    views::NodeSelectionModel* selection = m_context->selection();
    if (m_followed.isEmpty() || selection->graph() != graph || !m_tree) {
        return;
    }
    if (ref.run != m_followRun || compileOf(*m_context->workspace(), ref) != m_followCompile) {
        return;
    }
    const auto module = m_tree->find(m_followed.toStdString());
    if (!module) {
        return;
    }
    selection->select(m_tree->nodesOf(*module));
    m_context->showStatus(tr("Module %1: %2 nodes")
                              .arg(m_followed)
                              .arg(m_tree->module(*module).totalNodes));
}

// A new graph is asked for: a job for the previous one is of no use any more.
void StructureController::onRefChanged(views::GraphRef ref)
{
    m_jobs.abandon();
    if (!m_context->workspace()->artifact(ref)) {
        m_ref = {};
        m_tree.reset();
    }
}

void StructureController::recover(views::GraphRef ref, const graph::GraphPtr& graph)
{
    m_jobs.abandon();
    if (auto known = knownTree(graph)) {
        publish(ref, graph, std::move(known));
        return;
    }
    m_jobs.start(
        [run = runOf(*m_context->workspace(), ref), index = ref.index,
         graph](const CancelToken& cancel, const ProgressSink& progress) {
            reportProgress(progress, 0.0, "Reading the model's modules…");
            return recoverFor(run, index, graph, cancel);
        },
        [this, ref, graph](Result<structure::ModuleTree> tree) {
            std::shared_ptr<const structure::ModuleTree> shared;
            if (tree) {
                shared = std::make_shared<const structure::ModuleTree>(std::move(*tree));
                remember(graph, shared);
            } else if (tree.error().code != ErrorCode::Cancelled) {
                m_context->showStatus(tr("Module structure: %1")
                                          .arg(QString::fromStdString(tree.error().toString())));
            }
            publish(ref, graph, std::move(shared));
        });
}

void StructureController::publish(views::GraphRef ref, const graph::GraphPtr& graph,
                                  std::shared_ptr<const structure::ModuleTree> tree)
{
    m_ref = ref;
    m_tree = std::move(tree);
    m_context->setStructure(ref, m_tree);
    Q_EMIT structureReady(ref, graph, m_tree);
    m_context->shownGraph()->setStructure(ref, graph, m_tree);
    follow(ref, graph);
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
    const views::RunPtr run = runOf(ws, other);
    std::vector<views::GraphRef> reads{other};
    if (run) {
        reads.clear();
        for (const std::size_t k : structure::graphsReadFor(*run, std::size_t(other.index))) {
            reads.push_back({other.run, static_cast<int>(k)});
        }
    }
    if (std::any_of(reads.begin(), reads.end(),
                    [&ws](views::GraphRef r) { return ws.parsePending(r); })) {
        m_context->loader()->ensureParsed(reads); // never on the GUI thread
        return {};
    }
    const graph::GraphPtr graph = ws.graph(other);
    if (!graph) {
        return {};
    }
    auto tree = recoverFor(run, other.index, graph, CancelToken::none());
    const auto module = tree ? tree->find(path) : std::nullopt;
    return module ? tree->nodesOf(*module) : std::vector<graph::NodeId>{};
}

} // namespace fxs::app
