// GraphView's view state: expanded groups, zoom and centre, read and restored (the app keeps
// one per graph for the session and saves the shown graph's in projects).
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_view.h"

namespace fxs::views {

std::optional<GraphView::ViewState> GraphView::viewState() const
{
    if (!m_view || !m_graph) {
        return std::nullopt;
    }
    ViewState state;
    for (layout::GroupId id = 0; id < m_view->groups().size(); ++id) {
        if (id != layout::kRootGroup && m_view->isExpanded(id)) {
            state.expanded.push_back(id);
        }
    }
    if (m_pendingState) { // not laid out yet: what it will show
        state.zoom = m_pendingState->zoom;
        state.center = m_pendingState->center;
        return state;
    }
    state.zoom = m_canvas->zoom();
    state.center = m_canvas->mapToScene(m_canvas->viewport()->rect().center());
    return state;
}

void GraphView::restoreViewState(const ViewState& state)
{
    if (!m_view) {
        return;
    }
    expandOnly(state.expanded);
    m_pendingState = state;
    requestLayout(); // the newest request wins over setGraph's
}

void GraphView::expandOnly(const std::vector<layout::GroupId>& expanded)
{
    m_view->collapseAll();
    for (layout::GroupId id : expanded) {
        if (id < m_view->groups().size()) {
            m_view->setExpanded(id, true);
        }
    }
}

} // namespace fxs::views
