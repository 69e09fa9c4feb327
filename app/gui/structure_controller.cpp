#include "app/gui/structure_controller.h"

#include "app/gui/app_context.h"
#include "core/structure/structure.h"

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
}

void StructureController::recover(views::GraphRef ref)
{
    const views::Workspace& ws = *m_context->workspace();
    graph::GraphPtr graph = ws.graph(ref);
    if (!graph) {
        m_jobs.abandon();
        m_ref = {};
        m_tree.reset();
        return;
    }
    m_jobs.start(
        [run = runOf(ws, ref), index = ref.index, graph](const CancelToken& cancel,
                                                         const ProgressSink&) {
            return recoverFor(run, index, graph, cancel);
        },
        [this, ref, graph](Result<structure::ModuleTree> result) {
            m_ref = ref;
            m_tree.reset();
            if (result) {
                m_tree = std::make_shared<const structure::ModuleTree>(std::move(*result));
            } else if (result.error().code != ErrorCode::Cancelled) {
                m_context->showStatus(tr("Module structure: %1")
                                          .arg(QString::fromStdString(result.error().toString())));
            }
            m_context->setStructure(ref, m_tree);
            Q_EMIT structureReady(ref, graph, m_tree);
        });
}

std::vector<graph::NodeId> StructureController::moduleNodesIn(views::GraphRef other,
                                                              const std::string& path) const
{
    const views::Workspace& ws = *m_context->workspace();
    const graph::GraphPtr graph = ws.graph(other);
    if (!graph) {
        return {};
    }
    auto tree = recoverFor(runOf(ws, other), other.index, graph, CancelToken::none());
    const auto module = tree ? tree->find(path) : std::nullopt;
    return module ? tree->nodesOf(*module) : std::vector<graph::NodeId>{};
}

} // namespace fxs::app
