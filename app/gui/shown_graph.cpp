#include "app/gui/shown_graph.h"

#include "app/gui/workspace_loader.h"
#include "core/structure/structure.h"

#include <algorithm>

namespace fxs::app {

namespace {

// The graphs a graph's structure recovery reads, itself first (a run's graph: its companions
// of the same compile; a standalone graph: itself).
std::vector<views::GraphRef> graphsToRead(const views::Workspace& ws, views::GraphRef ref)
{
    if (ref.run < 0 || static_cast<std::size_t>(ref.run) >= ws.runs().size()) {
        return {ref};
    }
    std::vector<views::GraphRef> out;
    const auto& run = *ws.runs()[static_cast<std::size_t>(ref.run)];
    for (const std::size_t index : structure::graphsReadFor(run, std::size_t(ref.index))) {
        out.push_back({ref.run, static_cast<int>(index)});
    }
    return out;
}

} // namespace

ShownGraph::ShownGraph(views::Workspace* workspace, WorkspaceLoader* loader, QObject* parent)
    : QObject(parent), m_workspace(workspace), m_loader(loader)
{
    if (m_loader != nullptr) {
        connect(m_loader, &WorkspaceLoader::parsed, this, &ShownGraph::onLoaderParsed);
    }
}

bool ShownGraph::isPending() const
{
    return m_state == State::Requested || m_state == State::Parsing ||
           m_state == State::Structuring || m_state == State::LayingOut;
}

void ShownGraph::setState(State state)
{
    m_state = state;
    Q_EMIT stateChanged(state);
}

void ShownGraph::request(views::GraphRef ref)
{
    ++m_requestId;
    m_ref = ref;
    m_parseId = 0;
    m_graph.reset();
    m_structure.reset();
    m_error.clear();
    Q_EMIT refChanged(ref);
    const model::GraphArtifact* artifact = m_workspace->artifact(ref);
    if (artifact == nullptr) {
        m_ref = {};
        setState(State::None);
        return;
    }
    const int request = m_requestId;
    setState(State::Requested);
    if (request != m_requestId) {
        return; // a listener asked for another graph meanwhile
    }
    if (m_loader != nullptr && artifact->parsePending() &&
        artifact->payloadLines <= kInlineParseLines) {
        m_loader->parseNow(ref); // a small graph: read at once rather than flash a message
    }
    m_graph = m_workspace->graph(ref);
    const auto needed = graphsToRead(*m_workspace, ref);
    const bool pending = std::any_of(needed.begin(), needed.end(), [this](views::GraphRef r) {
        return m_workspace->parsePending(r);
    });
    if (pending && m_loader != nullptr) {
        m_parseId = m_loader->ensureParsed(needed);
        if (m_parseId != 0) {
            setState(State::Parsing);
            return;
        }
    }
    onParsed();
}

void ShownGraph::cancel()
{
    const bool pending = isPending();
    ++m_requestId;
    m_ref = {};
    m_parseId = 0;
    m_graph.reset();
    m_structure.reset();
    m_error.clear();
    Q_EMIT refChanged(m_ref);
    setState(pending ? State::Cancelled : State::None);
}

void ShownGraph::onLoaderParsed(int id)
{
    if (m_state != State::Parsing || id != m_parseId) {
        return; // about an older request
    }
    m_parseId = 0;
    onParsed();
}

void ShownGraph::onParsed()
{
    m_graph = m_workspace->graph(m_ref);
    if (!m_graph) {
        m_error = m_workspace->parsePending(m_ref)
                      ? tr("the graph code was not read")
                      : tr("the graph code holds no readable graph (see Problems)");
        setState(State::Failed);
        return;
    }
    const int request = m_requestId;
    setState(State::Structuring);
    if (request == m_requestId) {
        Q_EMIT graphReady(m_ref, m_graph);
    }
}

void ShownGraph::setStructure(views::GraphRef ref, const graph::GraphPtr& graph,
                              std::shared_ptr<const structure::ModuleTree> tree)
{
    if (m_state != State::Structuring || ref != m_ref || graph != m_graph) {
        return;
    }
    m_structure = std::move(tree);
    setState(State::LayingOut);
}

void ShownGraph::setLaidOut(const graph::GraphPtr& graph)
{
    if (m_state != State::LayingOut || !graph || graph != m_graph) {
        return;
    }
    setState(State::Shown);
}

} // namespace fxs::app
