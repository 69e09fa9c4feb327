// compileGraphRegions: a printed graph with two annotated pointwise regions (fixture
// tests/data/compile/two_regions_fw.txt) compiled through a fresh cache (miss, miss), again
// (hit, hit); cancellation before the eager run and between regions; a graph the engine cannot
// run is an error.
#include "core/cache/cache_store.h"
#include "core/compile/graph_compile.h"
#include "core/graph/graph_builder.h"
#include "core/io/graph_code_parser.h"
#include "core/partition/partitioner.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <mutex>

FXSCOPE_TEST_BEGIN

using namespace fxs;

class TestGraphCompile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;
    graph::GraphPtr m_graph;
    std::vector<partition::Region> m_regions;

    compile::GraphCompileOptions options() const
    {
        compile::GraphCompileOptions o;
        o.compile.store = m_store.get();
        o.compile.timingRepeats = 1;
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
        // By hand: sin/mul/add carry compile_with_inductor 0, relu/tanh/mul_1 carry 1.
        QCOMPARE(m_regions.size(), std::size_t(2));
        QCOMPARE(m_regions[0].nodes.size(), std::size_t(3));
        QCOMPARE(m_regions[1].nodes.size(), std::size_t(3));
        cache::StoreOptions so;
        so.path = m_dir.path().toStdString() + "/cache/cache.db";
        auto s = cache::CacheStore::open(so);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().toString().c_str());
        m_store = std::move(*s);
    }

    void missThenHit()
    {
        std::vector<std::string> phases;
        std::mutex mutex;
        auto first = compile::compileGraphRegions(
            *m_graph, m_regions, options(), CancelToken::none(),
            [&](double, std::string_view phase) {
                std::lock_guard lock(mutex);
                phases.emplace_back(phase);
            });
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().toString().c_str());
        QVERIFY(!first->cancelled);
        QCOMPARE(first->regions.size(), std::size_t(2));
        QCOMPARE(first->regions[0].id, std::string("r0"));
        QCOMPARE(first->regions[1].id, std::string("r1"));
        double eager = 0;
        double compiled = 0;
        for (const auto& r : first->regions) {
            QCOMPARE(r.state, compile::RegionState::Miss);
            QCOMPARE(r.nodes, 3);
            QVERIFY(!r.source.empty());
            QVERIFY(!r.key.empty());
            eager += r.eagerMs;
            compiled += r.compiledMs;
        }
        QCOMPARE(first->totalEagerMs, eager);
        QCOMPARE(first->totalCompiledMs, compiled);
        QVERIFY(std::find(phases.begin(), phases.end(), "r0 (1/2)") != phases.end());
        QVERIFY(std::find(phases.begin(), phases.end(), "r1 (2/2)") != phases.end());

        auto second = compile::compileGraphRegions(*m_graph, m_regions, options());
        QVERIFY(second.ok());
        QCOMPARE(second->regions.size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) {
            QCOMPARE(second->regions[i].state, compile::RegionState::Hit);
            QCOMPARE(second->regions[i].key, first->regions[i].key);
        }
    }

    void cancelBetweenRegions()
    {
        CancelToken token;
        // The sink runs before each region starts: cancelling at r0 lets r0 finish only.
        auto report = compile::compileGraphRegions(
            *m_graph, m_regions, options(), token, [&](double, std::string_view phase) {
                if (phase.rfind("r0", 0) == 0) {
                    token.cancel();
                }
            });
        QVERIFY(report.ok());
        QVERIFY(report->cancelled);
        QCOMPARE(report->regions.size(), std::size_t(1));
        QCOMPARE(report->regions[0].id, std::string("r0"));
    }

    void cancelBeforeStart()
    {
        CancelToken token;
        token.cancel();
        auto report = compile::compileGraphRegions(*m_graph, m_regions, options(), token);
        QVERIFY(report.ok());
        QVERIFY(report->cancelled);
        QVERIFY(report->regions.empty());
    }

    void unsupportedGraphIsAnError()
    {
        graph::GraphBuilder b;
        graph::TensorMeta m;
        m.dtype = graph::DType::Float32;
        m.sizes = {graph::SymInt::of(4)};
        const auto x = b.placeholder("x", m);
        const auto f = b.call("frobnicate", "aten::frobnicate.default",
                              {graph::Argument::ref(x)}, {}, m);
        b.output({graph::Argument::ref(f)});
        auto g = b.build();
        QVERIFY(g.ok());
        partition::Region r;
        r.id = "r0";
        r.nodes = {f};
        partition::computeRegionStats(**g, r);
        auto report = compile::compileGraphRegions(**g, {r}, options());
        QVERIFY(!report.ok());
        QCOMPARE(report.error().code, ErrorCode::Unsupported);
        QVERIFY(report.error().message.find("frobnicate") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestGraphCompile)
#include "tst_graph_compile.moc"

FXSCOPE_TEST_END
