// A newcomer's first session (issue: polish): the bundled sample opens on the run whose misses
// an earlier run explains; a project and a graph given together on the command line both open;
// the title names the project and marks unsaved regions; Save suggests a name; closing with
// unsaved regions asks; a multi-selection shows its count and ops; a refused path's highlight
// clears on the next selection or Esc; a graph comparison's panes share the width and scroll
// together; Ctrl+F, Ctrl+0 and the zoom keys work with focus on the canvas (one owner per
// shortcut); Help › Getting Started and the welcome page's button show the guide; the toolbar
// holds the main actions; each graph keeps its expansion, zoom and place for the session and in
// saved projects.
#include "tests/test_file.h"
#include "tests/unit/app/main_window_waits.h"

#include "app/gui/getting_started.h"
#include "app/gui/graph_area.h"
#include "app/gui/main_window.h"
#include "app/gui/region_controller.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/graph/find_bar.h"
#include "views/graph/graph_view.h"
#include "views/panels/cache_panel.h"
#include "views/panels/inspector_panel.h"
#include "views/panels/region_commands.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolBar>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;
using fxs::app::MainWindow;
using fxs::app::RegionController;
using fxs::views::GraphCanvas;
using fxs::test::nodeIds;
using fxs::test::openAndWait;

namespace {

const QString kSample = QStringLiteral(FXSCOPE_SAMPLES_DIR "/cache_miss_then_hit");
const QString kGpt2 = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/gpt2_annotated_fw.txt");
const QString kResnet = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/resnet18_infer.txt");

model::Run run(const char* path, std::initializer_list<model::CacheState> states)
{
    model::Run r;
    r.path = path;
    for (model::CacheState s : states) {
        model::CacheLookup lookup;
        lookup.state = s;
        r.lookups.push_back(lookup);
    }
    return r;
}

// Answers the next "unsaved regions" question with `button` once it is shown.
void answerUnsavedQuestion(QMessageBox::StandardButton button, bool* asked)
{
    QTimer::singleShot(0, [button, asked] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (box && box->objectName() == QLatin1String("unsavedRegionsBox")) {
            *asked = true;
            box->button(button)->click();
        }
    });
}

// A window showing gpt2_annotated_fw.txt with one region edit not saved.
void openWithAnEdit(MainWindow& w)
{
    QVERIFY(openAndWait(w, {kGpt2}));
    QVERIFY(!w.isWindowModified());
    w.graphView()->setSelectedNodes(nodeIds(w, {"t_5", "addmm_3"}));
    QVERIFY(w.regions()->createFromSelection());
}

} // namespace

class TestAppPolish : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_app_polish"));
    }

    void runToOpenPrefersExplainedMisses()
    {
        using S = model::CacheState;
        // cold → warm: the cold run's misses have nothing before them; the newest run opens.
        QCOMPARE(MainWindow::runToOpen({run("cold", {S::Miss}), run("warm", {S::Hit})}, false),
                 std::string("warm"));
        // cold → warm → changed config: the changed run's misses are explained by the others.
        QCOMPARE(MainWindow::runToOpen({run("cold", {S::Miss}), run("warm", {S::Hit}),
                                        run("config", {S::Miss, S::Hit}), run("empty", {})},
                                       false),
                 std::string("config"));
        // One run with misses, added to a workspace that has runs: explained by those.
        QCOMPARE(MainWindow::runToOpen({run("cold", {S::Miss})}, true), std::string("cold"));
        QCOMPARE(MainWindow::runToOpen({run("cold", {S::Miss})}, false), std::string("cold"));
        QCOMPARE(MainWindow::runToOpen({}, false), std::string());
    }

    void theSampleOpensOnTheExplainedMiss()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kSample}));
        QCOMPARE(w.workspace()->runs().size(), std::size_t(3));
        CachePanel* cache = w.cachePanel();
        QCOMPARE(w.workspace()->runName(cache->run()), QStringLiteral("3_config.log"));
        // The miss is selected and its headline names the setting that changed.
        QVERIFY(cache->currentLookup().valid());
        const auto* lookup = w.workspace()->lookup(cache->currentLookup());
        QVERIFY(lookup && lookup->state == model::CacheState::Miss);
        const QString headline = cache->headlineText();
        QVERIFY2(headline.contains(QStringLiteral("max_fusion_size")), qPrintable(headline));
    }

    void projectAndGraphOnTheCommandLine()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("gpt2.fxscope"));
        std::size_t regions = 0;
        {
            MainWindow w;
            openWithAnEdit(w);
            regions = w.regions()->currentDocument()->regions().size();
            QVERIFY(w.regions()->saveProject(project));
            QVERIFY(!w.isWindowModified()); // saved: no marker
        }
        // `fxscope gpt2.fxscope resnet18_infer.txt`: both open, the project's regions too.
        MainWindow w;
        QSignalSpy opened(w.regions(), &RegionController::projectOpened);
        QSignalSpy loads(&w, &MainWindow::loadFinished);
        w.openPaths({project, kResnet});
        QVERIFY(opened.wait(60000));
        QCOMPARE(loads.count(), 1); // one load request for both
        QCOMPARE(loads.first().at(0).toBool(), false);
        QCOMPARE(w.workspace()->graphFiles().size(), std::size_t(2));
        QCOMPARE(w.regions()->currentDocument()->regions().size(), regions);
        QCOMPARE(w.regions()->projectPath(), project);
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("gpt2.fxscope[*]")),
                 qPrintable(w.windowTitle()));
        QVERIFY(!w.isWindowModified());
        // An edit marks the title; undoing it clears the mark.
        QVERIFY(w.regions()->currentDocument()->deleteRegion(QStringLiteral("r1")));
        QVERIFY(w.isWindowModified());
        w.regions()->currentDocument()->undoStack()->undo();
        QVERIFY(!w.isWindowModified());
    }

    void saveSuggestsAFileName()
    {
        QTemporaryDir dir;
        const QString graph = dir.filePath(QStringLiteral("model_fw.txt"));
        QCOMPARE(RegionController::suggestedProjectPath({}, graph),
                 dir.filePath(QStringLiteral("model_fw.fxscope")));
        QCOMPARE(RegionController::suggestedProjectPath({}, dir.path()),
                 QFileInfo(dir.path()).dir().filePath(QFileInfo(dir.path()).fileName() +
                                                      QStringLiteral(".fxscope")));
        QCOMPARE(RegionController::suggestedProjectPath(QStringLiteral("/p/x.fxscope"), graph),
                 QStringLiteral("/p/x.fxscope"));
    }

    void closingWithUnsavedRegionsAsks()
    {
        MainWindow w;
        w.show();
        openWithAnEdit(w);
        QVERIFY(w.isWindowModified());
        bool asked = false;
        answerUnsavedQuestion(QMessageBox::Cancel, &asked);
        QVERIFY(!w.close()); // cancelled: the window stays
        QVERIFY(asked);
        asked = false;
        answerUnsavedQuestion(QMessageBox::Discard, &asked);
        QVERIFY(w.close());
        QVERIFY(asked);
    }

    void closingWithoutEditsDoesNotAsk()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, {kGpt2}));
        bool asked = false;
        answerUnsavedQuestion(QMessageBox::Cancel, &asked);
        QVERIFY(w.close());
        QVERIFY(!asked);
    }

    void gettingStartedFromHelpAndTheWelcomePage()
    {
        MainWindow w;
        w.show();
        auto* help = w.findChild<QAction*>(QStringLiteral("gettingStartedAction"));
        QVERIFY(help);
        QCOMPARE(help->shortcut(), QKeySequence(QKeySequence::HelpContents));
        help->trigger();
        auto* dialog = w.findChild<app::GettingStartedDialog*>();
        QVERIFY(dialog && dialog->isVisible());
        const QString text = app::GettingStartedDialog::html();
        for (const char* dock : {"Navigator", "Inspector", "Cache", "Regions", "Problems"}) {
            QVERIFY2(text.contains(QLatin1String(dock)), dock);
        }
        QVERIFY(text.contains(QStringLiteral("Three workflows")));
        dialog->hide();
        auto* welcome = w.findChild<QPushButton*>(QStringLiteral("welcomeGettingStarted"));
        QVERIFY(welcome && welcome->isVisible()); // an empty window shows it
        welcome->click();
        QVERIFY(dialog->isVisible());
        QCOMPARE(w.findChildren<app::GettingStartedDialog*>().size(), qsizetype(1));
    }

    void comparisonPanesSplitEvenlyAndScrollTogether()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(openAndWait(w, {QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold")}));
        CachePanel* cache = w.cachePanel();
        // The forward and backward fx lookups hold different graph code (gm).
        cache->lookupView()->setCurrentIndex(cache->lookupModel()->index(2, 0));
        cache->compareWithLookup(1);
        auto* button = cache->findChild<QPushButton*>();
        QVERIFY(button && button->isEnabled());
        button->click();
        app::GraphArea* area = w.graphArea();
        QVERIFY(area->isComparing());
        auto* split = area->findChild<QSplitter*>(QStringLiteral("comparisonSplitter"));
        QVERIFY(split);
        QCOMPARE(split->sizes().size(), 2);
        QTRY_VERIFY2(std::abs(split->sizes()[0] - split->sizes()[1]) <= split->handleWidth() + 2,
                     qPrintable(QStringLiteral("%1 vs %2")
                                    .arg(split->sizes()[0])
                                    .arg(split->sizes()[1])));
        QVERIFY(split->sizes()[0] > 250);
        QVERIFY(fxs::test::waitForLayout(area->primary()));
        QVERIFY(fxs::test::waitForLayout(area->secondary()));
        for (int i = 0; i < 6; ++i) { // zoomed in: both panes scroll
            area->primary()->zoomIn();
            area->secondary()->zoomIn();
        }
        QScrollBar* a = area->secondary()->canvas()->verticalScrollBar();
        QScrollBar* b = area->primary()->canvas()->verticalScrollBar();
        QVERIFY(a->maximum() > a->minimum() && b->maximum() > b->minimum());
        b->setValue(b->maximum());
        QCOMPARE(a->value(), a->maximum());
        a->setValue(a->minimum());
        QCOMPARE(b->value(), b->minimum());
    }

    void multiSelectionShowsCountAndOps()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGpt2}));
        QVERIFY(fxs::test::waitForLayout(w.graphView()));
        // gpt2_annotated_fw.txt lines 106, 107, 119: t_5 = aten.t, addmm_3 and addmm_4 = aten.addmm.
        w.graphView()->setSelectedNodes(nodeIds(w, {"t_5", "addmm_3", "addmm_4"}));
        const QString text = w.inspector()->plainText();
        QVERIFY2(text.startsWith(QStringLiteral("3 nodes selected")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("2 × addmm")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("1 × t")), qPrintable(text));
        // Back to one node: its details, no count.
        w.graphView()->setSelectedNodes(nodeIds(w, {"addmm_3"}));
        QVERIFY(!w.inspector()->plainText().contains(QStringLiteral("selected")));
        QVERIFY(w.inspector()->plainText().startsWith(QStringLiteral("addmm_3")));
    }

    void refusedPathHighlightClearsOnSelectionOrEsc()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, {kGpt2}));
        QVERIFY(fxs::test::waitForLayout(w.graphView()));
        const auto highlighted = [&w] {
            auto* item = w.graphView()->scene()->nodeItem(nodeIds(w, {"getitem_10"})[0]);
            return item && item->isMarkedHighlighted();
        };
        // A region of these two would be left and re-entered (see tst_region_controller).
        const auto refuse = [&w] {
            w.graphView()->setSelectedNodes(nodeIds(w, {"native_layer_norm_2", "add_4"}));
            const bool refused = !w.regions()->createFromSelection();
            return refused && fxs::test::waitForLayout(w.graphView()); // its groups open
        };
        QVERIFY(refuse());
        QVERIFY(highlighted());
        w.graphView()->setSelectedNodes(nodeIds(w, {"gelu"})); // the next selection
        QVERIFY(!highlighted());
        QVERIFY(refuse());
        QVERIFY(highlighted());
        QTest::keyClick(w.graphView()->canvas(), Qt::Key_Escape);
        QVERIFY(!highlighted());
    }

    void shortcutsWorkWithFocusOnTheCanvas()
    {
        static QStringList warnings;
        warnings.clear();
        const QtMessageHandler previous = qInstallMessageHandler(
            [](QtMsgType, const QMessageLogContext&, const QString& message) {
                warnings << message;
            });
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.activateWindow();
        QVERIFY(openAndWait(w, {kGpt2}));
        QVERIFY(fxs::test::waitForLayout(w.graphView()));
        GraphCanvas* canvas = w.graphView()->canvas();
        canvas->setFocus();
        QTRY_VERIFY(canvas->hasFocus());
        const qreal fitted = canvas->zoom();
        QTest::keyClick(canvas, Qt::Key_Plus, Qt::ControlModifier);
        const qreal zoomed = canvas->zoom();
        QTest::keyClick(canvas, Qt::Key_Minus, Qt::ControlModifier);
        const qreal back = canvas->zoom();
        QTest::keyClick(canvas, Qt::Key_Plus, Qt::ControlModifier);
        QTest::keyClick(canvas, Qt::Key_0, Qt::ControlModifier);
        const qreal refitted = canvas->zoom();
        QVERIFY(!w.graphView()->findBar()->isVisible());
        QTest::keyClick(canvas, Qt::Key_F, Qt::ControlModifier);
        const bool findShown = w.graphView()->findBar()->isVisible();
        qInstallMessageHandler(previous);
        QVERIFY2(qFuzzyCompare(zoomed, fitted * 1.25), qPrintable(QString::number(zoomed / fitted)));
        QVERIFY(qFuzzyCompare(back, fitted));
        QVERIFY(qFuzzyCompare(refitted, fitted));
        QVERIFY(findShown);
        for (const QString& message : warnings) {
            QVERIFY2(!message.contains(QStringLiteral("Ambiguous shortcut")), qPrintable(message));
        }
    }

    void viewStateIsKeptPerGraph()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(openAndWait(w, {kGpt2, kResnet}));
        const GraphRef gpt2{GraphRef::kStandalone, 0};
        const GraphRef resnet{GraphRef::kStandalone, 1};
        w.showGraph(resnet);
        GraphView* view = w.graphView();
        QVERIFY(fxs::test::waitForLayout(view));
        view->collapseAll();
        QVERIFY(fxs::test::waitForLayout(view));
        view->setGroupExpanded(2, true);
        QVERIFY(fxs::test::waitForLayout(view));
        view->zoomIn();
        QTest::qWait(50); // the scroll range follows the zoom on the next turn
        const auto left = view->viewState();
        QVERIFY(left);
        // Away and back: the same groups open, the same zoom and place.
        w.showGraph(gpt2);
        QVERIFY(fxs::test::waitForLayout(view));
        QVERIFY(view->viewState()->expanded != left->expanded);
        w.showGraph(resnet);
        QVERIFY(fxs::test::waitForLayout(view));
        QTest::qWait(50); // the restored centre is applied again once the scroll range follows
        const auto back = view->viewState();
        QCOMPARE(back->expanded, left->expanded);
        QVERIFY(qFuzzyCompare(back->zoom, left->zoom));
        // The same place up to the view's scroll step: one viewport pixel is 1/zoom scene units.
        const double tolerance = std::max(2.0, 1.5 / left->zoom);
        QVERIFY2(std::abs(back->center.x() - left->center.x()) < tolerance &&
                     std::abs(back->center.y() - left->center.y()) < tolerance,
                 qPrintable(QStringLiteral("%1,%2 vs %3,%4")
                                .arg(back->center.x()).arg(back->center.y())
                                .arg(left->center.x()).arg(left->center.y())));
        // Saved in a project and restored from it.
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("resnet.fxscope"));
        QVERIFY(w.regions()->saveProject(project));
        MainWindow w2;
        w2.resize(1280, 800);
        w2.show();
        QSignalSpy opened(w2.regions(), &RegionController::projectOpened);
        w2.openPaths({project});
        QVERIFY(opened.wait(60000));
        QVERIFY(fxs::test::waitForLayout(w2.graphView()));
        const auto reopened = w2.graphView()->viewState();
        QCOMPARE(reopened->expanded, left->expanded);
        QVERIFY(qFuzzyCompare(reopened->zoom, left->zoom));
    }

    void firstRunWindowFitsTheScreen()
    {
        MainWindow w; // the first-run size, or the size the last test left (both clamped)
        const QRect screen = w.screen()->availableGeometry();
        QVERIFY2(w.width() <= screen.width() && w.height() <= screen.height(),
                 qPrintable(QStringLiteral("%1x%2 on %3x%4")
                                .arg(w.width()).arg(w.height())
                                .arg(screen.width()).arg(screen.height())));
    }

    // The canvas keeps at least 60 % of the window's height on a first run (the bottom docks
    // grew to half the window before), and View › Reset Layout brings that back after a dock
    // was made tall.
    void canvasKeepsMostOfTheWindowAndLayoutResets()
    {
        QSettings().remove(QStringLiteral("mainWindow/state")); // a first run
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const auto canvasShare = [&w] {
            return double(w.centralWidget()->height()) / double(w.height());
        };
        QTRY_VERIFY2(canvasShare() >= 0.6, qPrintable(QString::number(canvasShare())));
        auto* cache = w.findChild<QDockWidget*>(QStringLiteral("cacheDock"));
        QVERIFY(cache);
        w.resizeDocks({cache}, {600}, Qt::Vertical);
        QTRY_VERIFY2(canvasShare() < 0.5, qPrintable(QString::number(canvasShare())));
        auto* reset = w.findChild<QAction*>(QStringLiteral("resetLayoutAction"));
        QVERIFY(reset);
        reset->trigger();
        QTRY_VERIFY2(canvasShare() >= 0.6, qPrintable(QString::number(canvasShare())));
        QVERIFY(cache->isVisible());
    }

    void toolbarHoldsTheMainActions()
    {
        MainWindow w;
        auto* bar = w.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        QVERIFY(bar);
        QStringList names;
        for (QAction* a : bar->actions()) {
            if (!a->isSeparator()) {
                names << a->objectName();
            }
        }
        QCOMPARE(names, (QStringList{QStringLiteral("openAction"), QStringLiteral("findNodeAction"),
                                     QStringLiteral("fitAction"),
                                     QStringLiteral("compileRegionsAction"),
                                     QStringLiteral("profileGraphAction")}));
        // The same actions as the menus: one owner per shortcut.
        QCOMPARE(bar->actions().first()->shortcut(), QKeySequence(QKeySequence::Open));
    }
};

QTEST_MAIN(TestAppPolish)
#include "tst_app_polish.moc"

FXSCOPE_TEST_END
