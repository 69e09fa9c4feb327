// The runtime heat and the Kernels dock in the app (offscreen MainWindow), end to end on the
// hand-made small trace (tests/data/runtime/small, make_small.py: one inference graph fc1 →
// relu → fc2 called twice; per post-grad node permute 5, mm 5, add 2, relu 2, permute_1 3,
// addmm 3 µs; pre-grad linear 12, relu 2, linear_1 6; 32.5 µs of kernel time in all) and on the
// recorded GPT-4 training step (tests/data/runtime/gpt4_train): a directory opens with its
// trace, a trace opened after its log, without a log, or cut short; the heat layer's colours
// and its place among the layers; a kernel selects exactly its nodes (in its own graph when the
// one on screen has none of them); a node lists its kernels; a module row selects its nodes.
#include "app/gui/app_context.h"
#include "app/gui/main_window.h"
#include "app/gui/runtime_controller.h"
#include "tests/test_file.h"
#include "tests/unit/app/main_window_waits.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/models/kernel_models.h"
#include "views/panels/kernels_panel.h"

#include <QPushButton>
#include <QHeaderView>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTextBrowser>
#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;
using fxs::app::MainWindow;
using fxs::app::RuntimeController;
using fxs::test::graphOfKind;
using fxs::test::openAndWait;

namespace {

const QString kSmall = QStringLiteral(FXSCOPE_TEST_DATA "/runtime/small");
const QString kGpt = QStringLiteral(FXSCOPE_TEST_DATA "/runtime/gpt4_train");

bool openAndJoin(MainWindow& w, const QStringList& paths)
{
    QSignalSpy joined(w.runtime(), &RuntimeController::finished);
    w.openPaths(paths);
    return joined.wait(120000) && !joined.first().at(0).toBool();
}

// Shows ref and waits until the view draws it, laid out.
bool showAndWait(MainWindow& w, GraphRef ref)
{
    w.showGraph(ref);
    for (int i = 0; i < 600; ++i) {
        const graph::GraphPtr g = w.workspace()->graph(ref);
        if (g && w.graphView()->graph() == g) {
            return fxs::test::waitForLayout(w.graphView());
        }
        QTest::qWait(100);
    }
    return false;
}

graph::NodeId idOf(MainWindow& w, const char* name)
{
    return w.graphView()->graph()->find(name).value();
}

std::vector<graph::NodeId> sortedIds(MainWindow& w, std::initializer_list<const char*> names)
{
    auto ids = fxs::test::nodeIds(w, names);
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::size_t kernelOf(const runtime::Attribution& a, const std::string& handle)
{
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        if (a.kernels[i].handle == handle) {
            return i;
        }
    }
    return a.kernels.size();
}

// Clicks the table row of kernel k in the Kernels dock, as a user would.
bool clickKernel(MainWindow& w, std::size_t k)
{
    QTableView* view = w.runtime()->panel()->view();
    for (int r = 0; r < view->model()->rowCount(); ++r) {
        if (view->model()->index(r, 0).data(KernelsModel::KernelRole).toULongLong() == k) {
            view->selectRow(r);
            return true;
        }
    }
    return false;
}

std::vector<std::size_t> shownKernels(const KernelsPanel* panel)
{
    std::vector<std::size_t> out;
    for (int r = 0; r < panel->model()->rowCount(); ++r) {
        out.push_back(panel->model()->kernelAt(r));
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class TestRuntimeController : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_runtime_controller"));
    }

    void directoryOpensWithItsTrace()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kSmall}));
        const auto result = w.runtime()->result();
        QVERIFY(result->path.endsWith(QStringLiteral("/small/profile.json"))); // first by name
        QCOMPARE(result->knownGraphs, std::size_t(1));
        QVERIFY(result->readError.isEmpty());
        QCOMPARE(result->attribution->totalKernelUs, 32.5);
        const KernelsPanel* panel = w.runtime()->panel();
        QCOMPARE(panel->model()->rowCount(), int(result->attribution->kernels.size()));
        QVERIFY(panel->model()->rowCount() >= 4); // 3 call sites and the optimizer's kernel
        QVERIFY2(panel->summary().contains(QStringLiteral("32.5 µs")),
                 qPrintable(panel->summary()));
        QVERIFY(panel->moduleModel()->rowCount() > 0);
        QVERIFY(!w.runtime()->dock()->isHidden()); // shown (the window itself is not)
    }

    void heatOnThePostGradGraph()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kSmall}));
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "inductor_post_grad_graph")));
        GraphDecorations* deco = w.context()->decorations();
        QCOMPARE(deco->owner(DecorationLayer::RuntimeTrace), w.runtime());
        // mm and permute ran 5 µs each, the longest: the scale's end; add 2 µs, addmm 3 µs.
        QCOMPARE(deco->nodeColor(idOf(w, "mm")), KernelsModel::heatColor(5, 5));
        QCOMPARE(deco->nodeColor(idOf(w, "add")), KernelsModel::heatColor(2, 5));
        QCOMPARE(deco->nodeColor(idOf(w, "addmm")), KernelsModel::heatColor(3, 5));
        QVERIFY(deco->nodeColor(idOf(w, "mm"))->lightnessF() <
                deco->nodeColor(idOf(w, "addmm"))->lightnessF());
        QVERIFY(!deco->nodeColor(idOf(w, "arg0_1"))); // inputs ran no kernel: neutral
        QCOMPARE(deco->nodeColors().size(), std::size_t(6));
        // The times go with the colours (a collapsed group sums its nodes'): 20 µs in all.
        const auto& amounts = deco->nodeAmounts();
        QCOMPARE(amounts.unit, QStringLiteral("µs"));
        QCOMPARE(amounts.values.size(), std::size_t(6));
        QCOMPARE(amounts.values.at(idOf(w, "mm")), 5.0);
        QCOMPARE(amounts.values.at(idOf(w, "add")), 2.0);
        double sum = 0;
        for (const auto& [id, us] : amounts.values) {
            sum += us;
        }
        QCOMPARE(sum, 20.0);
        // Drawn: the node's item carries the colour.
        const NodeItem* item = w.graphView()->scene()->nodeItem(idOf(w, "mm"));
        QVERIFY(item && item->overlay() == KernelsModel::heatColor(5, 5));
        // The banner and the legend say what the graph's nodes add up to.
        QVERIFY2(deco->banner().contains(QStringLiteral("20.0 µs of the 32.5 µs")),
                 qPrintable(deco->banner()));
        QCOMPARE(w.graphView()->banner(), deco->banner());
        QCOMPARE(w.runtime()->panel()->legendStops(), 5);
        QCOMPARE(w.runtime()->panel()->legendText(), QStringLiteral("this graph: 20.0 µs"));
    }

    void heatUnderTheHighlight()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kSmall}));
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "inductor_post_grad_graph")));
        GraphDecorations* deco = w.context()->decorations();
        const graph::NodeId mm = idOf(w, "mm");
        const QColor heat = KernelsModel::heatColor(5, 5);
        // Over the eager profile's colours, whatever the order of writes.
        deco->setNodeColors(DecorationLayer::ProfileHeat, {{mm, QColor(Qt::green)}});
        QCOMPARE(deco->nodeColor(mm), heat);
        // Under the highlight layer; clearing the highlight shows the heat again.
        deco->setNodeColors(DecorationLayer::Highlight, {{mm, QColor(Qt::blue)}});
        QCOMPARE(deco->nodeColor(mm), QColor(Qt::blue));
        deco->clear(DecorationLayer::Highlight);
        QCOMPARE(deco->nodeColor(mm), heat);
        // A selected node keeps its heat as fill; the selection is its frame.
        w.selectNode(mm);
        const NodeItem* item = w.graphView()->scene()->nodeItem(mm);
        QVERIFY(item->isMarkedSelected());
        QCOMPARE(item->overlay(), heat);
    }

    void kernelSelectsExactlyItsNodes()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kSmall}));
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "inductor_post_grad_graph")));
        const auto& a = *w.runtime()->result()->attribution;
        const std::size_t tri = kernelOf(a, "triton_poi_fused_add_relu_0:2");
        const std::size_t mm = kernelOf(a, "extern_kernels.mm:1");
        NodeSelectionModel* selection = w.context()->selection();
        QVERIFY(clickKernel(w, tri));
        QCOMPARE(selection->selectedNodes(), sortedIds(w, {"add", "relu"}));
        QVERIFY(clickKernel(w, mm));
        QCOMPARE(selection->selectedNodes(), sortedIds(w, {"permute", "mm"}));
        // The kernel's source stack, from kernel_stack_traces.
        const QString stack = w.runtime()->panel()->stackView()->toPlainText();
        QVERIFY2(stack.contains(QStringLiteral("mlp.py\", line 9")), qPrintable(stack));
        QVERIFY(stack.contains(QStringLiteral("post-grad nodes: permute, mm")));
        // The same kernel on the pre-grad graph: the pre-grad nodes it computes.
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "after_pre_grad_graph")));
        QVERIFY(clickKernel(w, tri));
        QCOMPARE(selection->selectedNodes(), sortedIds(w, {"linear", "relu"}));
        // Selecting nodes for a kernel does not filter the table to one of them.
        QCOMPARE(w.runtime()->panel()->model()->rowCount(), int(a.kernels.size()));
    }

    void nodeListsItsKernels()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kSmall}));
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "after_pre_grad_graph")));
        const auto& a = *w.runtime()->result()->attribution;
        KernelsPanel* panel = w.runtime()->panel();
        w.selectNode(idOf(w, "linear"));
        std::vector<std::size_t> linear{kernelOf(a, "extern_kernels.mm:1"),
                                        kernelOf(a, "triton_poi_fused_add_relu_0:2")};
        std::sort(linear.begin(), linear.end());
        QCOMPARE(shownKernels(panel), linear);
        auto* showAll = panel->findChild<QPushButton*>(QStringLiteral("showAllKernels"));
        QVERIFY(showAll && !showAll->isHidden());
        showAll->click();
        QCOMPARE(panel->model()->rowCount(), int(a.kernels.size()));
        w.selectNode(idOf(w, "l_x_")); // an input: no kernel
        QCOMPARE(panel->model()->rowCount(), 0);
        QVERIFY(panel->model()->isFiltered());
    }

    void modulesTabSelectsModules()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kSmall}));
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "after_pre_grad_graph")));
        KernelsPanel* panel = w.runtime()->panel();
        QCOMPARE(panel->moduleModel()->rowCount(), 2); // fc1 12 µs, fc2 6 µs
        QSignalSpy picked(w.runtime(), &RuntimeController::moduleSelected);
        QTableView* modules = panel->moduleView();
        // The path column takes the width, not the kernel count at the end.
        QCOMPARE(modules->horizontalHeader()->sectionResizeMode(KernelModulesModel::PathColumn),
                 QHeaderView::Stretch);
        QVERIFY(!modules->horizontalHeader()->stretchLastSection());
        // The current index a table sets on focus, without selecting: nothing picked.
        modules->selectionModel()->setCurrentIndex(modules->model()->index(1, 0),
                                                   QItemSelectionModel::NoUpdate);
        QCOMPARE(picked.count(), 0);
        modules->selectRow(0); // sorted by time: fc1 first
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked.first().at(0).toString(), QStringLiteral("fc1"));
        // The window hands it to the structure controller: fc1's nodes are selected.
        const auto& selected = w.context()->selection()->selectedNodes();
        QVERIFY(std::find(selected.begin(), selected.end(), idOf(w, "linear")) != selected.end());
        QVERIFY(std::find(selected.begin(), selected.end(), idOf(w, "linear_1")) ==
                selected.end());
    }

    void traceOpenedAfterItsLog()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kSmall + "/torch_trace.log"}));
        QVERIFY(openAndJoin(w, {kSmall + "/profile.json.gz"}));
        QCOMPARE(w.runtime()->result()->knownGraphs, std::size_t(1));
        QCOMPARE(w.runtime()->result()->attribution->totalKernelUs, 32.5);
        // Not handed to the graph loader: no "unrecognised file format" problem.
        for (const auto& d : w.workspace()->diagnostics().items()) {
            QVERIFY2(d.file.find("profile.json") == std::string::npos, d.message.c_str());
        }
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "aot_inference_graph")));
        QCOMPARE(w.context()->decorations()->nodeColors().size(), std::size_t(6));
    }

    void traceWithoutLogOrCut()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kSmall + "/profile.json"}));
        QVERIFY(!w.runtime()->result()->run);
        QVERIFY(w.runtime()->panel()->model()->rowCount() > 0); // listed, not drawn
        QVERIFY(w.runtime()->panel()->summary().contains(QStringLiteral("no TORCH_TRACE log")));
        // The log opened afterwards: the trace is joined again.
        QVERIFY(openAndJoin(w, {kSmall + "/torch_trace.log"}));
        QCOMPARE(w.runtime()->result()->knownGraphs, std::size_t(1));
        QVERIFY(openAndJoin(w, {kSmall + "/cut/profile_cut.json.gz"}));
        QVERIFY(!w.runtime()->result()->readError.isEmpty());
        QVERIFY(w.runtime()->panel()->summary().contains(QStringLiteral("cut or corrupt")));
    }

    void recordedTrainingStep()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kGpt}));
        const auto result = w.runtime()->result();
        QCOMPARE(result->knownGraphs, std::size_t(2)); // forward and backward
        const auto& a = *result->attribution;
        QVERIFY(a.sumCheckOk);
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "aot_forward_graph")));
        QVERIFY(!w.context()->decorations()->nodeColors().empty());
        // A backward kernel picked while the forward graph is shown: its graph comes, with its
        // nodes selected.
        const runtime::CompiledGraph* bw = nullptr;
        for (const auto& g : result->provenance.graphs) {
            bw = g.kind == "backward" ? &g : bw;
        }
        QVERIFY(bw);
        std::size_t k = 0;
        while (k < a.kernels.size() &&
               (a.kernels[k].graph != bw->key || a.kernels[k].postNodes.empty())) {
            ++k;
        }
        QVERIFY(k < a.kernels.size());
        QVERIFY(clickKernel(w, k));
        const graph::GraphPtr post = bw->postGrad;
        QVERIFY(post);
        QTRY_VERIFY_WITH_TIMEOUT(w.graphView()->graph() == post, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.context()->selection()->selectedNodes().empty(), 10000);
        std::vector<graph::NodeId> expected;
        for (const auto& name : a.kernels[k].postNodes) {
            if (const auto id = post->find(name)) {
                expected.push_back(*id);
            }
        }
        std::sort(expected.begin(), expected.end());
        QCOMPARE(w.context()->selection()->selectedNodes(), expected);
    }

    // Each frame of a kernel's source stack is a link to the nodes of the shown graph that come
    // from its line (the recorded GPT-4 step: the embedding kernel's first frame is
    // models_gpt.py:16, `x = s.emb(idx)`).
    void stackFrameSelectsTheNodesOfItsLine()
    {
        MainWindow w;
        QVERIFY(openAndJoin(w, {kGpt}));
        const auto& a = *w.runtime()->result()->attribution;
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "dynamo_output_graph")));
        const std::size_t k =
            kernelOf(a, "triton_per_fused_clone_embedding_native_layer_norm_transpose_0:1");
        QVERIFY(clickKernel(w, k));
        KernelsPanel* panel = w.runtime()->panel();
        QVERIFY(panel->stackFrames().size() >= 3);
        QCOMPARE(panel->stackFrames()[0].second, 16);
        QVERIFY(panel->stackFrames()[0].first.endsWith(QStringLiteral("/models_gpt.py")));
        QVERIFY(panel->stackView()->toHtml().contains(QStringLiteral("frame:#2")));
        QVERIFY(showAndWait(w, graphOfKind(*w.workspace(), "dynamo_output_graph")));
        const graph::GraphPtr shown = w.context()->selection()->graph();
        std::vector<graph::NodeId> expected;
        for (const graph::Node& n : shown->nodes()) {
            if (n.source.line == 16 && n.source.file.find("models_gpt.py") != std::string::npos) {
                expected.push_back(n.id);
            }
        }
        QVERIFY(!expected.empty()); // the Dynamo graph's embedding call
        panel->activateStackFrame(0);
        QCOMPARE(w.context()->selection()->selectedNodes(), expected);
        panel->activateStackFrame(2); // line 8: the block's ln1 and attention, several nodes
        const auto line8 = w.context()->selection()->selectedNodes();
        QVERIFY(line8.size() > 1);
        for (const auto id : line8) {
            QCOMPARE(shown->node(id).source.line, 8);
        }
    }
};

QTEST_MAIN(TestRuntimeController)
#include "tst_runtime_controller.moc"

FXSCOPE_TEST_END
