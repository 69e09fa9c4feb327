// ShownGraph: the one owner of the life of the graph the app shows, as a state machine —
// requested → parsing (its code and the graphs its structure reads, in the WorkspaceLoader's
// background job) → structuring (the StructureController recovers its module tree) → laying
// out (the GraphView) → shown; failed (its code holds no readable graph) or cancelled (a body
// or nothing shown instead) on the way. The newest request wins: results about an older one
// are dropped. The window draws what each state asks for; controllers follow refChanged and
// graphReady instead of asking the window, the workspace or the view which graph is shown.
// Not a view and not a document; GUI thread only.
#pragma once

#include "core/graph/graph.h"
#include "core/structure/module_tree.h"
#include "views/models/workspace.h"

#include <QObject>
#include <QString>

#include <memory>

namespace fxs::app {

class WorkspaceLoader;

class ShownGraph : public QObject {
    Q_OBJECT
public:
    enum class State {
        None,        // nothing requested (the welcome page, Close All)
        Requested,   // passing: the request is taken, the next state follows at once
        Parsing,     // the loader reads its code (graph() set when it is read and only the
                     // graphs its structure reads are left)
        Structuring, // graph() known; waiting for setStructure
        LayingOut,   // structure() known (null when there is none); waiting for setLaidOut
        Shown,
        Failed,      // error() says why
        Cancelled,   // given up before it was shown (a body shown instead, cancel())
    };
    Q_ENUM(State)

    // A deferred graph of at most this many lines is parsed on request, on the GUI thread (a
    // couple of milliseconds), so that it shows at once instead of after a message.
    static constexpr int kInlineParseLines = 1000;

    // loader may be null (nothing deferred is ever parsed then: such graphs fail).
    ShownGraph(views::Workspace* workspace, WorkspaceLoader* loader, QObject* parent = nullptr);

    // Shows ref from now on (an invalid ref: nothing, State::None). Emits refChanged, then
    // walks as far as it can at once: a graph parsed already reaches Structuring before this
    // returns (graphReady emitted).
    void request(views::GraphRef ref);
    // Gives the request up (Cancelled when it was not shown yet, else None); ref() is invalid.
    void cancel();

    views::GraphRef ref() const { return m_ref; }
    State state() const { return m_state; }
    // Counts requests: tells a new request for the same graph from the one before.
    int requestId() const { return m_requestId; }
    graph::GraphPtr graph() const { return m_graph; }
    std::shared_ptr<const structure::ModuleTree> structure() const { return m_structure; }
    QString error() const { return m_error; }
    // True while the request is on its way (Requested … LayingOut).
    bool isPending() const;

    // The later steps report here; a report about another graph than the one requested now is
    // dropped. The structure (tree null: none found) moves Structuring to LayingOut; a layout
    // of graph() moves LayingOut to Shown.
    void setStructure(views::GraphRef ref, const graph::GraphPtr& graph,
                      std::shared_ptr<const structure::ModuleTree> tree);
    void setLaidOut(const graph::GraphPtr& graph);

Q_SIGNALS:
    // Which graph is shown changed (a new request, or none). Controllers that follow "the
    // current graph" listen here.
    void refChanged(fxs::views::GraphRef ref);
    void stateChanged(fxs::app::ShownGraph::State state);
    // ref is parsed, with the graphs its structure reads (emitted on entering Structuring,
    // after stateChanged): what the StructureController starts from.
    void graphReady(fxs::views::GraphRef ref, fxs::graph::GraphPtr graph);

private:
    void setState(State state);
    // Parsed (with what its structure reads): on to Structuring, or Failed.
    void onParsed();
    void onLoaderParsed(int id);

    views::Workspace* m_workspace;
    WorkspaceLoader* m_loader;
    views::GraphRef m_ref;
    State m_state = State::None;
    int m_requestId = 0;
    int m_parseId = 0; // the loader's request this one waits for (0: none)
    graph::GraphPtr m_graph;
    std::shared_ptr<const structure::ModuleTree> m_structure;
    QString m_error;
};

} // namespace fxs::app
