// The Cache dock's explanations (offscreen): the panel asks, the app's CacheController answers.
// With the threshold at 0 every explanation runs on the controller's JobTracker, the panel says
// "Explaining…" meanwhile, the result equals the one computed on the GUI thread, and of two
// quick requests only the newest is applied.
#include "app/gui/cache_controller.h"
#include "core/io/loader.h"
#include "tests/test_file.h"
#include "views/models/workspace.h"
#include "views/panels/cache_panel.h"

#include <QSignalSpy>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;
using fxs::app::CacheController;

namespace {

// basic_cold then basic_config: the second run changed inductor's max_fusion_size (64 → 32).
void loadBasicRuns(Workspace& ws)
{
    const std::string dir = FXSCOPE_TEST_DATA "/fixtures/traces/";
    ws.add(io::loadPaths({dir + "basic_cold", dir + "basic_config"}));
}

} // namespace

class TestCachePanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void explainsInTheBackground()
    {
        Workspace ws;
        loadBasicRuns(ws);
        QCOMPARE(ws.runs().size(), std::size_t(2));
        CachePanel sync(&ws);
        CacheController syncAnswers(&sync);
        sync.setRun(1); // compared with the run before it, on the GUI thread (small runs)
        QVERIFY(!sync.isExplaining());
        QVERIFY2(sync.headlineText().contains(QStringLiteral("max_fusion_size")),
                 qPrintable(sync.headlineText()));

        CachePanel panel(&ws);
        CacheController answers(&panel);
        answers.setBackgroundThreshold(0);
        QSignalSpy ready(&panel, &CachePanel::explanationReady);
        panel.setRun(1);
        QVERIFY(panel.isExplaining());
        QVERIFY(answers.isExplaining());
        QCOMPARE(panel.headlineText(), QStringLiteral("Explaining…"));
        QVERIFY(ready.wait(30000));
        QVERIFY(!panel.isExplaining());
        QCOMPARE(panel.headlineText(), sync.headlineText());
        QCOMPARE(panel.diffModel()->rows().size(), sync.diffModel()->rows().size());
        QCOMPARE(panel.lookupModel()->rowCount(), sync.lookupModel()->rowCount());
    }

    void newestRequestWins()
    {
        Workspace ws;
        loadBasicRuns(ws);
        CachePanel expected(&ws);
        CacheController expectedAnswers(&expected);
        expected.setRun(1);
        expected.compareWithRun(-1); // earlier lookups of the same run
        const QString within = expected.headlineText();
        QVERIFY(!within.contains(QStringLiteral("max_fusion_size")));

        CachePanel panel(&ws);
        CacheController answers(&panel);
        answers.setBackgroundThreshold(0);
        QSignalSpy ready(&panel, &CachePanel::explanationReady);
        panel.setRun(1);          // run vs run ...
        panel.compareWithRun(-1); // ... replaced at once by "within the run"
        QVERIFY(ready.wait(30000));
        QTest::qWait(200); // time for a stale result to arrive, were it applied
        QCOMPARE(ready.count(), 1);
        QCOMPARE(panel.headlineText(), within);
    }

    void panelAloneAsksAndWaits()
    {
        Workspace ws;
        loadBasicRuns(ws);
        CachePanel panel(&ws);
        QSignalSpy asked(&panel, &CachePanel::explanationRequested);
        panel.setRun(1); // nobody answers: the panel runs nothing itself
        QCOMPARE(asked.count(), 1);
        QVERIFY(panel.isExplaining());
        QCOMPARE(panel.headlineText(), QStringLiteral("Explaining…"));
    }
};

QTEST_MAIN(TestCachePanel)
#include "tst_cache_panel.moc"

FXSCOPE_TEST_END
