// The app on torch.export archives and higher-order bodies: a `.pt2` opens like any graph; the
// Inspector shows a node's module and, for a higher-order node, the body it runs with its call
// sites; following the body link shows the body, and View › Back to Calling Graph returns to
// the call site. Offscreen.
#include "tests/unit/app/main_window_waits.h"
#include "views/panels/inspector_panel.h"

#include <QAction>
#include <QtTest>

using namespace fxs;
using app::MainWindow;
using fxs::test::openAndWait;

namespace {

QString data(const char* relative)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/") + QLatin1String(relative);
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
};

QTEST_MAIN(TestAppBodies)
#include "tst_app_bodies.moc"
