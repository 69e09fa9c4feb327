// ProfileModel under QAbstractItemModelTester: rows for nodes then regions, numeric sort
// values, and the overlay: colours follow the time shares (a larger share is further along the
// scale, i.e. darker), the legend runs from 0 to the largest share.
#include "tests/test_file.h"
#include "views/models/profile_model.h"

#include "core/graph/graph_builder.h"

#include <QAbstractItemModelTester>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;

namespace {

profile::RuntimeProfile sample()
{
    profile::RuntimeProfile p;
    auto node = [](std::string name, double ms, double share) {
        profile::NodeProfile n;
        n.name = std::move(name);
        n.target = "aten::relu.default";
        n.eager.medianMs = ms;
        n.share = share;
        return n;
    };
    p.nodes = {node("a", 0.1, 0.1), node("b", 0.6, 0.6), node("c", 0.3, 0.3)};
    p.nodes[1].region = p.nodes[2].region = "r0";
    profile::RegionProfile r;
    r.id = "r0";
    r.nodes = {"b", "c"};
    r.eager.medianMs = 0.9;
    r.compiledMs = 0.3;
    r.share = 0.9;
    p.regions = {r};
    return p;
}

} // namespace

class TestProfileModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rowsAndSortValues()
    {
        ProfileModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setProfile(sample());
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), int(ProfileModel::ColumnCount));
        QCOMPARE(model.rowOf("r0"), 3);
        QCOMPARE(model.rowOf("c"), 2);
        QCOMPARE(model.rowOf("zz"), -1);
        const auto speed = model.index(3, ProfileModel::SpeedupColumn);
        QCOMPARE(model.data(speed, ProfileModel::SortRole).toDouble(), 3.0);
        QCOMPARE(model.data(speed).toString(), QString("3.00×"));
        // Shares of the Eager column shown: a's 0.1 ms and r0's 0.9 ms (b and c are in r0).
        QCOMPARE(model.data(model.index(0, ProfileModel::ShareColumn)).toString(),
                 QString("10.0%"));
        QCOMPARE(model.data(model.index(1, ProfileModel::ShareColumn)).toString(),
                 QString("in r0"));
        QCOMPARE(model.data(model.index(3, ProfileModel::ShareColumn)).toString(),
                 QString("90.0%"));
        QVERIFY(model.data(model.index(3, 0), ProfileModel::IsRegionRole).toBool());
        QVERIFY(model.data(model.index(0, ProfileModel::CompiledColumn)).toString().isEmpty());
    }

    void overlayColoursFollowShares()
    {
        graph::GraphBuilder b;
        const auto x = b.placeholder("x");
        const auto a = b.call("a", "aten::relu.default", {graph::Argument::ref(x)});
        const auto bb = b.call("b", "aten::relu.default", {graph::Argument::ref(a)});
        const auto c = b.call("c", "aten::relu.default", {graph::Argument::ref(bb)});
        b.output({graph::Argument::ref(c)});
        auto g = b.build().value();
        const auto colors = ProfileModel::overlayColors(sample(), *g);
        QCOMPARE(colors.size(), std::size_t{3});
        // shares a 0.1 < c 0.3 < b 0.6: lightness falls and hue moves toward red.
        QVERIFY(colors.at(a).lightnessF() > colors.at(c).lightnessF());
        QVERIFY(colors.at(c).lightnessF() > colors.at(bb).lightnessF());
        QVERIFY(colors.at(a).hslHueF() > colors.at(bb).hslHueF());
        QCOMPARE(colors.at(bb), ProfileModel::shareColor(1.0, 1.0)); // the largest: scale end
        QCOMPARE(ProfileModel::shareColor(0.0, 0.0), ProfileModel::shareColor(0.0, 1.0));
        const auto legend = ProfileModel::legend(sample());
        QCOMPARE(legend.size(), std::size_t{5});
        QCOMPARE(legend.front().first, 0.0);
        QCOMPARE(legend.back().first, 0.6);
        QCOMPARE(legend.back().second, colors.at(bb));
        for (std::size_t i = 1; i < legend.size(); ++i) {
            QVERIFY(legend[i].second.lightnessF() < legend[i - 1].second.lightnessF());
        }
    }
};

QTEST_MAIN(TestProfileModel)
#include "tst_profile_model.moc"

FXSCOPE_TEST_END
