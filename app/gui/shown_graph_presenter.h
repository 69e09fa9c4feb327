// ShownGraphPresenter: draws the ShownGraph's states in the window's panels — the "Reading N
// lines of graph code…" message while it is parsed, the graph in the primary view with its
// title, saved view state, output code and cache lookup once it is read, its module groups in
// the view and the Inspector once its structure is known — and keeps, for the session, how the
// user left each graph. Decides nothing about which graph is shown (ShownGraph does) and runs
// no work. GUI thread only.
#pragma once

#include "app/gui/shown_graph.h"
#include "views/graph/graph_view.h"
#include "views/models/workspace.h"

#include <QObject>
#include <QString>

#include <map>
#include <utility>

namespace fxs::views {
class CachePanel;
class CodePanel;
class InspectorPanel;
} // namespace fxs::views

namespace fxs::app {

class GraphArea;

class ShownGraphPresenter : public QObject {
    Q_OBJECT
public:
    struct Panels {
        GraphArea* area = nullptr;
        views::InspectorPanel* inspector = nullptr;
        views::CodePanel* code = nullptr;
        views::CachePanel* cache = nullptr;
    };
    ShownGraphPresenter(ShownGraph* shown, views::Workspace* workspace, Panels panels,
                        QObject* parent = nullptr);

    // Shows ref: remembers how the view was left on the graph shown, names the new one and
    // asks the ShownGraph for it.
    void show(views::GraphRef ref);
    // The primary view shows something else (a body): the next request draws afresh.
    void forgetDrawn() { m_drawnRequest = 0; }
    // Close All: no title, no remembered view states.
    void clear();
    // "1_cold.log · 0/0 · AOT forward" of the graph shown ("" on the welcome page).
    QString title() const { return m_title; }

Q_SIGNALS:
    void titleChanged();

private:
    void onState(ShownGraph::State state);
    void showReading();
    void draw();
    void rememberViewState();

    ShownGraph* m_shown;
    views::Workspace* m_workspace;
    Panels m_panels;
    QString m_title;
    int m_drawnRequest = 0; // the request whose graph the view shows
    // Per graph, for the session: how the user left it (expanded groups, zoom, centre); kept
    // with the graph it was taken on, so a reloaded graph opens fresh.
    struct SavedView {
        graph::GraphPtr graph;
        views::GraphView::ViewState state;
    };
    std::map<std::pair<int, int>, SavedView> m_viewStates;
};

} // namespace fxs::app
