// The app on torch.export archives and higher-order bodies: a `.pt2` opens like any graph; the
// Inspector shows a node's module and, for a higher-order node, the body it runs with its call
// sites first; following the body link or double-clicking the node shows the body, and View ›
// Back to Calling Graph (Alt+Left) returns to the call site; a body's inputs read by the
// names its caller passes; the Navigator lists each graph's bodies with their call counts and
// opens them. Offscreen.
#include "app/gui/structure_controller.h"
#include "tests/test_file.h"
#include "tests/unit/app/main_window_waits.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/models/run_tree_model.h"
#include "views/panels/inspector_panel.h"
#include "views/panels/navigator_panel.h"

#include <QAction>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using app::MainWindow;
using fxs::test::openAndWait;

namespace {

QString data(const char* relative)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/") + QLatin1String(relative);
}

// The Navigator's rows under `parent` (source model), by their text.
QStringList rowTexts(const QAbstractItemModel& m, const QModelIndex& parent)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        out << m.index(r, 0, parent).data().toString();
    }
    return out;
}

// Double-clicks the node's box on the primary view (centred first).
void doubleClickNode(views::GraphView* view, graph::NodeId id)
{
    views::NodeItem* item = view->scene()->nodeItem(id);
    QVERIFY(item != nullptr);
    view->canvas()->centerOn(item);
    const QPoint at = view->canvas()->mapFromScene(item->sceneBoundingRect().center());
    QTest::mouseDClick(view->canvas()->viewport(), Qt::LeftButton, {}, at);
}

} // namespace

class TestAppBodies : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_app_bodies"));
    }

    void inspectorShowsTheModuleOfAnExportedNode()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {data("recorded/export/gpt2_small.pt2")}));
        QVERIFY(w.currentGraph().valid());
        const auto g = w.graphView()->graph();
        QVERIFY(g);
        w.selectNode(*g->find("linear"));
        const QString text = w.inspector()->plainText();
        QVERIFY2(text.contains(QStringLiteral("blocks.0.attn (MultiheadAttention)")),
                 qPrintable(text));
    }

    void bodyLinkShowsTheBodyAndBackReturns()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {data("recorded/graphs/nested_train_graph0.txt")}));
        const auto top = w.graphView()->graph();
        QVERIFY(top);
        const auto call = *top->find("invoke_subgraph_10");
        w.selectNode(call);
        const QString text = w.inspector()->plainText();
        QVERIFY2(text.contains(QStringLiteral("partitioned_fw_subgraph_0_0 · 18 nodes · "
                                              "called 4 times: invoke_subgraph_8, "
                                              "invoke_subgraph_10, invoke_subgraph_12, "
                                              "invoke_subgraph_14")),
                 qPrintable(text));
        auto* back = w.findChild<QAction*>(QStringLiteral("backToCallerAction"));
        QVERIFY(back);
        QVERIFY(!back->isEnabled());
        const auto caller = w.currentGraph();
        Q_EMIT w.inspector()->bodyLinkActivated(QStringLiteral("partitioned_fw_subgraph_0_0"));
        QCOMPARE(w.graphView()->graph(), top->submodule("partitioned_fw_subgraph_0_0"));
        QVERIFY(!w.currentGraph().valid()); // a body is not a workspace graph
        QVERIFY(back->isEnabled());
        QVERIFY(!w.showBody(QStringLiteral("no_such_body")));
        back->trigger();
        QCOMPARE(w.currentGraph(), caller);
        QCOMPARE(w.graphView()->graph(), top);
        QCOMPARE(w.graphView()->selectedNode(), std::optional<graph::NodeId>(
                                                     *top->find("invoke_subgraph_8")));
        QVERIFY(!back->isEnabled());
    }

    // nested_train_graph0.txt: invoke_subgraph_10 runs partitioned_fw_subgraph_0_1, identical
    // to partitioned_fw_subgraph_0_0 (listed once, called 4 times).
    void doubleClickEntersTheBodyAndAltLeftReturns()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {data("recorded/graphs/nested_train_graph0.txt")}));
        auto* view = w.graphView();
        QVERIFY(fxs::test::waitForLayout(view));
        const auto top = view->graph();
        const auto call = *top->find("invoke_subgraph_10");
        view->selectNode(call);
        QVERIFY(fxs::test::waitForLayout(view));
        // The Body row comes first, before Op and Target.
        const QString text = w.inspector()->plainText();
        const auto body = text.indexOf(QStringLiteral("partitioned_fw_subgraph_0_0 · 18 nodes"));
        QVERIFY2(body >= 0 && body < text.indexOf(QStringLiteral("Target")), qPrintable(text));
        doubleClickNode(view, call);
        QCOMPARE(view->graph(), top->submodule("partitioned_fw_subgraph_0_0"));
        QVERIFY(fxs::test::waitForLayout(view));
        // A plain node does nothing.
        doubleClickNode(view, *view->graph()->find("native_layer_norm"));
        QCOMPARE(view->graph(), top->submodule("partitioned_fw_subgraph_0_0"));
        auto* back = w.findChild<QAction*>(QStringLiteral("backToCallerAction"));
        QVERIFY(back && back->isEnabled());
        QCOMPARE(back->shortcut(), QKeySequence(QKeySequence::Back));
        back->trigger();
        QCOMPARE(view->graph(), top);
        QCOMPARE(view->selectedNode(), std::optional<graph::NodeId>(call)); // where it left
    }

    // hop_cond_aot_graph0.txt: cond(gt, true_graph_0, false_graph_0, (primals_1,)); each branch
    // takes arg0_1. nested_train_graph0.txt: the four calls pass different nodes.
    void bodyInputsReadByTheCallersNames()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {data("recorded/graphs/hop_cond_aot_graph0.txt")}));
        QVERIFY(w.enterBodyOf(*w.graphView()->graph()->find("cond")));
        auto* view = w.graphView();
        QVERIFY(fxs::test::waitForLayout(view));
        const auto arg = *view->graph()->find("arg0_1");
        QCOMPARE(view->scene()->nodeItem(arg)->title(), QStringLiteral("primals_1"));

        MainWindow n;
        QVERIFY(openAndWait(n, {data("recorded/graphs/nested_train_graph0.txt")}));
        QVERIFY(n.showBody(QStringLiteral("partitioned_fw_subgraph_0_0")));
        QVERIFY(fxs::test::waitForLayout(n.graphView()));
        const auto own = *n.graphView()->graph()->find("primals_0");
        QCOMPARE(n.graphView()->scene()->nodeItem(own)->title(), QStringLiteral("primals_0"));
    }

    // nested.log.gz, lines 209-226: the Dynamo graph calls subgraph_0 .. subgraph_3 (one body),
    // each call passing the activation (l_x_, getitem_20, ...) and block k's ln, fc1 and fc2
    // parameters; the body names its inputs after block 0's.
    void bodyInputsReadByTheParametersTheyAre()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {data("recorded/traces/nested.log.gz")}));
        auto* view = w.graphView();
        const views::GraphRef dyn = fxs::test::graphOfKind(*w.workspace(), "dynamo_output_graph");
        w.showGraph(dyn);
        QTRY_VERIFY_WITH_TIMEOUT(view->graph() && w.structure()->knownTree(view->graph()), 20000);
        QVERIFY(w.enterBodyOf(*view->graph()->find("invoke_subgraph_2")));
        QVERIFY(fxs::test::waitForLayout(view));
        const auto title = [&](const char* name) {
            return view->scene()->nodeItem(*view->graph()->find(name))->title();
        };
        QCOMPARE(title("l_x_"), QStringLiteral("l_x_")); // the callers pass different activations
        QCOMPARE(title("l_s_modules_blocks_modules_0_modules_ln_parameters_weight_"),
                 QStringLiteral("ln.weight"));
        QCOMPARE(title("l_s_modules_blocks_modules_0_modules_fc2_parameters_bias_"),
                 QStringLiteral("fc2.bias"));
    }

    // hops.log.gz (checked in its text): the first Dynamo graph calls cond(gt, cond_true_0,
    // cond_false_0, ...); the AOT joint graph of that compile runs true/false_graph_0 and _1;
    // the while_loop graph runs cond_fn_0 and body_fn_0. nested.log.gz: the AOT joint graph
    // calls repeated_subgraph0 (fw) and repeated_subgraph1 (bw) four times each.
    void navigatorListsBodiesWithCallCounts()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {data("recorded/traces/hops.log.gz")}));
        const views::GraphRef dyn = fxs::test::graphOfKind(*w.workspace(), "dynamo_output_graph");
        w.showGraph(dyn); // read (deferred graphs gain their body rows when read)
        QVERIFY(QTest::qWaitFor([&] { return w.workspace()->graph(dyn) != nullptr; }, 20000));
        auto* model = w.navigator()->model();
        QTRY_COMPARE(rowTexts(*model, model->indexOf(dyn)),
                     (QStringList{QStringLiteral("cond_true_0 · 1 call"),
                                  QStringLiteral("cond_false_0 · 1 call")}));
        const views::GraphRef joint = fxs::test::graphOfKind(*w.workspace(), "aot_joint_graph");
        w.showGraph(joint);
        QTRY_COMPARE(rowTexts(*model, model->indexOf(joint)),
                     (QStringList{QStringLiteral("true_graph_0 · 1 call"),
                                  QStringLiteral("false_graph_0 · 1 call"),
                                  QStringLiteral("true_graph_1 · 1 call"),
                                  QStringLiteral("false_graph_1 · 1 call")}));
        const views::GraphRef loop =
            fxs::test::graphOfKind(*w.workspace(), "dynamo_output_graph", 0, 2);
        w.showGraph(loop);
        QTRY_COMPARE(rowTexts(*model, model->indexOf(loop)),
                     (QStringList{QStringLiteral("cond_fn_0 · 1 call"),
                                  QStringLiteral("body_fn_0 · 1 call")}));

        MainWindow n;
        QVERIFY(openAndWait(n, {data("recorded/traces/nested.log.gz")}));
        const views::GraphRef nj = fxs::test::graphOfKind(*n.workspace(), "aot_joint_graph");
        n.showGraph(nj);
        auto* nm = n.navigator()->model();
        QTRY_COMPARE(rowTexts(*nm, nm->indexOf(nj)),
                     (QStringList{QStringLiteral("repeated_subgraph0 · 4 calls"),
                                  QStringLiteral("repeated_subgraph1 · 4 calls")}));
        // Picking a body row shows the body, its call count in the title.
        const QModelIndex bodyRow = nm->index(1, 0, nm->indexOf(nj));
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(n.navigator()->view()->model());
        QVERIFY(proxy);
        QSignalSpy bodies(n.navigator(), &views::NavigatorPanel::bodyActivated);
        n.navigator()->view()->setCurrentIndex(proxy->mapFromSource(bodyRow));
        QCOMPARE(bodies.count(), 1);
        const auto caller = n.workspace()->graph(nj);
        QCOMPARE(n.graphView()->graph(), caller->submodule("repeated_subgraph1"));
    }
};

QTEST_MAIN(TestAppBodies)
#include "tst_app_bodies.moc"

FXSCOPE_TEST_END
