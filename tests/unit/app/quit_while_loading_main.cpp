// Test helper process for tst_quit_while_loading: opens the main window offscreen, starts a
// load that never finishes on its own, triggers File › Quit (by object name) once the load has
// started, and ends the way fxscope's main() does. Modes: "polls" (the load returns when
// cancelled), "ignores" (it never returns), "fifo PATH" (the real loader on a FIFO with no
// writer: the open blocks). Test code only.
#include "app/gui/workspace_loader.h"
#include "app/gui/main_window.h"
#include "app/gui/shutdown.h"

#include <QAction>
#include <QApplication>
#include <QStandardPaths>
#include <QTimer>

#include <chrono>
#include <thread>

using namespace fxs;

namespace {

io::LoadResult pollsCancel(const std::vector<std::string>&, const CancelToken& cancel,
                           const ProgressSink&)
{
    while (!cancel.isCancelled()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return {};
}

[[noreturn]] io::LoadResult ignoresCancel(const std::vector<std::string>&, const CancelToken&,
                                          const ProgressSink&)
{
    for (;;) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // window state goes to the test settings
    QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("quit_while_loading"));
    const QString mode = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    int exitCode = 0;
    {
        app::MainWindow window;
        QString path = QStringLiteral("never-ending");
        if (mode == QLatin1String("polls")) {
            window.jobs()->setLoadFunction(&pollsCancel);
        } else if (mode == QLatin1String("ignores")) {
            window.jobs()->setLoadFunction(&ignoresCancel);
        } else if (mode == QLatin1String("fifo") && argc > 2) {
            path = QString::fromLocal8Bit(argv[2]);
        } else {
            return 2;
        }
        QObject::connect(window.jobs(), &app::WorkspaceLoader::started, &window, [&window] {
            QTimer::singleShot(100, &window, [&window] {
                window.findChild<QAction*>(QStringLiteral("quitAction"))->trigger();
            });
        });
        window.show();
        window.openPaths({path});
        exitCode = QApplication::exec();
    }
    return app::finishProcess(exitCode);
}
