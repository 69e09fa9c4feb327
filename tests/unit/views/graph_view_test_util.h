// Helpers shared by the GraphView tests and the app tests that look at the graph view: read a
// fixture graph, wait for the background layout to settle. Test code only.
#pragma once

#include "core/io/graph_code_parser.h"
#include "views/graph/graph_view.h"

#include <QFile>
#include <QSignalSpy>

#include <initializer_list>
#include <vector>

namespace fxs::test {

// A graph-code fixture under FXSCOPE_TEST_DATA ("/fixtures/graphs/x.txt"); null when unreadable.
inline graph::GraphPtr loadFixture(const QString& relative)
{
    QFile file(QStringLiteral(FXSCOPE_TEST_DATA) + relative);
    if (!file.open(QIODevice::ReadOnly)) {
        return nullptr;
    }
    return io::parseGraphCode(file.readAll().toStdString(), file.fileName().toStdString()).graph;
}

// Ids of the named nodes of the view's graph, in the order given (each name must exist).
inline std::vector<graph::NodeId> nodeIds(const views::GraphView& view,
                                          std::initializer_list<const char*> names)
{
    std::vector<graph::NodeId> out;
    for (const char* n : names) {
        out.push_back(view.graph()->find(n).value());
    }
    return out;
}

// Waits until no layout is pending (20 s per step); false on timeout or a layout error.
inline bool waitForLayout(views::GraphView& view)
{
    QSignalSpy spy(&view, &views::GraphView::layoutFinished);
    while (view.isLayoutPending()) {
        if (!spy.wait(20000)) {
            return false;
        }
    }
    return view.lastError().isEmpty();
}

// Shows the graph with every group expanded, laid out: for tests about something other than
// how a graph opens (GPT-2's forward opens with its blocks' insides collapsed).
inline bool showWhole(views::GraphView& view, graph::GraphPtr graph)
{
    view.setGraph(std::move(graph));
    if (!waitForLayout(view)) {
        return false;
    }
    view.expandAll();
    return waitForLayout(view);
}

} // namespace fxs::test
