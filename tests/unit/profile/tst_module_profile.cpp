// Profile by module: a two-layer residual stack with Dynamo names (layers.0/1, each with an fc)
// and node times set by hand; each module sums its own and its descendants' nodes, shares are of
// every profiled node's time, nodes in no module (or not in the graph) are counted apart.
#include "core/profile/module_profile.h"
#include "core/structure/structure.h"

#include "tests/unit/structure/synthetic_graphs.h"

#include <QtTest>

using namespace fxs;
using namespace fxs::profile;

namespace {

std::string dynamoName(std::size_t k)
{
    return "L_self_modules_layers_modules_" + std::to_string(k) + "_modules_fc_parameters_weight_";
}

NodeProfile timed(const std::string& name, double ms, double flops = 0.0)
{
    NodeProfile n;
    n.name = name;
    n.eager.medianMs = ms;
    n.bytesMoved = 100;
    n.flops = flops;
    return n;
}

const ModuleProfile* find(const ModuleBreakdown& b, const std::string& path)
{
    for (const auto& m : b.modules) {
        if (m.path == path) {
            return &m;
        }
    }
    return nullptr;
}

} // namespace

class TestModuleProfile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sumsPerModule()
    {
        const auto g = test::residualStack({32, 32}, dynamoName);
        auto tree = structure::recoverStructure(*g);
        QVERIFY(tree.ok());
        RuntimeProfile p;
        // Layer 0: 1 + 0.5 + 0.25 + 0.25 = 2 ms (fc: the mm, 1 ms); layer 1: 4 ms (fc: 3 ms);
        // a node the graph does not have: 2 ms. Total 8 ms.
        p.nodes = {timed("mm_0", 1.0, 10.0), timed("relu_0", 0.5), timed("sum_0", 0.25),
                   timed("add_0", 0.25),     timed("mm_1", 3.0, 20.0), timed("relu_1", 0.5),
                   timed("sum_1", 0.25),     timed("add_1", 0.25),   timed("ghost", 2.0)};
        const ModuleBreakdown b = profileByModule(p, *g, *tree);
        const std::vector<std::pair<std::string, double>> expected{
            {"layers", 6.0}, {"layers.0", 2.0}, {"layers.0.fc", 1.0},
            {"layers.1", 4.0}, {"layers.1.fc", 3.0}};
        QCOMPARE(b.modules.size(), expected.size());
        for (std::size_t k = 0; k < expected.size(); ++k) {
            QCOMPARE(b.modules[k].path, expected[k].first); // preorder
            QCOMPARE(b.modules[k].eagerMs, expected[k].second);
            QCOMPARE(b.modules[k].share, expected[k].second / 8.0);
        }
        QCOMPARE(find(b, "layers")->nodes, std::size_t(8));
        QCOMPARE(find(b, "layers")->depth, 0);
        QCOMPARE(find(b, "layers.1.fc")->depth, 2);
        QCOMPARE(find(b, "layers.1.fc")->nodes, std::size_t(1));
        QCOMPARE(find(b, "layers.1.fc")->flops, 20.0);
        QCOMPARE(find(b, "layers.0")->bytesMoved, std::int64_t(400));
        QCOMPARE(b.unassignedNodes, std::size_t(1));
        QCOMPARE(b.unassignedMs, 2.0);
        QCOMPARE(b.unassignedShare, 0.25);
    }

    void noStructureNoModules()
    {
        const auto g = test::residualStack({8, 16}, [](std::size_t k) {
            return "w" + std::to_string(k);
        });
        auto tree = structure::recoverStructure(*g);
        QVERIFY(tree.ok());
        RuntimeProfile p;
        p.nodes = {timed("mm_0", 1.0), timed("mm_1", 1.0)};
        const ModuleBreakdown b = profileByModule(p, *g, *tree);
        QVERIFY(b.modules.empty());
        QCOMPARE(b.unassignedNodes, std::size_t(2));
        QCOMPARE(b.unassignedShare, 1.0);
        QCOMPARE(profileByModule(RuntimeProfile{}, *g, *tree).unassignedShare, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestModuleProfile)
#include "tst_module_profile.moc"
