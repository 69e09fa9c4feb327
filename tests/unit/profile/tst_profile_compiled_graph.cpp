// The run-time profile's whole graph compiled (issue 27): on tests/data/compile/two_regions_fw.txt
// (two annotated pointwise regions around an mm; tst_compiled_graph runs it compiled) a profile
// that compiles regions also times the graph with them in place — a compiled total over the same
// number of runs and the regions used, equal to what runCompiledGraph says for the same regions,
// options and cache (both regions when they win, none when they are made to lose), with eager
// timed in the same rounds — and a
// profile that compiles nothing has none and says so.
#include "core/cache/cache_store.h"
#include "core/compile/compiled_graph.h"
#include "core/io/graph_code_parser.h"
#include "core/partition/auto_proposal.h"
#include "core/partition/partitioner.h"
#include "core/profile/runtime_profile.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

using Verdict = std::function<bool(double, double, double, double)>;

const Verdict kNever = [](double, double, double, double) { return false; };
const Verdict kAlways = [](double, double, double, double) { return true; };

bool hasNote(const profile::RuntimeProfile& p, const std::string& text)
{
    for (const auto& n : p.notes) {
        if (n.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

} // namespace

class TestProfileCompiledGraph : public QObject {
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

    profile::ProfileOptions options(cache::CacheStore* store, const Verdict& slower) const
    {
        profile::ProfileOptions o;
        o.repeat = 3; // the fewest runs a slower-than-eager verdict takes
        o.peaks = profile::MachinePeaks{10.0, 1.0};
        o.compileRegions = true;
        o.store = store;
        o.slower = slower;
        return o;
    }

    // What runCompiledGraph says for the same regions, options and cache.
    int regionsUsedByRunCompiledGraph(cache::CacheStore* store, const Verdict& slower)
    {
        compile::GraphCompileOptions o;
        o.compile.store = store;
        o.compile.timingRepeats = 3;
        o.compile.retime = true;
        o.compile.slower = slower;
        o.run.repeat = 3;
        auto r = compile::runCompiledGraph(*m_graph, m_regions, o);
        return r.ok() && r->compiled.ok ? r->regionsUsed : -1;
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
        if (!profile::regionCompilerAvailable()) {
            QSKIP("this build has no region compiler");
        }
    }

    void compiledRegionsGiveTheWholeGraphCompiled()
    {
        auto store = freshStore();
        QVERIFY(store);
        double last = -1.0;
        bool compiledPhase = false;
        auto p = profile::profileGraph(*m_graph, m_regions, options(store.get(), kNever),
                                       CancelToken::none(), [&](double f, std::string_view s) {
                                           QVERIFY(f >= last && f <= 1.0);
                                           last = f;
                                           compiledPhase = compiledPhase ||
                                                           s.find("eager and compiled graph") == 0;
                                       });
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY(compiledPhase);
        QCOMPARE(last, 1.0);
        QVERIFY(p->compiledGraph.has_value());
        const profile::CompiledGraphProfile& c = *p->compiledGraph;
        QCOMPARE(c.regionsTotal, 2);
        QCOMPARE(c.regionsUsed, 2);
        for (const auto& r : p->regions) {
            QCOMPARE(r.compileState, std::string("miss"));
            QVERIFY(r.compiledMs.has_value());
        }
        QCOMPARE(c.regionsUsed, regionsUsedByRunCompiledGraph(store.get(), kNever));
        QVERIFY(c.total.medianMs > 0);
        QVERIFY(c.total.minMs <= c.total.medianMs && c.total.medianMs <= c.total.maxMs);
        QCOMPARE(c.total.spreadMs, c.total.maxMs - c.total.minMs);
        // Eager in the same rounds.
        QVERIFY(c.eager.medianMs > 0);
        QVERIFY(c.eager.minMs <= c.eager.medianMs && c.eager.medianMs <= c.eager.maxMs);
        QVERIFY(!c.deviceMs && !c.eagerDeviceMs); // the CPU
        QVERIFY(!hasNote(*p, "not measured"));
    }

    // tests/data/compile/matmul_groups.txt with its automatic regions: mm/mm_1 (view(x) times
    // t(w1), t(w2)) and mm_3/mm_4 (t(g1), t(g2) times x) form two groups outside them
    // (tst_matmul_fusion, by hand). The profile's compiled graph runs them as one product
    // each, as runCompiledGraph does, and counts them apart from the regions.
    void matrixProductsAreGroupedAsRunCompiledGroupsThem()
    {
        const std::string path = FXSCOPE_TEST_DATA "/compile/matmul_groups.txt";
        auto text = readFile(path);
        QVERIFY(text.ok());
        auto g = io::parseGraphCode(*text, path).graph;
        QVERIFY(g);
        const auto regions = partition::proposeRegions(*g).regions;
        QVERIFY(!regions.empty());
        auto store = freshStore();
        QVERIFY(store);
        auto p = profile::profileGraph(*g, regions, options(store.get(), kNever));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY(p->compiledGraph.has_value());
        QCOMPARE(p->compiledGraph->matmulGroups, 2);
        QCOMPARE(p->compiledGraph->regionsTotal, int(regions.size()));
        compile::GraphCompileOptions o;
        o.compile.store = store.get();
        o.compile.timingRepeats = 3;
        o.compile.retime = true;
        o.compile.slower = kNever;
        auto r = compile::runCompiledGraph(*g, regions, o);
        QVERIFY(r.ok() && r->compiled.ok);
        QCOMPARE(r->matmulGroups.size(), std::size_t(2));
        QCOMPARE(p->compiledGraph->regionsUsed, r->regionsUsed);
        QVERIFY(p->compiledGraph->regionsUsed >= 1);
        QVERIFY(!hasNote(*p, "matrix products not"));
    }

    // Regions that lose to eager fall back and run eagerly in the compiled graph: 0 of 2 used.
    void losingRegionsAreNotUsed()
    {
        auto store = freshStore();
        QVERIFY(store);
        auto p = profile::profileGraph(*m_graph, m_regions, options(store.get(), kAlways));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY(p->compiledGraph.has_value());
        QCOMPARE(p->compiledGraph->regionsTotal, 2);
        QCOMPARE(p->compiledGraph->regionsUsed, 0);
        QCOMPARE(p->compiledGraph->regionsUsed,
                 regionsUsedByRunCompiledGraph(store.get(), kAlways));
        QVERIFY(p->compiledGraph->total.medianMs > 0);
        for (const auto& r : p->regions) {
            QCOMPARE(r.compileState, std::string("fallback"));
        }
    }

    void withoutCompiledRegionsThereIsNone()
    {
        auto o = options(nullptr, {});
        o.compileRegions = false;
        auto p = profile::profileGraph(*m_graph, m_regions, o);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY(!p->compiledGraph);
        QVERIFY(hasNote(*p, "whole graph compiled vs eager: not measured (regions were not "
                            "compiled)"));
        // Compiling, but no regions to compile.
        o.compileRegions = true;
        p = profile::profileGraph(*m_graph, {}, o);
        QVERIFY(p.ok());
        QVERIFY(!p->compiledGraph);
        QVERIFY(hasNote(*p, "not measured (the graph has no regions to compile)"));
    }

    void cancelledWhileCompilingStops()
    {
        CancelToken token;
        int seen = 0;
        auto p = profile::profileGraph(*m_graph, m_regions, options(nullptr, kNever), token,
                                       [&](double, std::string_view s) {
                                           if (s.find("eager and compiled") == 0 && ++seen == 1) {
                                               token.cancel();
                                           }
                                       });
        QVERIFY(!p.ok());
        QCOMPARE(p.error().code, ErrorCode::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestProfileCompiledGraph)
#include "tst_profile_compiled_graph.moc"

FXSCOPE_TEST_END
