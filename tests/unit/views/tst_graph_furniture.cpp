// The graph view's furniture (issue: polish): the legend stays in the top-left and the overview
// in the bottom-right corner of the viewport across resizes (1280×800 → 1920×1080 → back), each
// moves to the other corner on its side when the selected node lies under it, the legend's
// fold and the overview switch are remembered for the next view, and a view state (expanded
// groups, zoom, centre) taken from one view is restored on another.
#include "tests/test_file.h"
#include "tests/unit/views/graph_view_test_util.h"

#include "views/graph/graph_canvas.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_legend.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"

#include <QStandardPaths>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;
using fxs::test::loadFixture;
using fxs::test::waitForLayout;

namespace {

const QString kResnet = QStringLiteral("/fixtures/graphs/resnet18_infer.txt");

QRect viewportArea(const GraphView& view)
{
    return view.canvas()->viewport()->geometry();
}

// The selected node's box in the canvas's coordinates (where the overlays live).
QRect selectedBox(const GraphView& view)
{
    const auto* item = view.scene()->nodeItem(*view.selectedNode());
    return view.canvas()
        ->mapFromScene(item->sceneBoundingRect())
        .boundingRect()
        .translated(viewportArea(view).topLeft());
}

} // namespace

class TestGraphFurniture : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_graph_furniture"));
    }

    void overlaysStayInTheirCornersAcrossResizes()
    {
        GraphView view;
        view.resize(1280, 800);
        view.show();
        view.setGraph(loadFixture(kResnet));
        QVERIFY(waitForLayout(view));
        view.expandAll();
        QVERIFY(waitForLayout(view));
        for (int i = 0; i < 6; ++i) {
            view.zoomIn(); // the whole graph no longer fits: the overview shows
        }
        QVERIFY(view.minimap()->isVisible());
        for (const QSize size : {QSize(1920, 1080), QSize(1280, 800), QSize(1600, 900)}) {
            view.resize(size);
            QCoreApplication::processEvents();
            const QRect area = viewportArea(view);
            const QRect legend = view.legend()->geometry();
            const QRect mini = view.minimap()->geometry();
            QVERIFY2(area.contains(legend) && legend.topLeft() == area.topLeft() + QPoint(8, 8),
                     qPrintable(QStringLiteral("legend at %1,%2").arg(legend.x()).arg(legend.y())));
            QVERIFY2(area.contains(mini) &&
                         mini.bottomRight() == area.bottomRight() - QPoint(8, 8),
                     qPrintable(QStringLiteral("overview at %1,%2 in %3x%4")
                                    .arg(mini.x()).arg(mini.y())
                                    .arg(area.width()).arg(area.height())));
        }
    }

    void overlaysNeverCoverTheSelectedNode()
    {
        GraphView view;
        view.resize(1280, 800);
        view.show();
        view.setGraph(loadFixture(kResnet));
        QVERIFY(waitForLayout(view));
        view.expandAll(); // every node drawn (it opens with its stages collapsed)
        QVERIFY(waitForLayout(view));
        view.legend()->setFolded(false);
        // The node nearest the scene's top-left, scrolled into the viewport's top-left corner
        // (where the legend sits), then selected.
        graph::NodeId id = graph::kNoNode;
        qreal best = 1e18;
        for (graph::NodeId n = 0; n < view.graph()->size(); ++n) {
            if (const auto* item = view.scene()->nodeItem(n)) {
                const QPointF p =
                    item->sceneBoundingRect().topLeft() - view.scene()->sceneRect().topLeft();
                if (p.manhattanLength() < best) {
                    best = p.manhattanLength();
                    id = n;
                }
            }
        }
        QVERIFY(id != graph::kNoNode);
        for (int i = 0; i < 4; ++i) {
            view.zoomIn();
        }
        view.canvas()->centerOn(view.scene()->sceneRect().topLeft());
        view.setSelectedNodes({id});
        QCoreApplication::processEvents();
        const QRect selected = selectedBox(view);
        const QRect topLeft(viewportArea(view).topLeft() + QPoint(8, 8), view.legend()->size());
        QVERIFY2(topLeft.intersects(selected), "the node is under the legend's usual corner");
        QVERIFY(!view.legend()->geometry().intersects(selected));
        QCOMPARE(view.legend()->geometry().left(), viewportArea(view).left() + 8);
    }

    void foldAndOverviewAreRemembered()
    {
        {
            GraphView view;
            view.legend()->setFolded(true);
            view.setOverviewEnabled(false);
        }
        GraphView next;
        QVERIFY(next.legend()->isFolded());
        QVERIFY(!next.isOverviewEnabled());
        next.legend()->setFolded(false);
        next.setOverviewEnabled(true);
        GraphView third;
        QVERIFY(!third.legend()->isFolded());
        QVERIFY(third.isOverviewEnabled());
    }

    void viewStateRestoresOnAnotherView()
    {
        GraphView a;
        a.resize(1280, 800);
        a.show();
        a.setGraph(loadFixture(kResnet));
        QVERIFY(waitForLayout(a));
        a.collapseAll();
        QVERIFY(waitForLayout(a));
        a.setGroupExpanded(1, true);
        QVERIFY(waitForLayout(a));
        a.zoomIn();
        a.zoomIn();
        const auto state = a.viewState();
        QVERIFY(state);
        QCOMPARE(state->expanded, std::vector<layout::GroupId>{1});

        GraphView b;
        b.resize(1280, 800);
        b.show();
        b.setGraph(loadFixture(kResnet));
        b.restoreViewState(*state);
        QVERIFY(waitForLayout(b));
        QTest::qWait(50); // the centre is applied again once the scroll range follows
        const auto restored = b.viewState();
        QVERIFY(restored);
        QCOMPARE(restored->expanded, state->expanded);
        QVERIFY(qFuzzyCompare(restored->zoom, state->zoom));
        // Within a few pixels: scroll positions are whole viewport pixels on each view.
        QVERIFY2(std::abs(restored->center.x() - state->center.x()) < 8.0 &&
                     std::abs(restored->center.y() - state->center.y()) < 8.0,
                 qPrintable(QStringLiteral("%1,%2 vs %3,%4")
                                .arg(restored->center.x()).arg(restored->center.y())
                                .arg(state->center.x()).arg(state->center.y())));
    }
};

QTEST_MAIN(TestGraphFurniture)
#include "tst_graph_furniture.moc"

FXSCOPE_TEST_END
