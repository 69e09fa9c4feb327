// Build › Profile Graph in the app (offscreen MainWindow) on tests/data/compile/
// two_regions_fw.txt: the Profile dock fills, the graph overlay colours follow the time shares
// (the node with the largest share is the darkest, lightness never rises with share, and it
// matches the legend's 100 % stop), table row ↔ graph node selection both ways, exports
// (CSV, Chrome trace, saved profile) and opening the saved profile again; a TORCH_TRACE run
// (gpt_cold) feeds the compile-phase timeline.
#include "app/gui/app_context.h"
#include "app/gui/main_window.h"
#include "tests/test_file.h"
#include "tests/unit/app/main_window_waits.h"
#include "app/gui/profile_controller.h"
#include "core/trace_profile/chrome_trace.h"
#include "core/profile/profile_file.h"
#include "core/util/file_reader.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/panels/bar_list.h"
#include "views/panels/navigator_panel.h"
#include "views/panels/phase_timeline.h"
#include "views/panels/profile_panel.h"

#include <QAction>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;
using fxs::app::MainWindow;
using fxs::test::openAndWait;
using fxs::test::waitForLayout;
using fxs::app::ProfileController;

namespace {

const QString kGraph = QStringLiteral(FXSCOPE_TEST_DATA "/compile/two_regions_fw.txt");
const QString kLlama =
    QStringLiteral(FXSCOPE_TEST_DATA "/recorded/graphs/llama24_train_graph0.txt.gz");

QAction* actionNamed(QWidget* root, const char* name)
{
    return root->findChild<QAction*>(QString::fromLatin1(name));
}

} // namespace

class TestProfileController : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    bool profileAndWait(MainWindow& w)
    {
        QSignalSpy done(w.profile(), &ProfileController::finished);
        w.profile()->setRepeat(2);
        QAction* action = actionNamed(&w, "profileGraphAction");
        if (action == nullptr) {
            return false;
        }
        action->trigger();
        return done.wait(120000) && !done.first().at(0).toBool();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_profile_controller"));
        qputenv("FXSCOPE_CACHE_DIR", (m_dir.path() + "/cache").toUtf8());
    }

    void overlayFollowsShares()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGraph}));
        QVERIFY(waitForLayout(w.graphView()));
        QVERIFY(profileAndWait(w));
        const profile::RuntimeProfile& p = w.profile()->panel()->model()->profile();
        QCOMPARE(p.nodes.size(), std::size_t(7)); // sin mul add mm relu tanh mul_1
        QCOMPARE(p.regions.size(), std::size_t(2));
        const graph::Graph& g = *w.graphView()->graph();
        std::vector<std::pair<double, QColor>> byShare;
        for (const auto& n : p.nodes) {
            const NodeItem* item = w.graphView()->scene()->nodeItem(g.find(n.name).value());
            QVERIFY(item != nullptr);
            QVERIFY2(item->overlay().has_value(), n.name.c_str());
            byShare.emplace_back(n.share, *item->overlay());
        }
        std::sort(byShare.begin(), byShare.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t i = 1; i < byShare.size(); ++i) {
            QVERIFY(byShare[i].second.lightnessF() <= byShare[i - 1].second.lightnessF() + 1e-6);
        }
        // The largest share is the darkest colour, the legend's last stop.
        const auto legend = ProfileModel::legend(p);
        QCOMPARE(byShare.back().second, legend.back().second);
        QVERIFY(byShare.back().second.lightnessF() < byShare.front().second.lightnessF() ||
                byShare.back().first == byShare.front().first);
        // Each node's eager median goes with its colour (a collapsed group sums them).
        const auto& amounts = w.context()->decorations()->nodeAmounts();
        QCOMPARE(amounts.unit, QStringLiteral("ms"));
        QCOMPARE(amounts.values.size(), p.nodes.size());
        for (const auto& n : p.nodes) {
            QCOMPARE(amounts.values.at(g.find(n.name).value()), n.eager.medianMs);
        }
    }

    void selectionBothWays()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGraph}));
        QVERIFY(waitForLayout(w.graphView()));
        QVERIFY(profileAndWait(w));
        ProfilePanel* panel = w.profile()->panel();
        const graph::Graph& g = *w.graphView()->graph();
        // Table row → graph node.
        const int row = panel->model()->rowOf(QStringLiteral("tanh"));
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(panel->view()->model());
        QVERIFY(proxy != nullptr);
        panel->view()->selectRow(proxy->mapFromSource(panel->model()->index(row, 0)).row());
        QCOMPARE(w.graphView()->selectedNode(), g.find("tanh"));
        // Graph node → table row.
        w.selectNode(g.find("mm").value());
        const QModelIndex current = proxy->mapToSource(panel->view()->currentIndex());
        QCOMPARE(panel->model()->index(current.row(), ProfileModel::NameColumn).data().toString(),
                 QStringLiteral("mm"));
    }

    // Profiling the same graph again reuses the first profile's timings (the graph has no
    // module names: one unit, the whole graph), a changed option does not.
    void reprofileReusesTheUnchangedGraph()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGraph}));
        QVERIFY(profileAndWait(w));
        QCOMPARE(w.profile()->memo().lastStats().unitsReused, std::size_t(0));
        QCOMPARE(w.profile()->memo().lastStats().engineRuns, 3); // warm-up + 2 timed
        const auto first = w.profile()->panel()->model()->profile().nodes;
        QVERIFY(profileAndWait(w));
        const auto stats = w.profile()->memo().lastStats();
        QCOMPARE(stats.unitsReused, stats.units);
        QVERIFY(stats.units >= 1);
        QCOMPARE(stats.engineRuns, 1); // the warm-up the region compiler takes its inputs from
        const auto second = w.profile()->panel()->model()->profile().nodes;
        QCOMPARE(second.size(), first.size());
        for (std::size_t i = 0; i < first.size(); ++i) {
            QCOMPARE(second[i].eager, first[i].eager);
        }
        QSignalSpy done(w.profile(), &ProfileController::finished);
        w.profile()->setRepeat(3); // more timed runs: another key, every unit timed again
        QVERIFY(w.profile()->profileGraph());
        QVERIFY(done.wait(120000));
        QCOMPARE(w.profile()->memo().lastStats().unitsReused, std::size_t(0));
        QCOMPARE(w.profile()->memo().lastStats().engineRuns, 4);
    }

    // On the 24-layer LLaMA at 1920×1080 the chart's bars read whole and name their node's
    // module ("block 10 · mm_74", not "mm…74").
    void chartLabelsNameModulesInTheDock()
    {
        MainWindow w;
        w.resize(1920, 1080);
        w.show();
        QVERIFY(openAndWait(w, {kLlama}));
        QVERIFY(waitForLayout(w.graphView()));
        QVERIFY(profileAndWait(w));
        QTest::qWait(50);
        const BarList* chart = w.profile()->panel()->topChart();
        QVERIFY(chart->isVisible());
        QVERIFY2(chart->width() > 300, qPrintable(QString::number(chart->width())));
        const QStringList labels = chart->displayedLabels();
        QCOMPARE(labels.size(), qsizetype(ProfilePanel::kTopN));
        QStringList whole;
        for (const auto& item : chart->items()) {
            whole << item.label;
        }
        QCOMPARE(labels, whole); // nothing elided
        const auto named = std::count_if(labels.begin(), labels.end(), [](const QString& l) {
            return l.startsWith(QStringLiteral("block ")) && l.contains(BarList::pathSeparator());
        });
        QVERIFY2(named >= ProfilePanel::kTopN / 2, qPrintable(labels.join(QLatin1Char('|'))));
    }

    void cancelStopsTheRun()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGraph}));
        QSignalSpy done(w.profile(), &ProfileController::finished);
        w.profile()->setRepeat(100000); // far longer than the test waits
        QVERIFY(w.profile()->profileGraph());
        QVERIFY(w.profile()->isRunning());
        QVERIFY(!w.profile()->profileGraph()); // one at a time
        w.profile()->panel()->cancelRequested(); // the panel's Cancel button
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().at(0).toBool(), true);
        QVERIFY(!w.profile()->isRunning());
        QVERIFY(!w.profile()->hasProfile());
    }

    void exportsAndReopens()
    {
        MainWindow w;
        QVERIFY(!w.profile()->exportProfile(m_dir.path() + "/none.csv",
                                            ProfileController::ExportFormat::Csv));
        QVERIFY(openAndWait(w, {kGraph}));
        QVERIFY(profileAndWait(w));
        const QString csv = m_dir.path() + "/p.csv";
        const QString trace = m_dir.path() + "/p.json";
        const QString saved = m_dir.path() + "/p.fxprofile";
        QVERIFY(w.profile()->exportProfile(csv, ProfileController::ExportFormat::Csv));
        QVERIFY(w.profile()->exportProfile(trace, ProfileController::ExportFormat::ChromeTrace));
        QVERIFY(w.profile()->exportProfile(saved, ProfileController::ExportFormat::Saved));
        auto text = readFile(csv.toStdString());
        QVERIFY(text.ok());
        QVERIFY(text->rfind("kind,name,target", 0) == 0);
        // 7 node rows + 2 region rows + the header.
        QCOMPARE(std::count(text->begin(), text->end(), '\n'), std::ptrdiff_t(10));
        auto json = readFile(trace.toStdString());
        QVERIFY(json.ok());
        QVERIFY(profile::validateChromeTrace(*json).ok());
        const profile::RuntimeProfile shown = w.profile()->panel()->model()->profile();
        auto loaded = profile::loadProfile(saved.toStdString());
        QVERIFY(loaded.ok());
        QVERIFY(*loaded == shown);

        MainWindow other;
        QVERIFY(other.profile()->openProfile(saved));
        QVERIFY(other.profile()->hasProfile());
        QVERIFY(other.profile()->panel()->model()->profile() == shown);
        QVERIFY(!other.profile()->openProfile(m_dir.path() + "/missing.fxprofile"));
    }

    // A graph the engine cannot run (a Dynamo-level graph: torch.nn.functional calls) fails to
    // profile: the panel says why and stays saying it (the status bar's message times out),
    // with a link that profiles the compile's AOT forward graph instead; the next profile's
    // start takes the failure away, a profile that runs shows its runs' line.
    void failureStaysInThePanel()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold")}));
        QVERIFY(w.currentGraph().run >= 0);
        QSignalSpy failed(w.profile(), &ProfileController::failed);
        QAction* action = actionNamed(&w, "profileGraphAction");
        QVERIFY(action != nullptr);
        action->trigger();
        QVERIFY(failed.wait(120000));
        ProfilePanel* panel = w.profile()->panel();
        QVERIFY(panel->failureShown());
        const QString text = panel->statusLabel()->text();
        QVERIFY2(text.contains(QStringLiteral("failed")) &&
                     text.contains(QStringLiteral("cannot run")),
                 qPrintable(text));
        QVERIFY(text.contains(failed.first().at(0).toString().toHtmlEscaped()));
        QTest::qWait(50);
        QCOMPARE(panel->statusLabel()->text(), text); // no timer takes it away
        // The link offers the compile's AOT forward graph, which the engine runs; following it
        // shows that graph and profiles it.
        QVERIFY2(text.contains(QStringLiteral("Profile 0/0 · AOT forward instead")),
                 qPrintable(text));
        QSignalSpy done(w.profile(), &ProfileController::finished);
        Q_EMIT panel->alternativeRequested();
        QVERIFY(done.wait(120000));
        QCOMPARE(done.first().at(0).toBool(), false);
        QCOMPARE(w.workspace()->artifact(w.currentGraph())->kind,
                 std::string("aot_forward_graph"));
        QVERIFY(w.navigator()->currentGraph() == w.currentGraph()); // shown as if picked there
        QVERIFY(!panel->failureShown());
        QVERIFY(!panel->model()->profile().nodes.empty());
        const QString afterwards = panel->statusLabel()->text();

        QVERIFY(afterwards.contains(QStringLiteral(" runs, median ")));
        panel->showFailure(QStringLiteral("y"));
        panel->setBusy(true); // the next attempt starts: the failure goes
        QVERIFY(!panel->failureShown());
        QCOMPARE(panel->statusLabel()->text(), afterwards); // the last profile's line again
        panel->setBusy(false);
        panel->showFailure(QStringLiteral("x"));
        profile::RuntimeProfile p;
        p.repeat = 3;
        panel->setProfile(p);
        QVERIFY(!panel->failureShown());
        QVERIFY(panel->statusLabel()->text().startsWith(QStringLiteral("3 runs")));
    }

    void torchTraceRunFeedsTheTimeline()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold")}));
        QVERIFY(w.currentGraph().run >= 0);
        // 101 B/E pairs in the log for compile 0/0 (see tst_phase_timeline).
        QCOMPARE(int(w.profile()->panel()->phaseTimeline()->bars().size()), 101);
    }
};

QTEST_MAIN(TestProfileController)
#include "tst_profile_controller.moc"

FXSCOPE_TEST_END
