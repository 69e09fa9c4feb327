// Profile by module: a two-layer residual stack with Dynamo names (layers.0/1, each with an fc)
// and node times set by hand; each module sums its own and its descendants' nodes, shares are of
// every profiled node's time, nodes in no module (or not in the graph) are counted apart;
// identical layers form groups with the median and range of their times, compiled regions add
// their time to the deepest module holding them.
#include "core/profile/module_profile.h"
#include "core/structure/structure.h"
#include "tests/test_file.h"

#include "tests/unit/structure/synthetic_graphs.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

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

RegionProfile region(std::vector<std::string> nodes, double eagerMs, double compiledMs,
                     bool stat = true)
{
    RegionProfile r;
    r.nodes = std::move(nodes);
    r.eager.medianMs = eagerMs;
    if (compiledMs > 0.0) {
        r.compiledMs = compiledMs + 0.01; // the mean; the median is what counts when known
        if (stat) {
            r.compiled = {compiledMs, 0.0, compiledMs, compiledMs};
        } else {
            r.compiledMs = compiledMs;
        }
    }
    return r;
}

// Three identical layers of 2, 4 and 3 ms (their fc: the mm, 1, 3 and 2 ms).
RuntimeProfile threeLayers()
{
    RuntimeProfile p;
    p.nodes = {timed("mm_0", 1.0), timed("relu_0", 0.5), timed("sum_0", 0.25),
               timed("add_0", 0.25), timed("mm_1", 3.0), timed("relu_1", 0.5),
               timed("sum_1", 0.25), timed("add_1", 0.25), timed("mm_2", 2.0),
               timed("relu_2", 0.5), timed("sum_2", 0.25), timed("add_2", 0.25)};
    return p;
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

    void identicalLayersGroupWithMedianAndRange()
    {
        const auto g = test::residualStack({32, 32, 32}, dynamoName);
        auto tree = structure::recoverStructure(*g);
        QVERIFY(tree.ok());
        const ModuleBreakdown b = profileByModule(threeLayers(), *g, *tree);
        QCOMPARE(b.groups.size(), std::size_t(2)); // the layers, then their fc
        const ModuleGroup& layers = b.groups[0];
        QCOMPARE(layers.label, std::string("layers.0\u20132"));
        QCOMPARE(layers.members.size(), std::size_t(3));
        // 2, 4, 3 ms: median 3, range 2-4; layers.1 the slowest, layers.0 the fastest.
        QCOMPARE(layers.eager.medianMs, 3.0);
        QCOMPARE(layers.eager.minMs, 2.0);
        QCOMPARE(layers.eager.maxMs, 4.0);
        QCOMPARE(b.modules[layers.slowest].path, std::string("layers.1"));
        QCOMPARE(b.modules[layers.fastest].path, std::string("layers.0"));
        QCOMPARE(layers.parent, std::string("layers")); // it holds nothing else
        const ModuleGroup& fc = b.groups[1];
        QCOMPARE(fc.label, std::string("layers.0\u20132.fc"));
        QCOMPARE(fc.eager.medianMs, 2.0); // 1, 3, 2
        QCOMPARE(fc.eager.minMs, 1.0);
        QCOMPARE(fc.eager.maxMs, 3.0);
        QCOMPARE(fc.parent, std::string()); // one parent each
        QCOMPARE(find(b, "layers.2")->group, 0);
        QCOMPARE(find(b, "layers.2.fc")->group, 1);
        QCOMPARE(find(b, "layers")->group, -1);
        // Each profile node's module, for the chart's labels.
        QCOMPARE(b.nodePaths.size(), std::size_t(12));
        QCOMPARE(b.nodePaths[4], std::string("layers.1.fc"));
        QCOMPARE(b.nodePaths[5], std::string("layers.1"));
    }

    void compiledRegionsAddToTheModulesHoldingThem()
    {
        const auto g = test::residualStack({32, 32, 32}, dynamoName);
        auto tree = structure::recoverStructure(*g);
        QVERIFY(tree.ok());
        RuntimeProfile p = threeLayers();
        p.regions = {region({"mm_1", "relu_1"}, 3.5, 0.5),      // in layers.1
                     region({"mm_2"}, 2.0, 0.25, false),        // in layers.2.fc (mean only)
                     region({"sum_0"}, 0.25, 0.0),              // not compiled: left out
                     region({"add_0", "mm_1"}, 3.25, 1.0)};     // across layers.0 and .1
        const ModuleBreakdown b = profileByModule(p, *g, *tree);
        const ModuleProfile* l1 = find(b, "layers.1");
        QCOMPARE(l1->compiledRegions, std::size_t(1));
        QCOMPARE(l1->compiledMs, 0.5);
        QCOMPARE(l1->compiledEagerMs, 3.5);
        QCOMPARE(l1->compiledNodes, std::size_t(2));
        QCOMPARE(find(b, "layers.1.fc")->compiledRegions, std::size_t(0));
        QCOMPARE(find(b, "layers.2.fc")->compiledMs, 0.25);
        QCOMPARE(find(b, "layers.2")->compiledEagerMs, 2.0);
        QCOMPARE(find(b, "layers.0")->compiledRegions, std::size_t(0));
        // layers holds all three compiled ones: 0.5 + 0.25 + 1.0 ms for 3.5 + 2 + 3.25 ms.
        const ModuleProfile* all = find(b, "layers");
        QCOMPARE(all->compiledRegions, std::size_t(3));
        QCOMPARE(all->compiledMs, 1.75);
        QCOMPARE(all->compiledEagerMs, 8.75);
    }

    void groupLabels()
    {
        QCOMPARE(groupLabel({"model.layers.0", "model.layers.5", "model.layers.23"}),
                 std::string("model.layers.0\u201323"));
        QCOMPARE(groupLabel({"h.0.mlp", "h.1.mlp"}), std::string("h.0\u20131.mlp"));
        QCOMPARE(groupLabel({"a.0", "b.1"}), std::string());     // two components differ
        QCOMPARE(groupLabel({"a.0", "a.x"}), std::string());     // not an index
        QCOMPARE(groupLabel({"a.0", "a.0.b"}), std::string());   // not the same depth
        QCOMPARE(groupLabel({"a.0"}), std::string());
    }
};

QTEST_GUILESS_MAIN(TestModuleProfile)
#include "tst_module_profile.moc"

FXSCOPE_TEST_END
