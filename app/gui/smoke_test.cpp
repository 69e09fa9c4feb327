#include "app/gui/smoke_test.h"

#include "app/gui/workspace_loader.h"
#include "app/gui/main_window.h"
#include "views/models/workspace.h"

#include <QApplication>
#include <QTimer>

#include <cstdio>

namespace fxs::app {

int runSmokeTest(MainWindow& window, const QStringList& paths, int timeoutMs)
{
    // Queued: the project a load finishes opening (its own slot on the same signal) goes first.
    QObject::connect(
        &window, &MainWindow::loadFinished, qApp,
        [](bool cancelled) { QCoreApplication::exit(cancelled ? 2 : 0); }, Qt::QueuedConnection);
    const int before = window.jobs()->latest();
    window.openPaths(paths);
    int code = 0;
    if (window.jobs()->latest() != before) { // a load started: its result arrives in the loop
        QTimer::singleShot(timeoutMs, qApp, [] { QCoreApplication::exit(3); });
        code = QApplication::exec();
    }
    const views::Workspace* ws = window.workspace();
    const std::size_t errors = ws->diagnostics().errorCount();
    std::printf("fxscope: %zu run(s), %zu graph file(s), %zu error(s); window: %s\n",
                ws->runs().size(), ws->graphFiles().size(), errors,
                window.windowTitle().toUtf8().constData());
    std::fflush(stdout);
    if (code == 0 && (ws->isEmpty() || errors > 0)) {
        code = 1;
    }
    return code;
}

} // namespace fxs::app
