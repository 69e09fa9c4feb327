// GraphView multi-selection and region hulls (offscreen, real mouse events on the canvas):
// Shift/Ctrl-click toggles, Shift/Ctrl rubber bands, selection kept across collapse/expand,
// region overlays with per-region tints, collapsed nodes drawn by their group box, and colours
// that follow a dark palette. Expected nodes are named from the fixture text by hand.
#include "tests/test_file.h"
#include "tests/unit/views/graph_view_test_util.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"

#include <QFile>
#include <QScrollBar>
#include <QSignalSpy>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using fxs::views::DecorationLayer;
using namespace fxs;
using namespace fxs::graph;
using fxs::views::GraphView;
using fxs::views::RegionOverlay;

using fxs::test::loadFixture;
using fxs::test::showWhole;
using fxs::test::waitForLayout;

namespace {

NodeId idOf(const GraphView& view, const char* name)
{
    return view.graph()->find(name).value();
}

// Sorted, as GraphView::selectedNodes() returns them.
std::vector<NodeId> ids(const GraphView& view, std::initializer_list<const char*> names)
{
    std::vector<NodeId> out = fxs::test::nodeIds(view, names);
    std::sort(out.begin(), out.end());
    return out;
}

// Shows the small export MLP (placeholders, linear → layer_norm → gelu → linear_1 → softmax).
bool showSmallMlp(GraphView& view)
{
    view.resize(1000, 900);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view)) {
        return false;
    }
    view.setGraph(loadFixture(QStringLiteral("/fixtures/export/small_mlp_export_graph.txt")));
    return waitForLayout(view);
}

QPoint viewportPos(const GraphView& view, NodeId id)
{
    return view.canvas()->mapFromScene(view.scene()->nodeItem(id)->scenePos());
}

QRectF boxOf(const GraphView& view, NodeId id)
{
    return view.scene()->nodeItem(id)->sceneBoundingRect();
}

void drag(GraphView& view, QPointF fromScene, QPointF toScene, Qt::KeyboardModifiers mods)
{
    QWidget* vp = view.canvas()->viewport();
    const QPoint a = view.canvas()->mapFromScene(fromScene);
    const QPoint b = view.canvas()->mapFromScene(toScene);
    QTest::mousePress(vp, Qt::LeftButton, mods, a);
    QTest::mouseMove(vp, (a + b) / 2);
    QTest::mouseMove(vp, b);
    QTest::mouseRelease(vp, Qt::LeftButton, mods, b);
}

} // namespace

class TestGraphSelection : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void shiftClickSelectsTwoAndCtrlClickToggles()
    {
        GraphView view;
        QVERIFY(showSmallMlp(view));
        const NodeId linear = idOf(view, "linear");
        const NodeId gelu = idOf(view, "gelu");
        QSignalSpy changed(&view, &GraphView::selectionChanged);
        QSignalSpy current(&view, &GraphView::nodeSelected);
        QWidget* vp = view.canvas()->viewport();

        QTest::mouseClick(vp, Qt::LeftButton, {}, viewportPos(view, linear));
        QCOMPARE(view.selectedNodes(), std::vector<NodeId>{linear});
        QTest::mouseClick(vp, Qt::LeftButton, Qt::ShiftModifier, viewportPos(view, gelu));
        QCOMPARE(view.selectedNodes(), ids(view, {"linear", "gelu"}));
        QCOMPARE(view.selectedNode(), gelu); // the last clicked one feeds the inspector
        QCOMPARE(current.count(), 2);
        QCOMPARE(current.last().at(0).value<NodeId>(), gelu);
        QCOMPARE(changed.count(), 2);
        QCOMPARE(changed.last().at(0).value<std::vector<NodeId>>(), ids(view, {"linear", "gelu"}));
        QVERIFY(view.scene()->nodeItem(linear)->isMarkedSelected());
        QVERIFY(view.scene()->nodeItem(gelu)->isMarkedSelected());
        QVERIFY(!view.scene()->nodeItem(idOf(view, "softmax"))->isMarkedSelected());

        // Ctrl-click on a selected node takes it out; the current node moves to what is left.
        QTest::mouseClick(vp, Qt::LeftButton, Qt::ControlModifier, viewportPos(view, gelu));
        QCOMPARE(view.selectedNodes(), std::vector<NodeId>{linear});
        QCOMPARE(view.selectedNode(), linear);
        QVERIFY(!view.scene()->nodeItem(gelu)->isMarkedSelected());

        // A plain click replaces; a plain click on empty space clears.
        QTest::mouseClick(vp, Qt::LeftButton, {}, viewportPos(view, gelu));
        QCOMPARE(view.selectedNodes(), std::vector<NodeId>{gelu});
        const QRectF scene = view.scene()->sceneRect();
        QTest::mouseClick(vp, Qt::LeftButton, {},
                          view.canvas()->mapFromScene(scene.topLeft() + QPointF(3, 3)));
        QVERIFY(view.selectedNodes().empty());
        QVERIFY(!view.selectedNode().has_value());
    }

    void rubberBandSelectsTheBoxesInside()
    {
        GraphView view;
        QVERIFY(showSmallMlp(view));
        const NodeId layerNorm = idOf(view, "layer_norm");
        const NodeId gelu = idOf(view, "gelu");
        // A band drawn just around layer_norm and gelu (consecutive in the chain).
        const QRectF band = boxOf(view, layerNorm).united(boxOf(view, gelu)).adjusted(-4, -4, 4, 4);
        drag(view, band.topLeft(), band.bottomRight(), Qt::ShiftModifier);
        QCOMPARE(view.selectedNodes(), ids(view, {"layer_norm", "gelu"}));
        QVERIFY(view.scene()->nodeItem(gelu)->isMarkedSelected());

        // Ctrl adds the next band to the selection (drawn bottom-up this time).
        const QRectF next = boxOf(view, idOf(view, "linear_1")).adjusted(-4, -4, 4, 4);
        drag(view, next.bottomRight(), next.topLeft(), Qt::ControlModifier);
        QCOMPARE(view.selectedNodes(), ids(view, {"layer_norm", "gelu", "linear_1"}));

        // Shift replaces; a band that holds only part of a box does not take it.
        const QRectF half = boxOf(view, gelu).adjusted(-4, -4, 4, -boxOf(view, gelu).height() / 2);
        drag(view, half.topLeft(), half.bottomRight(), Qt::ShiftModifier);
        QVERIFY(view.selectedNodes().empty());

        // A plain drag pans and keeps the selection.
        view.setSelectedNodes({gelu});
        view.canvas()->scale(3, 3); // room to scroll
        const int before = view.canvas()->verticalScrollBar()->value();
        drag(view, boxOf(view, gelu).bottomRight() + QPointF(30, 10),
             boxOf(view, gelu).bottomRight() + QPointF(30, -50), {});
        QVERIFY(view.canvas()->verticalScrollBar()->value() != before);
        QCOMPARE(view.selectedNodes(), std::vector<NodeId>{gelu});
    }

    void selectionSurvivesCollapseAndExpand()
    {
        GraphView view;
        view.setGraph(loadFixture(QStringLiteral("/fixtures/graphs/gpt12_train_bw.txt")));
        QVERIFY(waitForLayout(view)); // over 300 nodes: opens collapsed
        const NodeId add83 = idOf(view, "add_83");
        const NodeId add82 = idOf(view, "add_82");
        const layout::GroupId group = view.viewGraph()->groupOf(add83);
        QVERIFY(group != layout::kRootGroup);
        QCOMPARE(view.viewGraph()->groupOf(add82), group); // same source scope, by hand
        view.setSelectedNodes({add82, add83});
        QCOMPARE(view.selectedNodes(), (std::vector<NodeId>{add82, add83}));
        // Collapsed: the box of the group (or of a group around it) shows the selection.
        auto* showing = qgraphicsitem_cast<views::GroupItem*>(view.scene()->itemShowing(add83));
        QVERIFY(showing != nullptr);
        QVERIFY(showing->holdsSelection());

        for (layout::GroupId g : view.viewGraph()->ancestorsOf(add83)) {
            view.setGroupExpanded(g, true);
        }
        QVERIFY(waitForLayout(view));
        QVERIFY(view.scene()->nodeItem(add83)->isMarkedSelected());
        QVERIFY(view.scene()->nodeItem(add82)->isMarkedSelected());

        view.setGroupExpanded(group, false);
        QVERIFY(waitForLayout(view));
        QVERIFY(view.scene()->nodeItem(add83) == nullptr);
        QVERIFY(view.scene()->groupItem(group)->holdsSelection());
        QCOMPARE(view.selectedNodes(), (std::vector<NodeId>{add82, add83}));

        view.setGroupExpanded(group, true);
        QVERIFY(waitForLayout(view));
        QVERIFY(view.scene()->nodeItem(add83)->isMarkedSelected());
        QCOMPARE(view.selectedNodes(), (std::vector<NodeId>{add82, add83}));
    }

    void regionsReplaceAnnotationHullsAndKeepTints()
    {
        GraphView view;
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        // Without regions: the annotation hulls (no region id).
        QVERIFY(!view.scene()->hullItems().empty());
        for (auto* h : view.scene()->hullItems()) {
            QVERIFY(h->regionId().isEmpty());
        }
        const QColor blue(QStringLiteral("#3366cc"));
        const QColor red(QStringLiteral("#cc3333"));
        std::vector<RegionOverlay> regions{
            {QStringLiteral("r0"), QStringLiteral("mlp"), ids(view, {"gelu", "view_11"}), blue},
            {QStringLiteral("r7"), QStringLiteral("tail"), ids(view, {"add_5"}), red}};
        view.decorations()->setRegions(DecorationLayer::Regions, regions);
        QCOMPARE(view.scene()->hullItems().size(), std::size_t(2));
        QVERIFY(view.scene()->hullItem(QStringLiteral("r0")) != nullptr);
        QCOMPARE(view.scene()->hullItem(QStringLiteral("r7"))->tint(), red);
        // The hull lies around its nodes' boxes.
        const QRectF hull = view.scene()->hullItem(QStringLiteral("r0"))->sceneBoundingRect();
        QVERIFY(hull.contains(view.scene()->nodeItem(idOf(view, "gelu"))->sceneBoundingRect()));
        QVERIFY(hull.contains(view.scene()->nodeItem(idOf(view, "view_11"))->sceneBoundingRect()));

        const QColor green(QStringLiteral("#2e9d4a"));
        view.decorations()->setRegionTint(DecorationLayer::CompileState, QStringLiteral("r7"),
                                          green);
        QCOMPARE(view.scene()->hullItem(QStringLiteral("r7"))->tint(), green);
        // The document changed: the cache tint sticks to the id.
        view.decorations()->setRegions(DecorationLayer::Regions, regions);
        QCOMPARE(view.scene()->hullItem(QStringLiteral("r7"))->tint(), green);
        QCOMPARE(view.scene()->hullItem(QStringLiteral("r0"))->tint(), blue);
        view.decorations()->setRegionTint(DecorationLayer::CompileState, QStringLiteral("r7"),
                                          QColor());
        QCOMPARE(view.scene()->hullItem(QStringLiteral("r7"))->tint(), red);

        // Collapse/expand rebuilds the scene; the hulls come back.
        view.collapseAll();
        QVERIFY(waitForLayout(view));
        view.expandAll();
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.scene()->hullItems().size(), std::size_t(2));

        view.decorations()->clearRegions(DecorationLayer::Regions);
        QVERIFY(!view.scene()->hullItems().empty());
        QVERIFY(view.scene()->hullItem(QStringLiteral("r0")) == nullptr);
    }

    // Regions inside one collapsed module share its hull: drawn once each, forty translucent
    // tints stacked into an opaque block over the module (GPT-12's backward, 50 regions
    // proposed, 48 inside the collapsed blocks). The shared hull names them all and is found
    // by each id; it takes the first region's tint.
    void regionsInsideOneCollapsedModuleShareItsHull()
    {
        GraphView view;
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        const QColor blue(QStringLiteral("#3366cc"));
        const QColor red(QStringLiteral("#cc3333"));
        std::vector<RegionOverlay> regions{
            {QStringLiteral("r0"), QStringLiteral("mlp"), ids(view, {"view_10", "gelu"}), blue},
            {QStringLiteral("r7"), QStringLiteral("tail"), ids(view, {"view_11"}), red}};
        view.decorations()->setRegions(DecorationLayer::Regions, regions);
        QCOMPARE(view.scene()->hullItems().size(), std::size_t(2)); // expanded: one each
        view.collapseAll();
        QVERIFY(waitForLayout(view));
        QGraphicsItem* shows = view.scene()->itemShowing(idOf(view, "gelu"));
        QVERIFY(shows);
        // By hand: view_10, gelu and view_11 are lines 58-60 of the first block's mlp (line 50).
        QCOMPARE(view.scene()->itemShowing(idOf(view, "view_11")), shows);
        QCOMPARE(view.scene()->hullItems().size(), std::size_t(1));
        views::HullItem* hull = view.scene()->hullItem(QStringLiteral("r0"));
        QVERIFY(hull);
        QCOMPARE(view.scene()->hullItem(QStringLiteral("r7")), hull);
        QCOMPARE(hull->regionIds(), (QStringList{QStringLiteral("r0"), QStringLiteral("r7")}));
        QCOMPARE(hull->tint(), blue);
        QVERIFY2(hull->toolTip().contains(QStringLiteral("2 regions")),
                 qPrintable(hull->toolTip()));
        QVERIFY(hull->toolTip().contains(QStringLiteral("tail (r7)")));
        view.expandAll();
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.scene()->hullItems().size(), std::size_t(2));
    }

    void aRegionAcrossFramesGetsOneHullPerFrame()
    {
        GraphView view;
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        // gelu is printed under models.py:22 (mlp), add_2 under models.py:27 (forward): two
        // source scopes, so two frames.
        const NodeId gelu = idOf(view, "gelu");
        const NodeId add2 = idOf(view, "add_2");
        QVERIFY(view.viewGraph()->groupOf(gelu) != view.viewGraph()->groupOf(add2));
        view.decorations()->setRegions(
            DecorationLayer::Regions,
            {{QStringLiteral("r0"), QStringLiteral("r0"), {gelu, add2}, Qt::blue}});
        const auto hulls = view.scene()->hullItems();
        QCOMPARE(hulls.size(), std::size_t(2));
        const QRectF geluBox = view.scene()->nodeItem(gelu)->sceneBoundingRect();
        const QRectF addBox = view.scene()->nodeItem(add2)->sceneBoundingRect();
        QVERIFY(hulls[0]->sceneBoundingRect().contains(geluBox) !=
                hulls[1]->sceneBoundingRect().contains(geluBox));
        QVERIFY(hulls[0]->sceneBoundingRect().contains(addBox) !=
                hulls[1]->sceneBoundingRect().contains(addBox));
        view.decorations()->setRegionTint(DecorationLayer::CompileState, QStringLiteral("r0"),
                                          Qt::green);
        QCOMPARE(hulls[0]->tint(), QColor(Qt::green));
        QCOMPARE(hulls[1]->tint(), QColor(Qt::green));
    }

    void collapsedRegionNodesUseTheGroupBox()
    {
        GraphView view;
        view.setGraph(loadFixture(QStringLiteral("/fixtures/graphs/gpt12_train_bw.txt")));
        QVERIFY(waitForLayout(view));
        const NodeId add83 = idOf(view, "add_83");
        view.decorations()->setRegions(
            DecorationLayer::Regions,
            {{QStringLiteral("r0"), QStringLiteral("r0"), {add83}, Qt::blue}});
        QGraphicsItem* box = view.scene()->itemShowing(add83);
        QVERIFY(qgraphicsitem_cast<views::GroupItem*>(box) != nullptr);
        views::HullItem* hull = view.scene()->hullItem(QStringLiteral("r0"));
        QVERIFY(hull != nullptr);
        QVERIFY(hull->sceneBoundingRect().contains(box->sceneBoundingRect()));
    }

    void darkPaletteDrivesTheColours()
    {
        GraphView view;
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x24));
        dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
        dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x1c));
        dark.setColor(QPalette::Text, QColor(0xf0, 0xf0, 0xf0));
        dark.setColor(QPalette::Highlight, QColor(0x3d, 0xae, 0xe9));
        view.setPalette(dark);
        const views::GraphStyle& s = view.scene()->style();
        QCOMPARE(s.background, QColor(0x18, 0x18, 0x1c));
        QVERIFY(s.text.lightnessF() > 0.8);  // cluster labels and edge counts on the dark base
        QVERIFY(s.edge.lightnessF() > 0.8);
        QCOMPARE(s.selection, QColor(0x3d, 0xae, 0xe9));
        QVERIFY(s.boxText.lightnessF() < 0.3); // text on the (light) category fills stays dark

        // Hulls fill stronger on the dark base, and follow a switch back to a light palette.
        view.setGraph(loadFixture(QStringLiteral("/fixtures/export/small_mlp_export_graph.txt")));
        QVERIFY(waitForLayout(view));
        view.decorations()->setRegions(DecorationLayer::Regions,
                                       {{QStringLiteral("r0"), QStringLiteral("r0"),
                                         {idOf(view, "gelu")}, QColor(Qt::blue)}});
        const qreal darkAlpha =
            view.scene()->hullItem(QStringLiteral("r0"))->brush().color().alphaF();
        QPalette light;
        light.setColor(QPalette::Base, Qt::white);
        light.setColor(QPalette::Text, Qt::black);
        view.setPalette(light);
        const qreal lightAlpha =
            view.scene()->hullItem(QStringLiteral("r0"))->brush().color().alphaF();
        QVERIFY2(darkAlpha > lightAlpha + 0.05, qPrintable(QStringLiteral("%1 vs %2")
                                                               .arg(darkAlpha)
                                                               .arg(lightAlpha)));
    }
};

QTEST_MAIN(TestGraphSelection)
#include "tst_graph_selection.moc"

FXSCOPE_TEST_END
