// Build › Compile Regions in the app (offscreen MainWindow) on tests/data/compile/
// two_regions_fw.txt: two annotated regions (r0 = sin, mul, add; r1 = relu, tanh, mul_1, by
// hand from the `# Annotation:` lines) → Compile results has two rows, miss then (second run)
// hit, hulls tinted by state; a row selects the region's nodes and shows its C++, a node
// selects its row; cancelling at r0 stops before r1; the Cache browser lists what was built.
#include "app/gui/app_context.h"
#include "app/gui/cache_browser_controller.h"
#include "app/gui/compile_controller.h"
#include "app/gui/main_window.h"
#include "tests/test_file.h"
#include "tests/unit/app/main_window_waits.h"
#include "tests/unit/remote/redis_server.h"
#include "app/gui/region_controller.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/panels/cache_browser_panel.h"
#include "views/panels/compile_results_panel.h"
#include "views/panels/region_commands.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;
using fxs::app::CompileController;
using fxs::app::MainWindow;
using fxs::test::openAndWait;
using fxs::test::nodeIds;
using fxs::test::waitForLayout;

namespace {

const QString kGraph = QStringLiteral(FXSCOPE_TEST_DATA "/compile/two_regions_fw.txt");

bool compileAndWait(MainWindow& w)
{
    QSignalSpy done(w.compile(), &CompileController::finished);
    QAction* action = w.compile()->compileAction();
    if (action->shortcut() != QKeySequence(QStringLiteral("Ctrl+B"))) {
        return false;
    }
    action->trigger();
    return done.wait(120000);
}

QStringList states(const CompileResultsPanel* panel)
{
    QStringList out;
    const auto* m = panel->model();
    for (int r = 0; r < m->rowCount(); ++r) {
        out << m->index(r, CompileResultsModel::StateColumn).data().toString();
    }
    return out;
}

QColor hullTint(const MainWindow& w, const char* region)
{
    const HullItem* hull = w.graphView()->scene()->hullItem(QString::fromLatin1(region));
    return hull != nullptr ? hull->tint() : QColor();
}

} // namespace

class TestCompileController : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_cacheDir;

    // A fresh cache database in dir, the fixture open and laid out, 1 timed run per region.
    void openFixture(MainWindow& w, const QTemporaryDir& dir)
    {
        w.compile()->setCachePath(dir.path() + "/cache.db");
        QVERIFY(openAndWait(w, {kGraph}));
        QVERIFY(waitForLayout(w.graphView()));
        RegionDocument* doc = w.regions()->currentDocument();
        QVERIFY(doc != nullptr);
        QCOMPARE(doc->regions().size(), std::size_t(2));
        w.compile()->setTimingRepeats(1);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_compile_controller"));
        qputenv("FXSCOPE_CACHE_DIR", (m_cacheDir.path() + "/default").toUtf8());
    }

    void buildMenuAndDocks()
    {
        MainWindow w;
        QCOMPARE(w.compile()->cachePath(), m_cacheDir.path() + "/default/cache.db");
        QStringList menus;
        for (QAction* a : w.menuBar()->actions()) {
            menus << a->text();
        }
        QVERIFY2(menus.indexOf("&Build") >= 0 && menus.indexOf("&Build") < menus.indexOf("&Help"),
                 qPrintable(menus.join(',')));
        QVERIFY(w.findChild<QDockWidget*>("compileResultsDock") != nullptr);
        QVERIFY(w.findChild<QDockWidget*>("cacheBrowserDock") != nullptr);
        // Nothing open: refused with a message, no job.
        QVERIFY(!w.compile()->compileRegions());
        QVERIFY(!w.compile()->isRunning());
    }

    void missThenHitWithTints()
    {
        QTemporaryDir dir;
        MainWindow w;
        openFixture(w, dir);
        QVERIFY(compileAndWait(w));
        CompileResultsPanel* panel = w.compile()->resultsPanel();
        QCOMPARE(panel->model()->rowCount(), 2);
        QCOMPARE(states(panel), (QStringList{"miss", "miss"}));
        QCOMPARE(hullTint(w, "r0"), regionStateColor(compile::RegionState::Miss));
        QCOMPARE(hullTint(w, "r1"), regionStateColor(compile::RegionState::Miss));

        QVERIFY(compileAndWait(w));
        QCOMPARE(states(panel), (QStringList{"hit", "hit"}));
        QCOMPARE(hullTint(w, "r0"), regionStateColor(compile::RegionState::Hit));
        QCOMPARE(hullTint(w, "r1"), regionStateColor(compile::RegionState::Hit));
        QVERIFY(hullTint(w, "r0") != regionStateColor(compile::RegionState::Miss));

        // Editing the regions makes the results stale: the tints go back to the regions' own.
        RegionDocument* doc = w.regions()->currentDocument();
        QVERIFY(doc->deleteRegion(QStringLiteral("r1")));
        QVERIFY(hullTint(w, "r0").isValid());
        QVERIFY(hullTint(w, "r0") != regionStateColor(compile::RegionState::Hit));
        QVERIFY(panel->summaryText().contains(QStringLiteral("regions changed")));
        doc->undoStack()->undo();
        QVERIFY(hullTint(w, "r0") != regionStateColor(compile::RegionState::Hit));

        // The browser reads the same database: one entry per region.
        CacheBrowserPanel* browser = w.cacheBrowser()->panel();
        QSignalSpy loaded(browser, &CacheBrowserPanel::loaded);
        browser->reload();
        QVERIFY(loaded.wait(10000));
        QCOMPARE(browser->model()->rowCount(), 2);
    }

    // The Cache browser's remote field is the app's setting: compile on one database builds
    // and writes to Redis; on a fresh database (another machine) both regions are remote hits.
    void remoteTierFromTheCacheBrowser()
    {
        if (test::RedisServer::executable().isEmpty()) {
            QSKIP("redis-server is not installed (Debian package redis-server)");
        }
        test::RedisServer redis;
        QString error;
        QVERIFY2(redis.start(error), qPrintable(error));
        qputenv("FXSCOPE_CACHE_KEY", "team key");
        QTemporaryDir first;
        QTemporaryDir second;
        MainWindow w;
        openFixture(w, first);
        auto* edit = w.cacheBrowser()->panel()->findChild<QLineEdit*>("remoteUrlEdit");
        QVERIFY(edit != nullptr);
        const QString url = QString::fromStdString(redis.urlText());
        edit->setText(url);
        edit->setModified(true);
        Q_EMIT edit->editingFinished();
        QCOMPARE(w.context()->remoteUrl(), url);
        QVERIFY(compileAndWait(w));
        CompileResultsPanel* panel = w.compile()->resultsPanel();
        QCOMPARE(states(panel), (QStringList{"miss", "miss"}));
        w.compile()->setCachePath(second.path() + "/cache.db");
        QVERIFY(compileAndWait(w));
        QCOMPARE(states(panel), (QStringList{"hit", "hit"}));
        for (int r = 0; r < 2; ++r) {
            const QString headline =
                panel->model()->index(r, CompileResultsModel::HeadlineColumn).data().toString();
            QVERIFY2(headline.startsWith("hit: remote hit (" + url + ")"), qPrintable(headline));
        }
        qunsetenv("FXSCOPE_CACHE_KEY");
    }

    void rowsAndGraphSelectionFollowEachOther()
    {
        QTemporaryDir dir;
        MainWindow w;
        openFixture(w, dir);
        QVERIFY(compileAndWait(w));
        CompileResultsPanel* panel = w.compile()->resultsPanel();
        const int r1 = panel->model()->rowOf(QStringLiteral("r1"));
        QVERIFY(r1 >= 0);
        panel->view()->selectRow(r1); // unsorted: proxy rows = model rows
        auto selected = w.graphView()->selectedNodes();
        std::sort(selected.begin(), selected.end());
        auto expected = nodeIds(w, {"relu", "tanh", "mul_1"});
        std::sort(expected.begin(), expected.end());
        QCOMPARE(selected, expected);
        // The generated C++ is shown; its kernel comment names the FX nodes it covers.
        QVERIFY(panel->sourceText().contains(QStringLiteral("tanh")));
        QVERIFY(!panel->sourceText().contains(QStringLiteral("torch/")));

        w.selectNode(nodeIds(w, {"mul"}).front());
        const QModelIndex current = panel->view()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.siblingAtColumn(CompileResultsModel::RegionColumn).data().toString(),
                 QStringLiteral("r0 (3 nodes)"));
    }

    void cancelStopsBeforeTheNextRegion()
    {
        QTemporaryDir dir;
        MainWindow w;
        openFixture(w, dir);
        QSignalSpy done(w.compile(), &CompileController::finished);
        // started comes on the GUI thread before the worker starts: take the run's token there;
        // progress comes from the worker before each region: cancel as r0 starts.
        auto token = std::make_shared<CancelToken>();
        connect(w.compile(), &CompileController::started, this,
                [&w, token] { *token = w.compile()->cancelToken(); });
        connect(
            w.compile(), &CompileController::progress, w.compile(),
            [token](double, const QString& phase) {
                if (phase.startsWith(QStringLiteral("r0"))) {
                    token->cancel();
                }
            },
            Qt::DirectConnection);
        // The phase reads whole in a label of its own; the bar shows the percentage only.
        QStringList phases;
        connect(w.compile(), &CompileController::progress, this, [&w, &phases] {
            const auto* label = w.findChild<QLabel*>(QStringLiteral("compileProgressLabel"));
            phases << (label ? label->text() : QStringLiteral("no label"));
            const auto* bar = w.findChild<QProgressBar*>();
            phases << (bar ? bar->format() : QString());
        });
        QVERIFY(w.compile()->compileRegions());
        QVERIFY(done.wait(120000));
        QCOMPARE(done.first().at(0).toBool(), true);
        QVERIFY2(!phases.filter(QRegularExpression(QStringLiteral("^Compiling r0 \\(1/\\d+\\)$")))
                      .isEmpty(),
                 qPrintable(phases.join('|')));
        QVERIFY(phases.contains(QStringLiteral("%p%")));
        CompileResultsPanel* panel = w.compile()->resultsPanel();
        QCOMPARE(panel->model()->rowCount(), 1);
        QCOMPARE(panel->model()->rows().front().region, QStringLiteral("r0"));
        QVERIFY(panel->summaryText().contains(QStringLiteral("cancelled")));
        QCOMPARE(hullTint(w, "r0"), regionStateColor(compile::RegionState::Miss));
        QVERIFY(hullTint(w, "r1") != regionStateColor(compile::RegionState::Miss));
        QVERIFY(!w.compile()->isRunning());
    }
};

QTEST_MAIN(TestCompileController)
#include "tst_compile_controller.moc"

FXSCOPE_TEST_END
