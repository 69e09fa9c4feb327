// GraphDecorations: two layers on one node, the higher priority wins whatever the order of the
// writes; clearing a layer shows the lower one; region tints resolve the same way over the
// regions' own; a new graph clears every layer but the banner; one owner per layer.
#include "tests/test_file.h"
#include "views/models/graph_decorations.h"

#include "core/graph/graph_builder.h"

#include <QSignalSpy>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::views::DecorationLayer;
using fxs::views::GraphDecorations;
using fxs::views::RegionOverlay;

namespace {

const QColor kRed(Qt::red);
const QColor kGreen(Qt::green);
const QColor kBlue(Qt::blue);

graph::GraphPtr someGraph()
{
    auto built = graph::GraphBuilder("g").build();
    return built ? *built : nullptr;
}

} // namespace

class TestGraphDecorations : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void theHigherLayerWinsWhateverTheOrderOfWrites_data()
    {
        QTest::addColumn<bool>("higherFirst");
        QTest::newRow("higher written first") << true;
        QTest::newRow("higher written last") << false;
    }

    void theHigherLayerWinsWhateverTheOrderOfWrites()
    {
        QFETCH(bool, higherFirst);
        QVERIFY(views::decorationPriority(DecorationLayer::CompileState) >
                views::decorationPriority(DecorationLayer::ProfileHeat));
        GraphDecorations d;
        QSignalSpy changed(&d, &GraphDecorations::nodeColorsChanged);
        const auto writeHigher = [&] {
            d.setNodeColors(DecorationLayer::CompileState, {{7, kGreen}});
        };
        const auto writeLower = [&] {
            d.setNodeColors(DecorationLayer::ProfileHeat, {{7, kRed}, {8, kBlue}});
        };
        if (higherFirst) {
            writeHigher();
            writeLower();
        } else {
            writeLower();
            writeHigher();
        }
        QCOMPARE(changed.size(), 2);
        QCOMPARE(d.nodeColor(7), std::optional<QColor>(kGreen));
        QCOMPARE(d.nodeColor(8), std::optional<QColor>(kBlue)); // only the lower colours it
        QCOMPARE(d.nodeColors().at(7), kGreen);
        QVERIFY(!d.nodeColor(9).has_value());
        // Clearing the higher layer shows the lower one again.
        d.clear(DecorationLayer::CompileState);
        QCOMPARE(d.nodeColor(7), std::optional<QColor>(kRed));
        d.clear(DecorationLayer::ProfileHeat);
        QVERIFY(d.nodeColors().empty());
    }

    void regionTintsResolveOverTheRegionsOwn()
    {
        GraphDecorations d;
        QVERIFY(!d.regions().has_value()); // none: the view draws the annotation hulls
        d.setRegions(DecorationLayer::Regions,
                     {{QStringLiteral("r0"), QStringLiteral("a"), {1}, kBlue},
                      {QStringLiteral("r1"), QStringLiteral("b"), {2}, kBlue}});
        QSignalSpy tint(&d, &GraphDecorations::regionTintChanged);
        // The compile state's tint is written before the regions are replaced and sticks to
        // the id across the replacement.
        d.setRegionTint(DecorationLayer::CompileState, QStringLiteral("r1"), kGreen);
        QCOMPARE(tint.size(), 1);
        QCOMPARE(tint.first().at(0).toString(), QStringLiteral("r1"));
        d.setRegions(DecorationLayer::Regions,
                     {{QStringLiteral("r0"), QStringLiteral("a"), {1}, kBlue},
                      {QStringLiteral("r1"), QStringLiteral("b"), {2, 3}, kRed}});
        const auto regions = d.regions();
        QVERIFY(regions.has_value());
        QCOMPARE(regions->size(), std::size_t(2));
        QCOMPARE(regions->at(0).tint, kBlue);
        QCOMPARE(regions->at(1).tint, kGreen);
        QCOMPARE(d.regionTint(QStringLiteral("r1")), kGreen);
        d.setRegionTint(DecorationLayer::CompileState, QStringLiteral("r1"), QColor());
        QCOMPARE(d.regionTint(QStringLiteral("r1")), kRed); // the region's own again
        d.clearRegions(DecorationLayer::Regions);
        QVERIFY(!d.regions().has_value());
        QVERIFY(!d.regionTint(QStringLiteral("r1")).isValid());
    }

    void highlightsOfEveryLayerShowAndTheTopBannerWins()
    {
        GraphDecorations d;
        d.setHighlighted(DecorationLayer::Highlight, {1, 2});
        d.setHighlighted(DecorationLayer::Comparison, {2, 5});
        QCOMPARE(d.highlighted(), (std::unordered_set<graph::NodeId>{1, 2, 5}));
        d.setHighlighted(DecorationLayer::Highlight, {});
        QCOMPARE(d.highlighted(), (std::unordered_set<graph::NodeId>{2, 5}));
        QSignalSpy banner(&d, &GraphDecorations::bannerChanged);
        d.setBanner(DecorationLayer::Banner, QStringLiteral("graph break"));
        d.setBanner(DecorationLayer::Banner, QStringLiteral("graph break")); // unchanged
        QCOMPARE(banner.size(), 1);
        QCOMPARE(d.banner(), QStringLiteral("graph break"));
    }

    void aNewGraphClearsEveryLayerButTheBanner()
    {
        GraphDecorations d;
        d.setGraph(someGraph());
        d.setNodeColors(DecorationLayer::ProfileHeat, {{1, kRed}});
        d.setHighlighted(DecorationLayer::Highlight, {1});
        d.setRegions(DecorationLayer::Regions,
                     {{QStringLiteral("r0"), QStringLiteral("a"), {1}, kBlue}});
        d.setRegionTint(DecorationLayer::CompileState, QStringLiteral("r0"), kGreen);
        d.setBanner(DecorationLayer::Banner, QStringLiteral("note"));
        QSignalSpy graphChanged(&d, &GraphDecorations::graphChanged);
        QSignalSpy colours(&d, &GraphDecorations::nodeColorsChanged);
        QSignalSpy regions(&d, &GraphDecorations::regionsChanged);
        // Owners write their layer again on graphChanged: by then the layers are empty.
        bool emptyWhenTold = false;
        connect(&d, &GraphDecorations::graphChanged, this, [&] {
            emptyWhenTold = d.nodeColors().empty() && d.highlighted().empty() && !d.regions();
        });
        const graph::GraphPtr next = someGraph();
        d.setGraph(next);
        QCOMPARE(graphChanged.size(), 1);
        QVERIFY(emptyWhenTold);
        QCOMPARE(colours.size(), 1);
        QCOMPARE(regions.size(), 1);
        QCOMPARE(d.graph(), next);
        QVERIFY(!d.regionTint(QStringLiteral("r0")).isValid());
        QCOMPARE(d.banner(), QStringLiteral("note"));
    }

    void oneOwnerPerLayer()
    {
        GraphDecorations d;
        QObject first;
        QObject second;
        QVERIFY(d.claim(DecorationLayer::CompileState, &first));
        QVERIFY(d.claim(DecorationLayer::CompileState, &first)); // again: still its own
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("compileState is owned already"));
        QVERIFY(!d.claim(DecorationLayer::CompileState, &second));
        QCOMPARE(d.owner(DecorationLayer::CompileState), &first);
        QVERIFY(d.claim(DecorationLayer::ProfileHeat, &second));
    }
};

QTEST_GUILESS_MAIN(TestGraphDecorations)
#include "tst_graph_decorations.moc"

FXSCOPE_TEST_END
