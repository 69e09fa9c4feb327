// GraphView (offscreen): opens a fixture graph as deep as it reads, a highlighted path opens
// its groups, find moves the selection, collapse/expand keeps
// the selection, double-clicking an edge jumps to its far end, the newest setGraph wins, and
// exportSvg/exportPng write valid files. Counts are taken from the fixture text by hand.
#include "tests/test_file.h"
#include "tests/unit/views/graph_view_test_util.h"
#include "views/graph/find_bar.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"

#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using fxs::views::GraphView;

using fxs::test::loadFixture;
using fxs::test::showWhole;
using fxs::test::waitForLayout;

namespace {

NodeId idOf(const GraphView& view, const char* name)
{
    return view.graph()->find(name).value();
}

} // namespace

class TestGraphView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A graph opens as deep as it reads fitted, whatever its node count: GPT-2's 152-node
    // forward expanded is 1330 × 1851 pt (fitted in 900 × 700: zoom 0.38), so its tallest
    // groups open collapsed; a 12-node MLP opens whole. Expand All draws every node.
    void opensAsDeepAsItReads()
    {
        GraphView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        GraphPtr g = loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"));
        QVERIFY(g);
        QSignalSpy finished(&view, &GraphView::layoutFinished);
        view.setGraph(g);
        QVERIFY(view.isLayoutPending());
        QVERIFY(waitForLayout(view));
        QCOMPARE(finished.count(), 1); // the opening's layouts are one job
        QVERIFY(view.scene()->groupItemCount() > 0);
        QVERIFY(view.scene()->nodeItemCount() < g->size());
        const QSizeF viewport = view.canvas()->viewport()->size();
        const QRectF scene = view.scene()->sceneRect();
        const qreal fitted = std::min(viewport.width() / scene.width(),
                                      viewport.height() / scene.height());
        QVERIFY2(fitted >= 0.5, qPrintable(QString::number(fitted)));

        view.expandAll();
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.scene()->nodeItemCount(), g->size());
        QCOMPARE(view.scene()->groupItemCount(), std::size_t(0));
        int hulls = 0;
        for (QGraphicsItem* item : view.scene()->items()) {
            hulls += dynamic_cast<views::HullItem*>(item) ? 1 : 0;
        }
        QVERIFY(hulls > 0); // the MLPs are annotated compile_with_inductor: 0

        GraphPtr mlp = loadFixture(QStringLiteral("/fixtures/export/small_mlp_export_graph.txt"));
        view.setGraph(mlp);
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.scene()->nodeItemCount(), mlp->size());
    }

    // A highlighted path (a refused edit's cycle) opens the groups holding it; find matches
    // only mark the collapsed group.
    void highlightOpensTheGroupsOfItsPath()
    {
        GraphView view;
        GraphPtr g = loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"));
        view.setGraph(g);
        QVERIFY(waitForLayout(view));
        view.collapseAll();
        QVERIFY(waitForLayout(view));
        const NodeId gelu = idOf(view, "gelu");
        QVERIFY(view.scene()->nodeItem(gelu) == nullptr);
        view.decorations()->setHighlighted(views::DecorationLayer::Search, {gelu});
        QVERIFY(!view.isLayoutPending());
        QVERIFY(view.scene()->nodeItem(gelu) == nullptr);
        view.decorations()->setHighlighted(views::DecorationLayer::Highlight, {gelu});
        QVERIFY(waitForLayout(view));
        QVERIFY(view.scene()->nodeItem(gelu) != nullptr);
        QVERIFY(view.scene()->nodeItem(gelu)->isMarkedHighlighted());
    }

    void findMovesSelection()
    {
        GraphView view;
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        QSignalSpy selected(&view, &GraphView::nodeSelected);
        view.showFindBar();
        view.setFindText(QStringLiteral("ADDMM")); // case-insensitive
        QCOMPARE(view.findMatchCount(), 7);       // addmm .. addmm_6
        view.findNext();
        QCOMPARE(view.selectedNode(), idOf(view, "addmm"));
        view.findNext();
        QCOMPARE(view.selectedNode(), idOf(view, "addmm_1"));
        view.findPrevious();
        QCOMPARE(view.selectedNode(), idOf(view, "addmm"));
        view.findPrevious(); // wraps around
        QCOMPARE(view.selectedNode(), idOf(view, "addmm_6"));
        QCOMPARE(selected.count(), 4);
        QCOMPARE(selected.last().at(0).value<NodeId>(), idOf(view, "addmm_6"));
        QVERIFY(view.scene()->nodeItem(idOf(view, "addmm_6"))->isMarkedSelected());
        QVERIFY(!view.scene()->nodeItem(idOf(view, "addmm"))->isMarkedSelected());
        view.setFindText(QStringLiteral("no_such_node"));
        QCOMPARE(view.findMatchCount(), 0);
    }

    void selectingHiddenNodeExpandsItsGroup()
    {
        GraphView view;
        GraphPtr g = loadFixture(QStringLiteral("/fixtures/graphs/gpt12_train_bw.txt"));
        view.setGraph(g);
        QVERIFY(waitForLayout(view));
        QVERIFY(view.scene()->nodeItemCount() + view.scene()->groupItemCount() < 100);
        const NodeId add83 = idOf(view, "add_83"); // last statement of the last block
        QVERIFY(view.scene()->nodeItem(add83) == nullptr);
        view.selectNode(add83);
        QCOMPARE(view.selectedNode(), add83);
        QVERIFY(waitForLayout(view));
        QVERIFY(view.scene()->nodeItem(add83) != nullptr);
        QVERIFY(view.scene()->nodeItem(add83)->isMarkedSelected());
        // Centred: the node is inside the visible part of the canvas.
        QVERIFY(view.canvas()->visibleSceneRect().contains(
            view.scene()->nodeItem(add83)->scenePos()));
    }

    void collapseAndExpandKeepSelection()
    {
        GraphView view;
        view.setGraph(loadFixture(QStringLiteral("/fixtures/graphs/gpt12_train_bw.txt")));
        QVERIFY(waitForLayout(view));
        const NodeId add83 = idOf(view, "add_83");
        view.selectNode(add83);
        QVERIFY(waitForLayout(view));
        const layout::GroupId group = view.viewGraph()->groupOf(add83);
        QVERIFY(group != layout::kRootGroup);
        QSignalSpy cleared(&view, &GraphView::selectionCleared);

        view.setGroupExpanded(group, false);
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.selectedNode(), add83);
        QVERIFY(view.scene()->nodeItem(add83) == nullptr);
        views::GroupItem* box = view.scene()->groupItem(group);
        QVERIFY(box != nullptr);
        QVERIFY(box->holdsSelection());

        view.setGroupExpanded(group, true);
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.selectedNode(), add83);
        QVERIFY(view.scene()->nodeItem(add83)->isMarkedSelected());

        view.collapseAll();
        QVERIFY(waitForLayout(view));
        view.expandAll();
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.selectedNode(), add83);
        QCOMPARE(view.scene()->nodeItemCount(), view.graph()->size());
        QCOMPARE(cleared.count(), 0);
    }

    void doubleClickOnEdgeJumpsToFarEnd()
    {
        GraphView view;
        view.resize(1000, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setGraph(loadFixture(QStringLiteral("/fixtures/export/small_mlp_export_graph.txt")));
        QVERIFY(waitForLayout(view));
        views::EdgeItem* edge = nullptr;
        for (QGraphicsItem* item : view.scene()->items()) {
            if (auto* e = dynamic_cast<views::EdgeItem*>(item); e && e->path().length() > 40) {
                edge = e;
                break;
            }
        }
        QVERIFY(edge != nullptr);
        // A point on the edge a little after its start (its tail): the far end is the head.
        const QPointF nearTail = edge->path().pointAtPercent(0.15);
        QCOMPARE(edge->farEnd(nearTail), edge->toNode());
        view.canvas()->centerOn(nearTail);
        const QPoint at = view.canvas()->mapFromScene(nearTail);
        QTest::mouseDClick(view.canvas()->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(view.selectedNode(), edge->toNode());
    }

    void zoomFitMinimapAndShortcuts()
    {
        GraphView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.activateWindow();
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        views::GraphCanvas* canvas = view.canvas();
        const QRectF scene = view.scene()->sceneRect();
        // Opens fitted: the whole scene is in view, and the overview is hidden.
        QVERIFY(canvas->visibleSceneRect().adjusted(-2, -2, 2, 2).contains(scene));
        QVERIFY(!view.minimap()->isVisible());
        const qreal fitted = canvas->zoom();
        view.zoomIn();
        QVERIFY(qFuzzyCompare(canvas->zoom(), fitted * 1.25));
        view.zoomOut();
        QVERIFY(qFuzzyCompare(canvas->zoom(), fitted));
        canvas->setFocus();
        QTest::keyClick(canvas, Qt::Key_Plus);
        QVERIFY(qFuzzyCompare(canvas->zoom(), fitted * 1.25));
        for (int i = 0; i < 8; ++i) {
            view.zoomIn();
        }
        QVERIFY(!canvas->visibleSceneRect().contains(scene));
        QVERIFY(view.minimap()->isVisible());
        // A click on the overview centres the main view there.
        views::Minimap* mini = view.minimap();
        const QPointF spot(scene.width() * 0.3, scene.height() * 0.7);
        const QPoint target = mini->mapFromScene(spot);
        QTest::mouseClick(mini->viewport(), Qt::LeftButton, {}, target);
        const QPointF centre = canvas->visibleSceneRect().center();
        const QPointF wanted = mini->mapToScene(target);
        QVERIFY2(std::abs(centre.x() - wanted.x()) < 20 && std::abs(centre.y() - wanted.y()) < 20,
                 qPrintable(QStringLiteral("%1,%2 vs %3,%4").arg(centre.x()).arg(centre.y())
                                .arg(wanted.x()).arg(wanted.y())));
        // Ctrl+0 fits again; Ctrl+F opens the find bar.
        QTest::keyClick(canvas, Qt::Key_0, Qt::ControlModifier);
        QVERIFY(qFuzzyCompare(canvas->zoom(), fitted));
        QVERIFY(!view.findBar()->isVisible());
        QTest::keyClick(canvas, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(view.findBar()->isVisible());
    }

    void newestGraphWins()
    {
        GraphView view;
        GraphPtr a = loadFixture(QStringLiteral("/fixtures/graphs/resnet18_infer.txt"));
        GraphPtr b = loadFixture(QStringLiteral("/fixtures/export/small_mlp_export_graph.txt"));
        view.setGraph(a);
        view.setGraph(b);
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.graph(), b);
        QCOMPARE(view.scene()->viewGraph()->graphPtr(), b);
        QCOMPARE(view.scene()->nodeItemCount(), b->size());
    }

    void exportSvgWritesValidSvg()
    {
        GraphView view;
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("view.svg"));
        QVERIFY(!view.exportSvg(svg)); // nothing shown yet
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        QVERIFY(view.exportSvg(svg));
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        bool sawSvgRoot = false;
        int texts = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                sawSvgRoot = sawSvgRoot || xml.name() == QLatin1String("svg");
                texts += xml.name() == QLatin1String("text") ? 1 : 0;
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(sawSvgRoot);
        QVERIFY(texts >= int(view.graph()->size())); // at least one label line per node

        const QString png = dir.filePath(QStringLiteral("view.png"));
        QVERIFY(view.exportPng(png));
        const QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() > 100 && image.height() > 100);
    }

    void overlaysAndHighlights()
    {
        GraphView view;
        view.setGraph(loadFixture(QStringLiteral("/fixtures/export/small_mlp_export_graph.txt")));
        QVERIFY(waitForLayout(view));
        const NodeId first = 0;
        view.decorations()->setHighlighted(fxs::views::DecorationLayer::Highlight, {first});
        QVERIFY(view.scene()->nodeItem(first)->isMarkedHighlighted());
        view.decorations()->setNodeColors(fxs::views::DecorationLayer::ProfileHeat,
                                          {{first, QColor(Qt::red)}});
        QCOMPARE(view.scene()->nodeItem(first)->overlay(), QColor(Qt::red));
        view.decorations()->clear(fxs::views::DecorationLayer::ProfileHeat);
        QVERIFY(!view.scene()->nodeItem(first)->overlay().has_value());
    }

    // A heat layer on a collapsed group: the group takes its darkest (slowest) node's colour
    // and puts what its nodes measured before its subtitle; a node outside it adds nothing.
    // Expanded, the nodes show their own colours; cleared, the group is plain again.
    void collapsedGroupsShowTheirNodesHeat()
    {
        GraphView view;
        view.setGraph(loadFixture(QStringLiteral("/fixtures/graphs/gpt12_train_bw.txt")));
        QVERIFY(waitForLayout(view));
        const NodeId add83 = idOf(view, "add_83");
        const layout::GroupId group = view.viewGraph()->groupOf(add83);
        QVERIFY(group != layout::kRootGroup);
        NodeId other = add83;
        NodeId outside = add83;
        for (NodeId id = 0; id < view.graph()->size(); ++id) {
            const layout::GroupId g = view.viewGraph()->groupOf(id);
            if (g == group && id != add83 && other == add83) {
                other = id;
            }
            if (g == layout::kRootGroup && outside == add83) {
                outside = id;
            }
        }
        QVERIFY(other != add83 && outside != add83);
        view.setGroupExpanded(group, false);
        QVERIFY(waitForLayout(view));
        const QColor pale(QStringLiteral("#fff0b0"));
        const QColor dark(QStringLiteral("#a02010"));
        fxs::views::NodeAmounts amounts;
        amounts.unit = QStringLiteral("µs");
        amounts.values = {{add83, 20.0}, {other, 5.5}, {outside, 100.0}};
        view.decorations()->setNodeColors(fxs::views::DecorationLayer::RuntimeTrace,
                                          {{add83, dark}, {other, pale}, {outside, pale}},
                                          amounts);
        views::GroupItem* box = view.scene()->groupItem(group);
        QVERIFY(box != nullptr);
        QCOMPARE(box->overlay(), dark);
        QCOMPARE(box->note(), QStringLiteral("25.5 µs"));
        QVERIFY(box->toolTip().contains(QStringLiteral("25.5 µs in all")));

        // A colour layer without amounts still colours the group, with no note.
        view.decorations()->setNodeColors(fxs::views::DecorationLayer::RuntimeTrace,
                                          {{other, pale}});
        QCOMPARE(box->overlay(), pale);
        QVERIFY(box->note().isEmpty());

        view.decorations()->setNodeColors(fxs::views::DecorationLayer::RuntimeTrace,
                                          {{add83, dark}, {other, pale}}, amounts);
        view.setGroupExpanded(group, true);
        QVERIFY(waitForLayout(view));
        QCOMPARE(view.scene()->nodeItem(add83)->overlay(), dark);
        QCOMPARE(view.scene()->nodeItem(other)->overlay(), pale);
        view.setGroupExpanded(group, false);
        QVERIFY(waitForLayout(view));
        box = view.scene()->groupItem(group);
        QCOMPARE(box->overlay(), dark);
        QCOMPARE(box->note(), QStringLiteral("25.5 µs"));
        view.decorations()->clear(fxs::views::DecorationLayer::RuntimeTrace);
        QVERIFY(!box->overlay().has_value());
        QVERIFY(box->note().isEmpty());
    }
};

QTEST_MAIN(TestGraphView)
#include "tst_graph_view.moc"

FXSCOPE_TEST_END
