// JobTracker: only the newest generation delivers, stale results are dropped, the work polls
// its token, progress is newest-only and coalesced, abandon() returns at once, the destructor
// waits for a worker that polls cancel and detaches (bounded) one that ignores it, and a
// cancelled worker that stays blocked does not hold up new jobs.
#include "tests/test_file.h"
#include "views/jobs/job_tracker.h"

#include <QSignalSpy>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

FXSCOPE_TEST_BEGIN

using fxs::CancelToken;
using fxs::ProgressSink;
using fxs::jobs::JobTracker;

namespace {

// Released by the test; a blocked worker that ignores its token waits for it.
struct Gate {
    std::atomic<bool> open{false};
    void wait() const
    {
        while (!open.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
};

// Returns when cancelled (or after ~20 s, so that a broken tracker fails instead of hanging).
bool waitForCancel(const CancelToken& token)
{
    for (int i = 0; i < 10000 && !token.isCancelled(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return token.isCancelled();
}

} // namespace

class TestJobTracker : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void deliversOnTheTrackerThread()
    {
        JobTracker tracker;
        QSignalSpy running(&tracker, &JobTracker::runningChanged);
        QThread* guiThread = QThread::currentThread();
        QThread* doneThread = nullptr;
        QThread* workThread = nullptr;
        int value = 0;
        const int generation = tracker.start(
            [&workThread](const CancelToken&, const ProgressSink&) {
                workThread = QThread::currentThread();
                return 42;
            },
            [&](int v) {
                value = v;
                doneThread = QThread::currentThread();
            });
        QCOMPARE(generation, 1);
        QVERIFY(tracker.isRunning());
        QVERIFY(tracker.isCurrent(generation));
        QTRY_COMPARE(value, 42);
        QCOMPARE(doneThread, guiThread);
        QVERIFY(workThread != guiThread);
        QVERIFY(!tracker.isRunning());
        QCOMPARE(running.size(), 2); // true, then false
        QCOMPARE(running.at(0).at(0).toBool(), true);
        QCOMPARE(running.at(1).at(0).toBool(), false);
    }

    void runningChangedComesBeforeTheWork()
    {
        JobTracker tracker;
        connect(&tracker, &JobTracker::runningChanged, this, [&tracker](bool running) {
            if (running) {
                tracker.currentToken().cancel(); // the new job's token, before it runs
            }
        });
        std::optional<bool> sawCancel;
        tracker.start([](const CancelToken& token, const ProgressSink&) { return token.isCancelled(); },
                      [&sawCancel](bool cancelled) { sawCancel = cancelled; });
        QTRY_VERIFY(sawCancel.has_value());
        QCOMPARE(*sawCancel, true);
    }

    void staleResultsAreDropped()
    {
        JobTracker tracker;
        auto gate = std::make_shared<Gate>();
        auto firstToken = std::make_shared<CancelToken>();
        QStringList delivered;
        tracker.start(
            [gate, firstToken](const CancelToken& token, const ProgressSink&) {
                *firstToken = token;
                gate->wait(); // ignores its token: returns late, after the second job
                return QStringLiteral("first");
            },
            [&delivered](QString s) { delivered << s; });
        const int second = tracker.start(
            [](const CancelToken&, const ProgressSink&) { return QStringLiteral("second"); },
            [&delivered](QString s) { delivered << s; });
        QCOMPARE(second, 2);
        QTRY_COMPARE(delivered, QStringList{QStringLiteral("second")});
        QVERIFY(firstToken->isCancelled()); // superseded
        gate->open = true;
        QVERIFY(tracker.waitForWorkers(10000));
        QCoreApplication::processEvents(); // the first job's finish arrives ...
        QTest::qWait(50);
        QCOMPARE(delivered, QStringList{QStringLiteral("second")}); // ... and is dropped
        QVERIFY(!tracker.isRunning());
    }

    void cancelIsPolledAndTheNewestStillDelivers()
    {
        JobTracker tracker;
        std::optional<bool> sawCancel;
        tracker.start([](const CancelToken& token, const ProgressSink&) { return waitForCancel(token); },
                      [&sawCancel](bool cancelled) { sawCancel = cancelled; });
        QVERIFY(!tracker.currentToken().isCancelled());
        tracker.cancel();
        QVERIFY(tracker.isRunning()); // the job decides what a cancelled result is
        QTRY_VERIFY(sawCancel.has_value());
        QCOMPARE(*sawCancel, true);
    }

    void abandonReturnsAtOnceAndDrops()
    {
        JobTracker tracker;
        auto gate = std::make_shared<Gate>();
        bool delivered = false;
        tracker.start([gate](const CancelToken&, const ProgressSink&) { gate->wait(); return 1; },
                      [&delivered](int) { delivered = true; });
        tracker.abandon();
        QVERIFY(!tracker.isRunning());
        QCOMPARE(tracker.runningWorkers(), 1);
        gate->open = true;
        QVERIFY(tracker.waitForWorkers(10000));
        QTest::qWait(50);
        QVERIFY(!delivered);
    }

    void progressIsNewestOnlyAndCoalesced()
    {
        JobTracker tracker;
        QList<QPair<int, QString>> seen; // queued to this thread
        connect(&tracker, &JobTracker::progress, this,
                [&seen](int generation, double, const QString& phase) { seen.append({generation, phase}); });
        auto gate = std::make_shared<Gate>();
        tracker.start(
            [gate](const CancelToken&, const ProgressSink& sink) {
                gate->wait();
                fxs::reportProgress(sink, 0.1, "stale"); // generation 1 is no longer the newest
                return 0;
            },
            [](int) {});
        bool done = false;
        const int newest = tracker.start(
            [](const CancelToken&, const ProgressSink& sink) {
                fxs::reportProgress(sink, 0.5, "a");
                fxs::reportProgress(sink, 0.501, "a"); // same percent and phase: dropped
                fxs::reportProgress(sink, 0.5, "b");   // phase change: sent
                fxs::reportProgress(sink, 0.6, "b");   // percent change: sent
                return 0;
            },
            [&done](int) { done = true; });
        QTRY_VERIFY(done);
        gate->open = true;
        QVERIFY(tracker.waitForWorkers(10000));
        QTest::qWait(50);
        const QList<QPair<int, QString>> expected{{newest, "a"}, {newest, "b"}, {newest, "b"}};
        QCOMPARE(seen, expected);
    }

    void destructorWaitsForAWorkerThatPollsCancel()
    {
        auto returned = std::make_shared<std::atomic<bool>>(false);
        auto tracker = std::make_unique<JobTracker>();
        bool delivered = false;
        tracker->start(
            [returned](const CancelToken& token, const ProgressSink&) {
                waitForCancel(token);
                *returned = true;
                return 0;
            },
            [&delivered](int) { delivered = true; });
        tracker.reset(); // cancels, waits for the worker; must not hang
        QVERIFY(returned->load());
        QCOMPARE(JobTracker::detachedJobs(), 0);
        QTest::qWait(20);
        QVERIFY(!delivered);
    }

    void destructorDetachesAWorkerThatIgnoresCancel()
    {
        auto gate = std::make_shared<Gate>();
        auto tracker = std::make_unique<JobTracker>();
        tracker->setShutdownWait(50);
        tracker->start([gate](const CancelToken&, const ProgressSink&) { gate->wait(); return 0; },
                       [](int) {});
        tracker.reset(); // gives up after the bounded wait
        QCOMPARE(JobTracker::detachedJobs(), 1);
        gate->open = true;
        QTRY_COMPARE(JobTracker::detachedJobs(), 0);
    }

    void blockedCancelledWorkersDoNotHoldUpNewJobs()
    {
        // More blocked, abandoned workers than the pool has threads (at least 4).
        auto gate = std::make_shared<Gate>();
        std::vector<std::unique_ptr<JobTracker>> blocked;
        const int count = std::max(8, 2 * QThread::idealThreadCount());
        for (int i = 0; i < count; ++i) {
            blocked.push_back(std::make_unique<JobTracker>());
            blocked.back()->start(
                [gate](const CancelToken&, const ProgressSink&) { gate->wait(); return 0; },
                [](int) {});
            blocked.back()->abandon();
        }
        JobTracker tracker;
        bool delivered = false;
        tracker.start([](const CancelToken&, const ProgressSink&) { return 1; },
                      [&delivered](int) { delivered = true; });
        QTRY_VERIFY_WITH_TIMEOUT(delivered, 10000);
        gate->open = true;
        for (auto& t : blocked) {
            QVERIFY(t->waitForWorkers(10000));
        }
    }

    void shutDownTrackerRefusesNewJobs()
    {
        JobTracker tracker;
        tracker.shutdown();
        QCOMPARE(tracker.start([](const CancelToken&, const ProgressSink&) { return 0; },
                               [](int) {}),
                 0);
        QVERIFY(!tracker.isRunning());
    }
};

QTEST_GUILESS_MAIN(TestJobTracker)
#include "tst_job_tracker.moc"

FXSCOPE_TEST_END
