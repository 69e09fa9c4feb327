// WorkspaceLoader: loads run on a worker, the newest request wins, cancel reaches the worker's
// token, progress arrives on the GUI thread; directories of separate processes split per log.
#include "app/gui/workspace_loader.h"
#include "tests/test_file.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <fstream>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::app::WorkspaceLoader;

namespace {

// Waits until cancelled (or ~5 s), reporting progress once; returns one diagnostic naming
// the first path so results can be told apart.
io::LoadResult slowLoad(const std::vector<std::string>& paths, const CancelToken& cancel,
                        const ProgressSink& progress)
{
    reportProgress(progress, 0.5, "halfway");
    for (int i = 0; i < 500 && !cancel.isCancelled(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    io::LoadResult r;
    r.diagnostics.note(paths.empty() ? "" : paths.front(), 0, "done");
    return r;
}

io::LoadResult quickLoad(const std::vector<std::string>& paths, const CancelToken&,
                         const ProgressSink&)
{
    io::LoadResult r;
    r.diagnostics.note(paths.empty() ? "" : paths.front(), 0, "done");
    return r;
}

} // namespace

class TestWorkspaceLoader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cancelReachesTheWorker()
    {
        WorkspaceLoader runner(&slowLoad, nullptr);
        QSignalSpy finished(&runner, &WorkspaceLoader::finished);
        QSignalSpy cancelled(&runner, &WorkspaceLoader::cancelled);
        QSignalSpy progress(&runner, &WorkspaceLoader::progress);
        const int id = runner.load({QStringLiteral("a")});
        QVERIFY(runner.isRunning());
        QVERIFY(progress.wait(5000));
        QCOMPARE(progress.first().at(1).toDouble(), 0.5);
        runner.cancel();
        QVERIFY(cancelled.wait(5000));
        QCOMPARE(cancelled.first().at(0).toInt(), id);
        QCOMPARE(finished.size(), 0);
        QVERIFY(!runner.isRunning());
    }

    void newestRequestWins()
    {
        WorkspaceLoader runner(&quickLoad, nullptr);
        QSignalSpy finished(&runner, &WorkspaceLoader::finished);
        QSignalSpy cancelled(&runner, &WorkspaceLoader::cancelled);
        runner.load({QStringLiteral("first")});
        const int second = runner.load({QStringLiteral("second")});
        QTRY_VERIFY_WITH_TIMEOUT(!runner.isRunning(), 5000);
        QCoreApplication::processEvents();
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.first().at(0).toInt(), second);
        const auto result = finished.first().at(1).value<std::shared_ptr<io::LoadResult>>();
        QVERIFY(result);
        QCOMPARE(result->diagnostics.items().front().file, std::string("second"));
        QCOMPARE(cancelled.size(), 0); // the superseded request is dropped silently
    }

    void destructionWaitsForWork()
    {
        auto runner = std::make_unique<WorkspaceLoader>(&slowLoad, nullptr);
        runner->load({QStringLiteral("a")});
        runner.reset(); // cancels and joins; must not crash or hang
        QVERIFY(true);
    }

    // The directory rule is core's (io::planDirectory), the CLI's too: the app only calls it.
    void splitsDirectoriesOfSeparateProcesses()
    {
        auto load = [](const std::string& path) {
            return WorkspaceLoader::defaultLoad({path}, CancelToken::none(), {});
        };
        const auto split = load(FXSCOPE_SAMPLES_DIR "/cache_miss_then_hit");
        QCOMPARE(split.runs.size(), std::size_t(3));
        QVERIFY(split.runs[0].path.ends_with("1_cold.log"));
        QVERIFY(split.runs[1].path.ends_with("2_warm.log"));
        QVERIFY(split.runs[2].path.ends_with("3_config.log"));
        // One log: the directory stays the run (named after it).
        const std::string cold = FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold";
        const auto one = load(cold);
        QCOMPARE(one.runs.size(), std::size_t(1));
        QCOMPARE(one.runs[0].path, cold);
        // Per-rank logs of one distributed run stay together, each with its file's rank.
        QTemporaryDir dir;
        std::ifstream in(FXSCOPE_TEST_DATA
                         "/fixtures/traces/basic_cold/dedicated_log_torch_trace_octthcir.log");
        const std::string log((std::istreambuf_iterator<char>(in)), {});
        QVERIFY(!log.empty());
        for (const char* name : {"dedicated_log_torch_trace_rank_0_a.log",
                                 "dedicated_log_torch_trace_rank_1_b.log"}) {
            std::ofstream(dir.filePath(QString::fromLatin1(name)).toStdString()) << log;
        }
        const auto ranks = load(dir.path().toStdString());
        QCOMPARE(ranks.runs.size(), std::size_t(1));
        QCOMPARE(ranks.runs[0].path, dir.path().toStdString());
        QCOMPARE(ranks.runs[0].graphs.back().rank, 1);
    }

    void loadsTheSampleAsThreeRuns()
    {
        WorkspaceLoader runner;
        QSignalSpy finished(&runner, &WorkspaceLoader::finished);
        runner.load({QStringLiteral(FXSCOPE_SAMPLES_DIR "/cache_miss_then_hit")});
        QVERIFY(finished.wait(60000));
        const auto result = finished.first().at(1).value<std::shared_ptr<io::LoadResult>>();
        QCOMPARE(result->runs.size(), std::size_t(3));
        QVERIFY(result->runs[0].path.ends_with("1_cold.log"));
    }
};

QTEST_MAIN(TestWorkspaceLoader)
#include "tst_workspace_loader.moc"

FXSCOPE_TEST_END
