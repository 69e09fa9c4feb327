// compileGraphRegions: a printed graph with two annotated pointwise regions (fixture
// tests/data/compile/two_regions_fw.txt) compiled through a fresh cache (miss, miss), again
// (hit, hit); cancellation before the eager run and between regions; a graph the engine cannot
// run is an error. With the regions' builds in parallel (CompileOptions::jobs, fixture
// four_regions_fw.txt: r1 and r2 isomorphic): a key is built once even without a cache, and
// cancelling while the builds run kills the compilers and stores nothing.
#include "core/cache/cache_store.h"
#include "core/compile/graph_compile.h"
#include "core/graph/graph_builder.h"
#include "core/io/graph_code_parser.h"
#include "core/partition/auto_proposal.h"
#include "core/partition/partitioner.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <mutex>
#include <sys/stat.h>

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

    // A host compiler that logs "start" and "end" around each build, sleeping `delay` seconds
    // before it compiles.
    std::string loggingCompiler(const QString& name, const QString& log, int delay) const
    {
        const QString path = m_dir.path() + "/" + name;
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        const QByteArray l = log.toLocal8Bit();
        f.write("#!/bin/sh\ncase \" $* \" in *\" -o \"*)\n  echo start >> '" + l + "'\n  sleep " +
                QByteArray::number(delay) + "\n  c++ \"$@\"; rc=$?\n  echo end >> '" + l +
                "'\n  exit $rc;;\nesac\nexec c++ \"$@\"\n");
        f.close();
        ::chmod(path.toLocal8Bit().constData(), 0700);
        return path.toStdString();
    }

    static int linesOf(const QString& log, const QByteArray& word)
    {
        QFile f(log);
        return f.open(QIODevice::ReadOnly) ? int(f.readAll().split('\n').count(word)) : 0;
    }

    static graph::GraphPtr fourRegions(std::vector<partition::Region>& regions)
    {
        const std::string path = FXSCOPE_TEST_DATA "/compile/four_regions_fw.txt";
        auto text = readFile(path);
        auto g = text ? io::parseGraphCode(*text, path).graph : nullptr;
        if (g) {
            regions = partition::proposeRegions(*g).regions;
        }
        return g;
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

    void isomorphicRegionsBuildOnceWithoutCache()
    {
        std::vector<partition::Region> regions;
        auto g = fourRegions(regions);
        QVERIFY(g);
        QCOMPARE(regions.size(), std::size_t(4));
        const QString log = m_dir.path() + "/nocache-builds.log";
        compile::GraphCompileOptions o;
        o.compile.timingRepeats = 1;
        o.compile.jobs = 2;
        o.compile.compiler.path = loggingCompiler("nocache-cxx.sh", log, 0);
        auto report = compile::compileGraphRegions(*g, regions, o);
        QVERIFY(report.ok());
        QCOMPARE(report->regions.size(), std::size_t(4));
        for (const auto& r : report->regions) {
            // No cache: every region is built (bypass) and verified; r2 takes r1's build.
            QCOMPARE(r.state, compile::RegionState::Miss);
            QCOMPARE(r.reason, cache::Reason::BypassNoCache);
            QVERIFY(r.compileMs > 0);
        }
        QCOMPARE(report->regions[2].key, report->regions[1].key);
        QVERIFY(report->regions[0].key != report->regions[1].key);
        QCOMPARE(linesOf(log, "end"), 3);
    }

    void cancelDuringBuildsStoresNothing()
    {
        std::vector<partition::Region> regions;
        auto g = fourRegions(regions);
        QVERIFY(g);
        cache::StoreOptions so;
        so.path = m_dir.path().toStdString() + "/cancel/cache.db";
        auto store = cache::CacheStore::open(so);
        QVERIFY(store.ok());
        const QString log = m_dir.path() + "/cancel-builds.log";
        compile::GraphCompileOptions o;
        o.compile.store = store->get();
        o.compile.timingRepeats = 1;
        o.compile.jobs = 2;
        o.compile.compiler.path = loggingCompiler("slow-cxx.sh", log, 20);
        CancelToken token;
        std::vector<std::string> phases;
        auto report = compile::compileGraphRegions(
            *g, regions, o, token, [&](double, std::string_view phase) {
                phases.emplace_back(phase);
                if (phase.rfind("building ", 0) == 0 && !token.isCancelled()) {
                    // Cancelled once both compilers run (they sleep 20 s before compiling).
                    QElapsedTimer t;
                    t.start();
                    while (linesOf(log, "start") < 2 && t.elapsed() < 10000) {
                        QThread::msleep(20);
                    }
                    token.cancel();
                }
            });
        QVERIFY(report.ok());
        QVERIFY(report->cancelled);
        QVERIFY(report->regions.empty());
        QVERIFY(std::find(phases.begin(), phases.end(), "building 0/3 (2 jobs)") != phases.end());
        // Both running compilers were killed in their sleep (no "end"); the third never started.
        QCOMPARE(linesOf(log, "start"), 2);
        QCOMPARE(linesOf(log, "end"), 0);
        auto listed = (*store)->list();
        QVERIFY(listed.ok());
        QCOMPARE(listed->size(), std::size_t(0));
        // No build directory is left behind either.
        const QStringList left =
            QDir(m_dir.path() + "/cancel").entryList({"build-*"}, QDir::Dirs);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(", ")));
        // The store is as new: a run to the end builds every key cold.
        o.compile.compiler.path.clear();
        auto again = compile::compileGraphRegions(*g, regions, o);
        QVERIFY(again.ok());
        QVERIFY(!again->cancelled);
        QCOMPARE(again->regions.size(), std::size_t(4));
        QCOMPARE(again->regions[0].reason, cache::Reason::MissCold);
        QCOMPARE(again->regions[2].state, compile::RegionState::Hit);
        QCOMPARE((*store)->list()->size(), std::size_t(3));
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
