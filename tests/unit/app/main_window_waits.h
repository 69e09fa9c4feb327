// Test helper for offscreen MainWindow tests: open paths and wait for the load, wait for the
// primary view's layout, name the nodes it shows, find a graph of a kind. Shared by the
// MainWindow tests.
#pragma once

#include "app/gui/main_window.h"
#include "tests/unit/views/graph_view_test_util.h"
#include "views/graph/graph_view.h"
#include "views/models/workspace.h"

#include <QSignalSpy>

#include <string_view>

namespace fxs::test {

inline bool openAndWait(app::MainWindow& w, const QStringList& paths)
{
    QSignalSpy done(&w, &app::MainWindow::loadFinished);
    w.openPaths(paths);
    return done.wait(60000) && !done.first().at(0).toBool();
}

inline bool waitForLayout(views::GraphView* view)
{
    return waitForLayout(*view);
}

// Ids of the named nodes of the graph the window shows, in the order given.
inline std::vector<graph::NodeId> nodeIds(const app::MainWindow& w,
                                          std::initializer_list<const char*> names)
{
    return nodeIds(*w.graphView(), names);
}

// The ordinal-th graph of kind ("dynamo_output_graph") in the workspace's run; invalid if none.
inline views::GraphRef graphOfKind(const views::Workspace& ws, std::string_view kind, int run = 0,
                                   int ordinal = 0)
{
    const auto& graphs = ws.runs().at(static_cast<std::size_t>(run))->graphs;
    for (std::size_t k = 0; k < graphs.size(); ++k) {
        if (graphs[k].kind == kind && ordinal-- == 0) {
            return {run, static_cast<int>(k)};
        }
    }
    return {};
}

} // namespace fxs::test
