// runCompiledGraph (issue 27): tests/data/compile/two_regions_fw.txt (two pointwise regions
// around an mm, checked by hand in tst_graph_compile) runs with both regions compiled in place,
// outputs equal to eager's; keep only what wins: slowerThanEager on injected timings, a region
// made to lose falls back with reason slower_than_eager (46) and the cache remembers it, so a
// later compile and a compiled run do not use it while a fresh cache does.
#include "core/cache/cache_store.h"
#include "core/compile/compiled_graph.h"
#include "core/io/graph_code_parser.h"
#include "core/partition/partitioner.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <memory>

FXSCOPE_TEST_BEGIN

using namespace fxs;

class TestCompiledGraph : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    graph::GraphPtr m_graph;
    std::vector<partition::Region> m_regions;
    int m_stores = 0;

    std::unique_ptr<cache::CacheStore> freshStore()
    {
        return test::openStore(m_dir.path().toStdString() + "/store" + std::to_string(m_stores++));
    }

    static compile::GraphCompileOptions options(cache::CacheStore* store)
    {
        compile::GraphCompileOptions o;
        o.compile.store = store;
        o.compile.timingRepeats = 3; // the fewest runs a slower-than-eager verdict takes
        o.run.repeat = 2;
        return o;
    }

    // options() with every region judged the same way: slower than eager or not.
    static compile::GraphCompileOptions judged(cache::CacheStore* store, bool slower)
    {
        compile::GraphCompileOptions o = options(store);
        o.compile.slower = [slower](double, double, double, double) { return slower; };
        return o;
    }

private Q_SLOTS:
    void initTestCase()
    {
        const std::string path = FXSCOPE_TEST_DATA "/compile/two_regions_fw.txt";
        auto text = readFile(path);
        QVERIFY(text.ok());
        m_graph = io::parseGraphCode(*text, path).graph;
        QVERIFY(m_graph);
        m_regions = partition::partitionByAnnotation(*m_graph).regions;
        QCOMPARE(m_regions.size(), std::size_t(2));
    }

    void wholeGraphRunsWithItsRegionsCompiled()
    {
        auto store = freshStore();
        QVERIFY(store);
        auto o = judged(store.get(), false);
        auto r = compile::runCompiledGraph(*m_graph, m_regions, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QVERIFY(r->eager.ok);
        QVERIFY(r->compiled.ok);
        QCOMPARE(r->regions.size(), std::size_t(2));
        QCOMPARE(r->regionsUsed, 2);
        for (const auto& region : r->regions) {
            QCOMPARE(region.state, compile::RegionState::Miss);
            QCOMPARE(region.kernels, 1); // three pointwise nodes fuse into one kernel
        }
        // The compiled run lists each region as one step (r0, r1) and mm on its own.
        int steps = 0;
        bool mm = false;
        for (const auto& n : r->compiled.perNode) {
            steps += n.target == "fxscope.substitute" ? 1 : 0;
            mm = mm || n.name == "mm";
            QVERIFY2(n.name != "sin" && n.name != "tanh", n.name.c_str());
        }
        QCOMPARE(steps, 2);
        QVERIFY(mm);
        QCOMPARE(r->compiled.nodesRun, 7);
        QCOMPARE(r->regionMs.size(), std::size_t(2));
        QVERIFY(r->regionMs[0] > 0 && r->regionMs[1] > 0);
        // mul_1 = tanh(relu(mm(sin(x) * y + 1, y))) * 0.5: float32 kernels vs LibTorch.
        QCOMPARE(r->outputMaxAbsErr.size(), std::size_t(1));
        QVERIFY(r->outputMaxAbsErr[0].has_value());
        QVERIFY2(*r->outputMaxAbsErr[0] < 1e-5, std::to_string(*r->outputMaxAbsErr[0]).c_str());
        QCOMPARE(r->compiled.outputs[0].shape, std::vector<std::int64_t>({64, 64}));
        QVERIFY(std::abs(r->compiled.outputs[0].mean - r->eager.outputs[0].mean) < 1e-5);
    }

    void slowerThanEagerOnlyBeyondBothSpreads()
    {
        // compiled - eager > eager spread + compiled spread.
        QVERIFY(compile::slowerThanEager(0.082, 0.010, 0.211, 0.020));
        QVERIFY(!compile::slowerThanEager(0.100, 0.010, 0.105, 0.010)); // within the noise
        QVERIFY(!compile::slowerThanEager(0.100, 0.030, 0.140, 0.015)); // 0.04 <= 0.045
        QVERIFY(compile::slowerThanEager(0.100, 0.0, 0.1001, 0.0));
        QVERIFY(!compile::slowerThanEager(0.2, 0.0, 0.1, 0.0)); // faster
    }

    void twoRunsAreTooFewToDropARegion()
    {
        auto store = freshStore();
        QVERIFY(store);
        auto o = judged(store.get(), true);
        o.compile.timingRepeats = 2;
        auto r = compile::compileGraphRegions(*m_graph, m_regions, o);
        QVERIFY(r.ok());
        for (const auto& region : r->regions) {
            QCOMPARE(region.state, compile::RegionState::Miss);
        }
    }

    // A loss in one timing is timed again: a region that then wins is kept (one noisy moment
    // does not drop it for good); the verdict is asked twice per region, no more.
    void aLossIsTimedAgainBeforeTheRegionIsDropped()
    {
        auto store = freshStore();
        QVERIFY(store);
        auto o = options(store.get());
        auto calls = std::make_shared<int>(0);
        o.compile.slower = [calls](double, double, double, double) { return (*calls)++ % 2 == 0; };
        auto r = compile::compileGraphRegions(*m_graph, m_regions, o);
        QVERIFY(r.ok());
        QVERIFY(!r->regions.empty());
        for (const auto& region : r->regions) {
            QVERIFY2(region.state == compile::RegionState::Miss, region.headline.c_str());
        }
        QCOMPARE(*calls, int(2 * r->regions.size()));
        // Losing both timings drops it, with both timings in the headline.
        auto other = freshStore();
        QVERIFY(other);
        auto lose = judged(other.get(), true);
        auto l = compile::compileGraphRegions(*m_graph, m_regions, lose);
        QVERIFY(l.ok());
        for (const auto& region : l->regions) {
            QCOMPARE(region.reason, cache::Reason::SlowerThanEager);
            QVERIFY2(region.headline.find("; first timed compiled ") != std::string::npos,
                     region.headline.c_str());
        }
    }

    void aLosingRegionFallsBackAndTheCacheRemembers()
    {
        auto store = freshStore();
        QVERIFY(store);
        auto lose = judged(store.get(), true);
        auto first = compile::compileGraphRegions(*m_graph, m_regions, lose);
        QVERIFY(first.ok());
        for (const auto& r : first->regions) {
            QCOMPARE(r.state, compile::RegionState::Fallback);
            QCOMPARE(static_cast<int>(r.reason), 46);
            QCOMPARE(cache::reasonName(r.reason), std::string_view("slower_than_eager"));
            QVERIFY2(r.headline.find("vs eager") != std::string::npos, r.headline.c_str());
            QVERIFY2(r.headline.find("compiled ") != std::string::npos, r.headline.c_str());
            QCOMPARE(r.compiledMs, r.eagerMs); // it runs eagerly
            auto info = store->info(r.key);
            QVERIFY(info.ok() && info->has_value());
            QCOMPARE((*info)->statusCode, cache::Reason::SlowerThanEager);
        }
        // Later runs on this device do not use the entry, whatever they measure.
        auto win = judged(store.get(), false);
        auto second = compile::compileGraphRegions(*m_graph, m_regions, win);
        QVERIFY(second.ok());
        for (const auto& r : second->regions) {
            QCOMPARE(r.state, compile::RegionState::Fallback);
            QCOMPARE(r.reason, cache::Reason::SlowerThanEager);
            QVERIFY2(r.headline.find("before") != std::string::npos, r.headline.c_str());
        }
        auto run = compile::runCompiledGraph(*m_graph, m_regions, win);
        QVERIFY(run.ok());
        QCOMPARE(run->regionsUsed, 0);
        QCOMPARE(*run->outputMaxAbsErr[0], 0.0); // all eager: the same values
        // Timed again on request (--retime), the verdict is made anew: now winning, the
        // entries are used and stored verified; later runs use them without re-timing.
        auto retime = win;
        retime.compile.retime = true;
        auto fourth = compile::compileGraphRegions(*m_graph, m_regions, retime);
        QVERIFY(fourth.ok());
        for (const auto& r : fourth->regions) {
            QCOMPARE(r.state, compile::RegionState::Hit);
            QVERIFY2(r.headline.find("timed again") != std::string::npos, r.headline.c_str());
            auto info = store->info(r.key);
            QVERIFY(info.ok() && info->has_value());
            QCOMPARE(int((*info)->status), int(cache::EntryStatus::Verified));
        }
        auto fifth = compile::compileGraphRegions(*m_graph, m_regions, win);
        QVERIFY(fifth.ok());
        for (const auto& r : fifth->regions) {
            QCOMPARE(r.state, compile::RegionState::Hit);
            QVERIFY(r.timingsFromEntry);
        }
        // Another cache (another device's entries) measures for itself.
        auto other = freshStore();
        auto fresh = options(other.get());
        fresh.compile.slower = win.compile.slower;
        auto third = compile::compileGraphRegions(*m_graph, m_regions, fresh);
        QVERIFY(third.ok());
        for (const auto& r : third->regions) {
            QCOMPARE(r.state, compile::RegionState::Miss);
        }
    }

    // undefinedOutput names the RNG seed and offset of fused attention when dropout_p is 0 (by
    // default or by keyword) and nothing else: not the attention's output and log-sum-exp, not
    // the seed when dropout_p is 0.1; flash attention's at 6 and 7.
    void attentionSeedsAreUndefinedOnlyWithoutDropout()
    {
        const std::string sdpa = "torch.ops.aten._scaled_dot_product_efficient_attention.default";
        const std::string text =
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, q: \"f32[1, 2, 4, 8][64, 32, 8, 1]cuda:0\", k):\n"
            "        a = " + sdpa + "(q, k, k, None, True)\n"
            "        a_0: \"f32[1, 2, 4, 8][64, 32, 8, 1]cuda:0\" = a[0]\n"
            "        a_1: \"f32[1, 2, 4][8, 4, 1]cuda:0\" = a[1]\n"
            "        a_2: \"i64[][]cuda:0\" = a[2]\n"
            "        a_3: \"i64[][]cuda:0\" = a[3];  a = None\n"
            "        b = " + sdpa + "(q, k, k, None, True, 0.1)\n"
            "        b_2: \"i64[][]cuda:0\" = b[2]\n"
            "        c = " + sdpa + "(q, k, k, None, True, dropout_p = 0.0)\n"
            "        c_3: \"i64[][]cuda:0\" = c[3]\n"
            "        f = torch.ops.aten._scaled_dot_product_flash_attention.default(q, k, k)\n"
            "        f_5: \"i64[][]cuda:0\" = f[5]\n"
            "        f_6: \"u64[2][1]cuda:0\" = f[6]\n"
            "        f_7: \"u64[][]cuda:0\" = f[7]\n"
            "        return (a_0, a_1, a_2, a_3, b_2, c_3, f_5, f_6, f_7)\n";
        auto g = io::parseGraphCode(text, "attention.txt").graph;
        QVERIFY(g);
        auto why = [&](const char* name) {
            auto id = g->find(name);
            return id ? compile::undefinedOutput(*g, *id) : std::optional<std::string>("none");
        };
        QVERIFY(!why("a_0") && !why("a_1") && !why("b_2") && !why("f_5") && !why("q"));
        QCOMPARE(QString::fromStdString(why("a_2").value_or("")),
                 QStringLiteral("the RNG seed of _scaled_dot_product_efficient_attention (a), "
                                "which PyTorch leaves unwritten when dropout_p is 0"));
        QVERIFY(why("a_3").value_or("").starts_with("the RNG offset of "));
        QVERIFY(why("c_3"));
        QVERIFY(why("f_6").value_or("").find("_scaled_dot_product_flash_attention (f)") !=
                std::string::npos);
        QVERIFY(why("f_7"));
    }
};

QTEST_GUILESS_MAIN(TestCompiledGraph)
#include "tst_compiled_graph.moc"

FXSCOPE_TEST_END
