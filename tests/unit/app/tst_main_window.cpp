// The main window end to end (offscreen): open fixtures in the background, navigate to a
// graph, select a node → inspector and code panel; cache panel headline for basic_cold vs
// basic_config; lookup selection selects its graph; problems with file:line; cancel a load.
#include "app/gui/graph_area.h"
#include "app/gui/workspace_loader.h"
#include "app/gui/main_window.h"
#include "app/gui/structure_controller.h"
#include "core/structure/module_tree.h"
#include "tests/test_file.h"
#include "tests/unit/views/graph_view_test_util.h"
#include "views/models/run_tree_model.h"
#include "views/graph/graph_view.h"
#include "views/panels/cache_panel.h"
#include "views/panels/code_panel.h"
#include "views/panels/inspector_panel.h"
#include "views/panels/navigator_panel.h"
#include "views/panels/problems_panel.h"

#include <QHeaderView>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <graphviz/graphviz_version.h>
#include <sqlite3.h>
#include <torch/version.h>

#include <fstream>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;
using fxs::app::MainWindow;

namespace {

QString trace(const char* name)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/") + QLatin1String(name);
}

bool openAndWait(MainWindow& w, const QStringList& paths)
{
    QSignalSpy done(&w, &MainWindow::loadFinished);
    w.openPaths(paths);
    return done.wait(60000) && !done.first().at(0).toBool();
}

GraphRef graphOfKind(const Workspace& ws, int run, std::string_view kind, int ordinal = 0)
{
    const auto& graphs = ws.runs()[std::size_t(run)]->graphs;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        if (graphs[i].kind == kind && ordinal-- == 0) {
            return GraphRef{run, int(i)};
        }
    }
    return {};
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_main_window"));
    }

    void opensAFixtureAndShowsAGraph()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {trace("basic_cold")}));
        QCOMPARE(w.workspace()->runs().size(), std::size_t(1));
        QVERIFY(w.currentGraph().valid());
        QVERIFY(w.graphView()->graph() != nullptr);
        QCOMPARE(w.navigator()->model()->rowCount(), 1);
        QVERIFY(w.navigator()->currentGraph() == w.currentGraph());
    }

    void selectingANodeFillsInspectorAndCode()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {trace("basic_cold")}));
        const GraphRef fwd = graphOfKind(*w.workspace(), 0, "aot_forward_graph");
        w.navigator()->view()->setCurrentIndex(
            w.navigator()->view()->model()->index(0, 0)); // the run row: no graph
        w.navigator()->selectGraph(fwd);
        w.showGraph(fwd);
        const auto graph = w.graphView()->graph();
        QVERIFY(graph);
        QCOMPARE(graph, w.workspace()->graph(fwd));
        const auto mm = graph->find("mm");
        QVERIFY(mm);
        w.selectNode(*mm);
        // basic_cold line 1198: mm = torch.ops.aten.mm.default(sin, primals_2)
        QVERIFY(w.inspector()->plainText().contains(QStringLiteral("aten::mm.default")));
        QVERIFY(w.inspector()->plainText().contains(QStringLiteral("scenario.py")));
        // The payload starts on line 1190 (after the envelope on 1189): mm is its 9th line.
        QCOMPARE(w.codePanel()->highlightedLine(), 9);
        // Two inductor_output_code payloads for compile 0/0 besides the graph code.
        QCOMPARE(w.codePanel()->sourceCount(), 3);
        // A reference in the inspector selects that node.
        Q_EMIT w.inspector()->nodeLinkActivated(*graph->find("sin"));
        QVERIFY(w.inspector()->plainText().contains(QStringLiteral("aten::sin.default")));
        QCOMPARE(w.graphView()->selectedNode(), graph->find("sin"));
    }

    // Logs open with their graphs counted, not parsed. A large graph (llama24's backward,
    // over 1000 lines) is read in the background with a message in the view; the run tree
    // shows its line count until then. Small graphs (basic_cold's) show at once.
    void largeGraphIsReadInTheBackground()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {QStringLiteral(FXSCOPE_TEST_DATA "/recorded/traces/llama24.log.gz")}));
        const Workspace& ws = *w.workspace();
        const GraphRef bwd = graphOfKind(ws, 0, "aot_backward_graph");
        QVERIFY(bwd.valid());
        const int lines = ws.artifact(bwd)->payloadLines;
        QVERIFY(lines > MainWindow::kInlineParseLines);
        QVERIFY(ws.parsePending(bwd));
        const QModelIndex row = w.navigator()->model()->indexOf(bwd);
        const QModelIndex nodes = row.siblingAtColumn(RunTreeModel::NodesColumn);
        QCOMPARE(nodes.data().toString(), QStringLiteral("%1 lines").arg(lines));
        QSignalSpy parsed(&ws, &Workspace::graphReady);
        w.showGraph(bwd);
        QCOMPARE(w.currentGraph(), bwd);
        QVERIFY(!w.graphView()->graph());
        QCOMPARE(w.graphView()->pendingMessage(),
                 QStringLiteral("Reading %1 lines of graph code…").arg(lines));
        QVERIFY(parsed.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(w.graphView()->graph() != nullptr, 20000);
        QCOMPARE(w.graphView()->graph(), ws.graph(bwd));
        QVERIFY(w.graphView()->pendingMessage().isEmpty());
        QCOMPARE(nodes.data().toULongLong(), qulonglong(ws.graph(bwd)->size()));
        QVERIFY(ws.graph(bwd)->size() > 1000);
        // Its structure came with it: 24 identical layers mapped from the forward graph.
        QVERIFY(fxs::test::waitForLayout(*w.graphView()));
        QCOMPARE(w.structure()->graphRef(), bwd);
        QVERIFY(w.structure()->tree());
        QVERIFY(w.structure()->tree()->modules.size() > 24);
        // Its structure read the forward graph (the backward's inputs map onto it): listed by
        // its node count now too.
        const GraphRef fwd = graphOfKind(ws, 0, "aot_forward_graph");
        QVERIFY(!ws.parsePending(fwd));
        QVERIFY(ws.graph(fwd));
        QCOMPARE(w.navigator()->model()->indexOf(fwd).siblingAtColumn(RunTreeModel::NodesColumn)
                     .data().toULongLong(),
                 qulonglong(ws.graph(fwd)->size()));
    }

    // Leaving a graph while it is read and coming back: the finished parse is used and the
    // graph shows without a second parse.
    void comingBackToAGraphBeingRead()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {QStringLiteral(FXSCOPE_TEST_DATA "/recorded/traces/llama24.log.gz")}));
        const Workspace& ws = *w.workspace();
        const GraphRef bwd = graphOfKind(ws, 0, "aot_backward_graph");
        const GraphRef fwd = graphOfKind(ws, 0, "aot_forward_graph");
        QVERIFY(ws.parsePending(bwd));
        w.showGraph(bwd);
        w.showGraph(fwd); // the backward's job is abandoned; its parse still finishes
        QTRY_VERIFY_WITH_TIMEOUT(ws.artifact(bwd)->parsedGraph() != nullptr, 60000);
        const graph::GraphPtr first = ws.artifact(bwd)->parsedGraph();
        w.showGraph(bwd);
        QCOMPARE(w.graphView()->graph(), first);
        QVERIFY(w.graphView()->pendingMessage().isEmpty());
        QVERIFY(fxs::test::waitForLayout(*w.graphView()));
    }

    void navigatorSelectionShowsTheGraph()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {trace("basic_cold")}));
        const GraphRef bwd = graphOfKind(*w.workspace(), 0, "aot_backward_graph");
        QTreeView* tree = w.navigator()->view();
        const QModelIndex src = w.navigator()->model()->indexOf(bwd);
        QVERIFY(src.isValid());
        // The tree shows the model through a filter proxy.
        const auto* proxy = qobject_cast<const QAbstractProxyModel*>(tree->model());
        QVERIFY(proxy);
        tree->setCurrentIndex(proxy->mapFromSource(src));
        QCOMPARE(w.currentGraph(), bwd);
        QCOMPARE(w.graphView()->graph(), w.workspace()->graph(bwd));
    }

    void cachePanelExplainsTheConfigChange()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {trace("basic_cold"), trace("basic_config")}));
        CachePanel* cache = w.cachePanel();
        QCOMPARE(cache->run(), 1); // the newest run, compared with the one before
        const QString headline = cache->headlineText();
        QVERIFY2(headline.contains(QStringLiteral("max_fusion_size")), qPrintable(headline));
        QVERIFY2(headline.contains(QStringLiteral("64")), qPrintable(headline));
        QVERIFY2(headline.contains(QStringLiteral("32")), qPrintable(headline));
        const auto& rows = cache->diffModel()->rows();
        QVERIFY(!rows.empty());
        QCOMPARE(rows.front().component, QStringLiteral("inductor_config[max_fusion_size]"));
        QCOMPARE(rows.front().a, QStringLiteral("64"));
        QCOMPARE(rows.front().b, QStringLiteral("32"));
        QCOMPARE(cache->diffModel()->headerData(ComponentDiffModel::AColumn, Qt::Horizontal).toString(),
                 QStringLiteral("basic_cold"));
    }

    void selectingALookupSelectsItsGraph()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {trace("basic_cold")}));
        CachePanel* cache = w.cachePanel();
        QCOMPARE(cache->run(), 0);
        // Lookup 2 is the backward fx_graph miss: it keys the second post-grad graph.
        cache->lookupView()->setCurrentIndex(cache->lookupModel()->index(2, 0));
        const GraphRef expected = graphOfKind(*w.workspace(), 0, "inductor_post_grad_graph", 1);
        QCOMPARE(w.currentGraph(), expected);
        QCOMPARE(w.navigator()->currentGraph(), expected);
        cache->lookupView()->setCurrentIndex(cache->lookupModel()->index(0, 0));
        QCOMPARE(w.currentGraph(), graphOfKind(*w.workspace(), 0, "aot_joint_graph"));
    }

    void graphChangeOpensBothGraphs()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {trace("basic_cold")}));
        CachePanel* cache = w.cachePanel();
        // The forward and backward fx lookups hold different graph code (gm).
        cache->lookupView()->setCurrentIndex(cache->lookupModel()->index(2, 0));
        cache->compareWithLookup(1);
        const auto comparison = cache->graphComparison();
        QVERIFY(comparison);
        QVERIFY(comparison->a && comparison->b);
        QVERIFY(!comparison->changedB.empty());
        auto* button = cache->findChild<QPushButton*>();
        QVERIFY(button && button->isEnabled());
        button->click();
        QVERIFY(w.graphArea()->isComparing());
        QCOMPARE(w.graphArea()->secondary()->graph(), comparison->a);
        QCOMPARE(w.graphView()->graph(), comparison->b);
    }

    void problemsPanelListsFileAndLine()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.log"));
        {
            std::ofstream out(path.toStdString());
            out << "V1122 01:21:31.065000 434 torch/_dynamo/convert_frame.py:1] "
                   "{\"dynamo_start\": {\"stack\": []}, \"frame_id\": 0, \"frame_compile_id\": 0, "
                   "\"attempt\": 0}\n"
                << "V1122 01:21:31.065000 434 torch/_dynamo/convert_frame.py:1] {\"broken\": \n";
        }
        MainWindow w;
        QVERIFY(openAndWait(w, {path}));
        const ProblemsModel* problems = w.problemsPanel()->model();
        QVERIFY(problems->rowCount() >= 1);
        bool found = false;
        for (int r = 0; r < problems->rowCount(); ++r) {
            found = found
                    || problems->index(r, ProblemsModel::WhereColumn).data().toString()
                           == QStringLiteral("bad.log:2");
        }
        QVERIFY(found);
        QVERIFY(w.problemsPanel()->summaryText().contains(QString::number(problems->rowCount())));
    }

    // In a narrow Navigator the two "Inductor post-grad" graphs of a training compile still
    // differ: names elide in the middle and keep "(forward)" and "(backward)" (right elision
    // drew both as "Inductor post-…").
    void navigatorNamesKeepTheirEnds()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {trace("gpt_cold")}));
        const auto* model = w.navigator()->model();
        std::vector<QModelIndex> rows;
        std::vector<QModelIndex> todo{QModelIndex()};
        while (!todo.empty()) {
            const QModelIndex parent = todo.back();
            todo.pop_back();
            for (int r = 0; r < model->rowCount(parent); ++r) {
                const QModelIndex i = model->index(r, 0, parent);
                if (i.data().toString().startsWith(QStringLiteral("Inductor post-grad"))) {
                    rows.push_back(i);
                }
                todo.push_back(i);
            }
        }
        QCOMPARE(rows.size(), std::size_t(2));
        const int width = 120;
        const QString a = w.navigator()->shownName(rows[0], width);
        const QString b = w.navigator()->shownName(rows[1], width);
        QVERIFY2(a.contains(QChar(0x2026)) && b.contains(QChar(0x2026)),
                 qPrintable(a + " | " + b)); // elided at this width
        QVERIFY2(a != b, qPrintable(a));
        QVERIFY2(a.endsWith(QStringLiteral("ward)")) && b.endsWith(QStringLiteral("ward)")),
                 qPrintable(a + " | " + b));
    }

    void cancelStopsALoad()
    {
        MainWindow w;
        QSignalSpy done(&w, &MainWindow::loadFinished);
        w.openPaths({trace("gpt_cold")});
        w.jobs()->cancel();
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().at(0).toBool(), true);
        QVERIFY(w.workspace()->isEmpty());
    }

    void lookupTableUsesTheFullWidth()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {trace("basic_cold"), trace("basic_config")}));
        QCoreApplication::processEvents();
        const QTableView* table = w.cachePanel()->lookupView();
        const auto* header = table->horizontalHeader();
        const int why = CacheLookupModel::WhyColumn;
        // The last column stretches to the viewport's right edge, also after model resets.
        QCOMPARE(header->sectionResizeMode(why), QHeaderView::Stretch);
        QTRY_COMPARE(header->sectionPosition(why) + header->sectionSize(why),
                     table->viewport()->width());
    }

    void aboutNamesTheVersions()
    {
        // Each as the test reads it from the library itself; Qt first.
        const QString text = MainWindow::versionsText();
        QVERIFY2(text.startsWith(QStringLiteral("Qt ") + QLatin1String(qVersion())),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("LibTorch " TORCH_VERSION)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("SQLite ") + QLatin1String(sqlite3_libversion())),
                 qPrintable(text));
        // Debian's Graphviz headers and library are one package: the same version.
        QVERIFY2(text.contains(QStringLiteral("Graphviz " PACKAGE_VERSION)), qPrintable(text));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"

FXSCOPE_TEST_END
