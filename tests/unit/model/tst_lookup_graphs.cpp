// graphsKeyedByLookups (core/model, no Qt in the code under test): on the basic_cold fixture
// (counted by hand: the aotautograd lookup keys the AOT joint graph, the two fx_graph lookups of
// compile 0/0 the forward and backward inductor_post_grad graphs), and on small hand-built runs
// for every fallback: before_post_grad, AOT forward/inference/backward, Dynamo, none.
#include "core/io/loader.h"
#include "core/model/lookup_graphs.h"
#include "tests/test_file.h"
#include "tests/unit/model/graph_of_kind.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::test::graphOfKind;
using namespace fxs::model;

namespace {

const CompileId k00{0, 0};
const CompileId k10{1, 0};

Run runOf(std::initializer_list<std::pair<const char*, CompileId>> graphs,
          std::initializer_list<std::pair<CacheKind, CompileId>> lookups)
{
    Run run;
    for (const auto& [kind, cid] : graphs) {
        GraphArtifact g;
        g.kind = kind;
        g.compileId = cid;
        run.graphs.push_back(g);
    }
    for (const auto& [cache, cid] : lookups) {
        CacheLookup l;
        l.cache = cache;
        l.compileId = cid;
        run.lookups.push_back(l);
    }
    return run;
}

} // namespace

class TestLookupGraphs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void basicColdFixture()
    {
        auto loaded = io::loadPaths({FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold"});
        QCOMPARE(loaded.runs.size(), std::size_t(1));
        const Run& run = loaded.runs.front();
        QCOMPARE(run.lookups.size(), std::size_t(3));
        QCOMPARE(run.lookups[0].cache, CacheKind::AotAutograd);
        const std::vector<int> expected{graphOfKind(run, "aot_joint_graph"),
                                        graphOfKind(run, "inductor_post_grad_graph", 0),
                                        graphOfKind(run, "inductor_post_grad_graph", 1)};
        QVERIFY(expected[0] >= 0 && expected[1] >= 0 && expected[2] >= 0);
        QCOMPARE(graphsKeyedByLookups(run), expected);
        QCOMPARE(graphsOfKind(run, k00, "inductor_post_grad_graph"),
                 (std::vector<int>{expected[1], expected[2]}));
    }

    void fxGraphFallbacks()
    {
        // Only before_post_grad graphs: the i-th lookup keys the i-th of them.
        const Run before = runOf({{"before_post_grad_graph", k00}, {"before_post_grad_graph", k00}},
                                 {{CacheKind::FxGraph, k00}, {CacheKind::FxGraph, k00}});
        QCOMPARE(graphsKeyedByLookups(before), (std::vector<int>{0, 1}));
        // Only AOT graphs: forward for the first lookup, backward for the second, then none.
        const Run aot = runOf({{"aot_backward_graph", k00}, {"aot_forward_graph", k00}},
                              {{CacheKind::FxGraph, k00},
                               {CacheKind::FxGraph, k00},
                               {CacheKind::FxGraph, k00}});
        QCOMPARE(graphsKeyedByLookups(aot), (std::vector<int>{1, 0, -1}));
        const Run inference = runOf({{"aot_inference_graph", k00}}, {{CacheKind::FxGraph, k00}});
        QCOMPARE(graphsKeyedByLookups(inference), std::vector<int>{0});
        // Ordinals count per compile id.
        const Run two = runOf({{"inductor_post_grad_graph", k00}, {"inductor_post_grad_graph", k10}},
                              {{CacheKind::FxGraph, k10}, {CacheKind::FxGraph, k00}});
        QCOMPARE(graphsKeyedByLookups(two), (std::vector<int>{1, 0}));
    }

    void aotAutogradFallbacks()
    {
        const Run forward = runOf({{"dynamo_output_graph", k00}, {"aot_forward_graph", k00}},
                                  {{CacheKind::AotAutograd, k00}});
        QCOMPARE(graphsKeyedByLookups(forward), std::vector<int>{1});
        const Run dynamo = runOf({{"dynamo_output_graph", k00}}, {{CacheKind::AotAutograd, k00}});
        QCOMPARE(graphsKeyedByLookups(dynamo), std::vector<int>{0});
        const Run other = runOf({{"dynamo_output_graph", k10}}, {{CacheKind::AotAutograd, k00}});
        QCOMPARE(graphsKeyedByLookups(other), std::vector<int>{-1});
        QVERIFY(graphsKeyedByLookups(Run{}).empty());
    }
};

QTEST_GUILESS_MAIN(TestLookupGraphs)
#include "tst_lookup_graphs.moc"

FXSCOPE_TEST_END
