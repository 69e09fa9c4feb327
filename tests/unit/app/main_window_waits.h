// Test helper for offscreen MainWindow tests: open paths and wait for the load, wait for the
// primary view's layout. Shared by the compile and profile controller tests.
#pragma once

#include "app/gui/main_window.h"
#include "views/graph/graph_view.h"

#include <QSignalSpy>

namespace fxs::test {

inline bool openAndWait(app::MainWindow& w, const QStringList& paths)
{
    QSignalSpy done(&w, &app::MainWindow::loadFinished);
    w.openPaths(paths);
    return done.wait(60000) && !done.first().at(0).toBool();
}

inline bool waitForLayout(views::GraphView* view)
{
    QSignalSpy spy(view, &views::GraphView::layoutFinished);
    while (view->isLayoutPending()) {
        if (!spy.wait(20000)) {
            return false;
        }
    }
    return view->lastError().isEmpty();
}

} // namespace fxs::test
