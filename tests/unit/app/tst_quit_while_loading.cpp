// Quit while a load runs: a load that only returns when cancelled, and one that never returns
// (a reader blocked on a FIFO). In the process: Quit reports the load cancelled at once and the
// window goes away (bounded wait, the stuck worker is detached and later finishes). As a
// process (quit_while_loading helper, offscreen): fxscope's exit path ends it in every case,
// also with the real loader on a FIFO that has no writer.
#include "app/gui/workspace_loader.h"
#include "app/gui/main_window.h"
#include "tests/test_file.h"

#include <QAction>
#include <QGuiApplication>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::app::MainWindow;
using fxs::jobs::JobTracker;

namespace {

std::atomic<bool> g_release{false};

io::LoadResult pollsCancel(const std::vector<std::string>&, const CancelToken& cancel,
                           const ProgressSink&)
{
    while (!cancel.isCancelled()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return {};
}

// Ignores its token: returns only when the test releases it.
io::LoadResult ignoresCancel(const std::vector<std::string>&, const CancelToken&,
                             const ProgressSink&)
{
    while (!g_release.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return {};
}

// Starts a load with the given function and quits: the load is reported cancelled.
bool quitWhileLoading(MainWindow& w, app::WorkspaceLoader::LoadFunction load)
{
    w.jobs()->setLoadFunction(std::move(load));
    QSignalSpy finished(&w, &MainWindow::loadFinished);
    w.show();
    w.openPaths({QStringLiteral("never-ending")});
    if (!w.jobs()->isRunning()) {
        return false;
    }
    w.findChild<QAction*>(QStringLiteral("quitAction"))->trigger();
    return finished.wait(5000) && finished.first().at(0).toBool() && !w.isVisible() &&
           !w.jobs()->isRunning();
}

int runHelper(const QStringList& arguments)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p.start(QStringLiteral(QUIT_HELPER_PATH), arguments);
    if (!p.waitForStarted(10000)) {
        return -1;
    }
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return -2; // still running a minute after Quit
    }
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -3;
}

} // namespace

class TestQuitWhileLoading : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_quit_while_loading"));
        // Closing the window must not end the test's own event loops.
        QGuiApplication::setQuitOnLastWindowClosed(false);
    }

    void loadThatPollsCancel()
    {
        auto w = std::make_unique<MainWindow>();
        QVERIFY(quitWhileLoading(*w, &pollsCancel));
        w.reset(); // waits for the worker, which returns on its cancel
        QCOMPARE(JobTracker::detachedJobs(), 0);
    }

    void loadThatIgnoresCancel()
    {
        g_release = false;
        auto w = std::make_unique<MainWindow>();
        QVERIFY(quitWhileLoading(*w, &ignoresCancel));
        w->jobs()->tracker()->setShutdownWait(100);
        w.reset(); // gives up waiting: the worker is detached, the window is gone
        QCOMPARE(JobTracker::detachedJobs(), 1);
        g_release = true;
        QTRY_COMPARE(JobTracker::detachedJobs(), 0);
    }

    void processExitsAfterQuit_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("polls") << QStringLiteral("polls");
        QTest::newRow("ignores") << QStringLiteral("ignores");
    }

    void processExitsAfterQuit()
    {
        QFETCH(QString, mode);
        QCOMPARE(runHelper({mode}), 0);
    }

    void processExitsAfterQuitOnAFifo()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("pipe.log"));
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        QCOMPARE(runHelper({QStringLiteral("fifo"), fifo}), 0);
    }
};

QTEST_MAIN(TestQuitWhileLoading)
#include "tst_quit_while_loading.moc"

FXSCOPE_TEST_END
