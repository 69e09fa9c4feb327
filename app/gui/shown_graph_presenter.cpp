#include "app/gui/shown_graph_presenter.h"

#include "app/gui/graph_area.h"
#include "views/models/run_tree_model.h"
#include "views/panels/cache_panel.h"
#include "views/panels/code_panel.h"
#include "views/panels/inspector_panel.h"

#include <QFileInfo>

namespace fxs::app {

ShownGraphPresenter::ShownGraphPresenter(ShownGraph* shown, views::Workspace* workspace,
                                         Panels panels, QObject* parent)
    : QObject(parent), m_shown(shown), m_workspace(workspace), m_panels(panels)
{
    connect(m_shown, &ShownGraph::stateChanged, this, &ShownGraphPresenter::onState);
    // A layout of the requested graph finishes its way to the screen.
    views::GraphView* view = m_panels.area->primary();
    connect(view, &views::GraphView::layoutFinished, this,
            [this, view] { m_shown->setLaidOut(view->graph()); });
}

void ShownGraphPresenter::show(views::GraphRef ref)
{
    if (!m_workspace->artifact(ref)) {
        return;
    }
    rememberViewState();
    m_title = ref.run >= 0 ? QStringLiteral("%1 · %2").arg(m_workspace->runName(ref.run),
                                                           m_workspace->graphTitle(ref))
                           : m_workspace->graphTitle(ref);
    // Controllers hear of it first (refChanged); onState draws each step.
    m_shown->request(ref);
}

void ShownGraphPresenter::clear()
{
    m_viewStates.clear();
    m_title.clear();
    m_drawnRequest = 0;
    Q_EMIT titleChanged();
}

void ShownGraphPresenter::onState(ShownGraph::State state)
{
    switch (state) {
    case ShownGraph::State::Parsing:
        if (m_shown->graph()) {
            draw(); // read already: only what its structure reads is left
        } else {
            showReading();
        }
        return;
    case ShownGraph::State::Structuring:
    case ShownGraph::State::Failed:
        draw();
        return;
    case ShownGraph::State::LayingOut:
        m_panels.area->primary()->setModules(m_shown->graph(), m_shown->structure());
        m_panels.inspector->setModules(m_shown->graph(), m_shown->structure());
        return;
    default:
        return;
    }
}

void ShownGraphPresenter::showReading()
{
    m_drawnRequest = 0;
    const auto* artifact = m_workspace->artifact(m_shown->ref());
    m_panels.area->showPending(
        m_title, tr("Reading %1 of graph code…")
                     .arg(views::RunTreeModel::linesText(artifact ? artifact->payloadLines : 0)));
    m_panels.inspector->clear();
    m_panels.code->setGraph(nullptr, {});
    Q_EMIT titleChanged();
}

// The graph of the request, once per request: its module groups follow (the first layout
// waits for them), and how the user left it comes back.
void ShownGraphPresenter::draw()
{
    if (m_drawnRequest == m_shown->requestId()) {
        return;
    }
    m_drawnRequest = m_shown->requestId();
    const views::GraphRef ref = m_shown->ref();
    const graph::GraphPtr graph = m_shown->graph();
    views::GraphView* view = m_panels.area->primary();
    m_panels.area->showGraph(graph, m_title,
                             graph && m_shown->state() != ShownGraph::State::Failed);
    if (const auto saved = m_viewStates.find({ref.run, ref.index});
        graph && saved != m_viewStates.end() && saved->second.graph == graph) {
        view->restoreViewState(saved->second.state);
    }
    m_panels.inspector->clear();
    std::vector<views::CodeText> code;
    for (const auto* text : m_workspace->outputCode(ref)) {
        const QString name = text->filename.empty()
                                 ? QStringLiteral("inductor_output_code")
                                 : QFileInfo(QString::fromStdString(text->filename)).fileName();
        code.push_back({tr("Output code: %1").arg(name), QString::fromStdString(text->text)});
    }
    m_panels.code->setGraph(graph, std::move(code));
    Q_EMIT titleChanged();
    if (ref.run >= 0) {
        m_panels.cache->setRun(ref.run);
        const auto lookups = m_workspace->lookupsForGraph(ref);
        if (!lookups.empty()) {
            m_panels.cache->selectLookup(lookups.front());
        }
    }
}

// Keeps how the shown graph was left, for when the user comes back to it.
void ShownGraphPresenter::rememberViewState()
{
    const views::GraphRef ref = m_shown->ref();
    views::GraphView* view = m_panels.area->primary();
    const graph::GraphPtr graph = m_workspace->graph(ref);
    if (!ref.valid() || !graph || view->graph() != graph) {
        return; // the welcome page, a graph being read, or a comparison in the view
    }
    if (auto state = view->viewState()) {
        m_viewStates[{ref.run, ref.index}] = {graph, std::move(*state)};
    }
}

} // namespace fxs::app
