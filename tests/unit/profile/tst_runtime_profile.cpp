// Run-time profiles on a small hand-written graph: medians and spreads, bytes and FLOPs from
// shapes (computed by hand below), region sums per run, roofline classification, a real engine
// run, cancellation, the Chrome trace and the CSV table.
#include "core/io/graph_code_parser.h"
#include "core/trace_profile/chrome_trace.h"
#include "core/profile/runtime_profile.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QtTest>

#include <sys/resource.h>

#include <cstdlib>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::profile;

namespace {

// x f32[64,32] (8192 B), w f32[32,16] (2048 B); mm f32[64,16] (4096 B), relu and add alike.
const char* kGraph = R"(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[64, 32]", w: "f32[32, 16]"):
        mm: "f32[64, 16]" = torch.ops.aten.mm.default(x, w)
        relu: "f32[64, 16]" = torch.ops.aten.relu.default(mm)
        add: "f32[64, 16]" = torch.ops.aten.add.Tensor(relu, mm)
        return (add,)
)";

// tests/data/exec/chain_4mib.txt: five 4 MiB intermediates a run (1,024 pages each) from a
// 4 MiB input, two or three alive at a time.
graph::GraphPtr chain()
{
    auto text = readFile(FXSCOPE_TEST_DATA "/exec/chain_4mib.txt");
    return text.ok() ? io::parseGraphCode(*text, "chain_4mib.txt").graph : nullptr;
}

long minorFaults()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

graph::GraphPtr parse()
{
    auto r = io::parseGraphCode(kGraph, "small.py");
    return r.graph;
}

// One region {relu, add}: inputs mm (4096 B), outputs add (4096 B).
std::vector<partition::Region> regions(const graph::Graph& g)
{
    partition::Region r;
    r.id = "r0";
    r.nodes = {*g.find("relu"), *g.find("add")};
    partition::computeRegionStats(g, r);
    return {r};
}

std::vector<exec::NodeTiming> run(double mm, double relu, double add)
{
    return {{"mm", "aten::mm.default", mm}, {"relu", "aten::relu.default", relu},
            {"add", "aten::add.Tensor", add}};
}

const NodeProfile& node(const RuntimeProfile& p, const std::string& name)
{
    for (const auto& n : p.nodes) {
        if (n.name == name) {
            return n;
        }
    }
    static NodeProfile none;
    return none;
}

} // namespace

class TestRuntimeProfile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void medianAndSpread()
    {
        const auto odd = timeStat({3.0, 1.0, 2.0, 10.0, 4.0});
        QCOMPARE(odd.medianMs, 3.0);
        QCOMPARE(odd.spreadMs, 9.0);
        QCOMPARE(odd.minMs, 1.0);
        QCOMPARE(odd.maxMs, 10.0);
        QCOMPARE(timeStat({4.0, 1.0, 3.0, 2.0}).medianMs, 2.5);
        QCOMPARE(timeStat({}).medianMs, 0.0);
    }

    void assemblesNodesAndRegions()
    {
        auto g = parse();
        QVERIFY(g);
        const MachinePeaks peaks{10.0, 1.0}; // 10 GB/s, 1 GFLOP/s
        const auto p = assembleProfile(*g, regions(*g),
                                       {run(0.2, 0.01, 0.03), run(0.1, 0.02, 0.01),
                                        run(0.3, 0.03, 0.02)},
                                       {0.5, 0.2, 0.4}, peaks);
        QCOMPARE(p.repeat, 3);
        QCOMPARE(p.total.medianMs, 0.4);
        QCOMPARE(p.nodes.size(), std::size_t{3});
        const auto& mm = node(p, "mm");
        QCOMPARE(mm.eager.medianMs, 0.2);
        QVERIFY(qFuzzyCompare(mm.eager.spreadMs, 0.2));
        QCOMPARE(mm.bytes, std::int64_t{4096});
        QCOMPARE(mm.bytesMoved, std::int64_t{8192 + 2048 + 4096});
        QCOMPARE(mm.flops, 2.0 * 64 * 16 * 32);
        QVERIFY(mm.region.empty());
        QCOMPARE(node(p, "relu").region, std::string("r0"));
        QCOMPARE(node(p, "relu").flops, 0.0);
        // shares: medians 0.2, 0.02, 0.02 of 0.24
        QVERIFY(qFuzzyCompare(mm.share, 0.2 / 0.24));
        QVERIFY(qFuzzyCompare(node(p, "add").share, 0.02 / 0.24));
        // region per run: 0.04, 0.03, 0.05 -> median 0.04, spread 0.02
        QCOMPARE(p.regions.size(), std::size_t{1});
        const auto& r = p.regions.front();
        QVERIFY(qFuzzyCompare(r.eager.medianMs, 0.04));
        QVERIFY(qFuzzyCompare(r.eager.spreadMs, 0.02));
        QCOMPARE(r.bytesMoved, std::int64_t{4096 + 4096});
        QCOMPARE(r.nodes, (std::vector<std::string>{"relu", "add"}));
        QVERIFY(!r.compiledMs);
    }

    void classifiesBounds()
    {
        auto g = parse();
        // mm: 65536 FLOPs at 1 GFLOP/s = 0.065536 ms; 14336 B at 10 GB/s = 0.0014336 ms.
        const MachinePeaks peaks{10.0, 1.0};
        const auto p = assembleProfile(*g, regions(*g), {run(0.131072, 0.01, 0.01)}, {0.2},
                                       peaks);
        const auto& mm = node(p, "mm");
        QCOMPARE(mm.bound, Bound::Compute);
        QVERIFY(qFuzzyCompare(mm.efficiency, 0.5));
        // relu: no FLOPs, 8192 B at 10 GB/s = 0.0008192 ms in 0.01 ms.
        QCOMPARE(node(p, "relu").bound, Bound::Memory);
        QVERIFY(qFuzzyCompare(node(p, "relu").efficiency, 0.08192));
        QCOMPARE(p.regions.front().bound, Bound::Memory);
        // A faster matmul peak makes mm memory-bound: 65536 / 1e12 s < 14336 / 1e10 s.
        const auto q = assembleProfile(*g, {}, {run(0.1, 0.01, 0.01)}, {0.2}, {10.0, 1000.0});
        QCOMPARE(node(q, "mm").bound, Bound::Memory);
        QCOMPARE(classify(100.0, 0.0, 1.0, {}).efficiency, 0.0); // no bandwidth known
    }

    void profilesARealRun()
    {
        auto g = parse();
        ProfileOptions o;
        o.repeat = 3;
        o.peaks = MachinePeaks{10.0, 1.0};
        int calls = 0;
        double last = -1;
        auto p = profileGraph(*g, regions(*g), o, CancelToken::none(),
                              [&](double f, std::string_view) {
                                  QVERIFY(f >= last);
                                  last = f;
                                  ++calls;
                              });
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->repeat, 3);
        QCOMPARE(p->device, std::string("cpu"));
        QCOMPARE(p->nodes.size(), std::size_t{3});
        for (const auto& n : p->nodes) {
            QVERIFY(n.eager.minMs <= n.eager.medianMs && n.eager.medianMs <= n.eager.maxMs);
            QVERIFY(n.eager.minMs >= 0);
        }
        QCOMPARE(node(*p, "add").bytes, std::int64_t{4096});
        QVERIFY(p->peakBytes > 0);
        QVERIFY(calls >= 4);
        QCOMPARE(last, 1.0);
    }

    // The profile runs the graph once a call (a warm-up, then each timed run): the memory a
    // run frees stays for the next (exec::HostMemoryHold), so the timed runs time the graph,
    // not the system faulting its pages in. One run faults about 5,000 pages in (5 x 1,024 made,
    // the input's 1,024); ten timed runs that each gave it back and took it anew fault about
    // 61,000 (measured with the hold taken out). The bound leaves room for a heap that grows
    // by a block now and then where earlier runs left it in pieces.
    void timedRunsReuseTheMemoryOfTheRunsBefore()
    {
        if (!exec::HostMemoryHold::effective()) {
            QSKIP("not glibc, or malloc tuned through the environment: the policy leaves it alone");
        }
        auto g = chain();
        QVERIFY(g);
        ProfileOptions o;
        o.repeat = 10;
        o.peaks = MachinePeaks{10.0, 1.0};
        const long before = minorFaults();
        auto p = profileGraph(*g, {}, o);
        const long faults = minorFaults() - before;
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->repeat, 10);
        qInfo("page faults of the profile: %ld", faults);
        QVERIFY2(faults < 30000, std::to_string(faults).c_str());
    }

    void cancelledRunStops()
    {
        auto g = parse();
        ProfileOptions o;
        o.peaks = MachinePeaks{10.0, 1.0};
        CancelToken token;
        token.cancel();
        auto p = profileGraph(*g, {}, o, token);
        QVERIFY(!p.ok());
        QCOMPARE(p.error().code, ErrorCode::Cancelled);
    }

    void measuresPeaks()
    {
        PeakOptions o;
        o.copyBytes = std::size_t{8} << 20;
        o.matmulN = 128;
        const auto peaks = measurePeaks(o);
        QVERIFY(peaks.copyGBps > 0);
        QVERIFY(peaks.matmulGflops > 0);
    }

    void traceAndCsv()
    {
        auto g = parse();
        auto p = assembleProfile(*g, regions(*g), {run(0.2, 0.01, 0.03)}, {0.3}, {10.0, 1.0});
        p.regions.front().compiledMs = 0.02;
        const auto events = runtimeProfileTraceEvents(p);
        QCOMPARE(events.size(), std::size_t{3 + 1 + 1});
        const auto status = validateChromeTrace(writeChromeTrace(events));
        QVERIFY2(status.ok(), status.ok() ? "" : status.error().toString().c_str());
        const std::string csv = profileCsv(p);
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 + 1);
        QVERIFY(csv.rfind("kind,name,target,region,eager_ms", 0) == 0);
        QVERIFY(csv.find("\nregion,r0,,r0,0.04,0,0.02,2,") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestRuntimeProfile)
#include "tst_runtime_profile.moc"

FXSCOPE_TEST_END
