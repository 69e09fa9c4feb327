// Regions of a project timed from the attribution (region_times), on the hand-made small trace
// (tests/data/runtime/make_small.py): one inference graph called twice; the mm site takes
// 2 × (4 + 1) = 10 µs over permute and mm, the Triton site 2 × 2 = 4 µs over add and relu, the
// addmm site 2 × 3 = 6 µs over permute_1 and addmm; 32.5 µs of kernels in all. Every figure
// below is worked out by hand from those numbers: a region that takes mm and add gets half of
// the mm site and half of the Triton site (5 + 2 = 7 µs), both kernels crossing its boundary.
#include "core/io/torch_trace_reader.h"
#include "core/runtime/profile_trace_reader.h"
#include "core/runtime/region_times.h"
#include "core/util/digest.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs::runtime;

namespace {

const std::string kSmall = std::string(FXSCOPE_TEST_DATA) + "/runtime/small/";

std::vector<std::string> handles(const Attribution& a, const RegionTime& r)
{
    std::vector<std::string> out;
    for (const auto k : r.kernels) {
        out.push_back(a.kernels[k].handle);
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class TestRegionTimes : public QObject {
    Q_OBJECT

    ProfileReadResult m_read;
    fxs::io::TraceReadResult m_run;
    RunProvenance m_prov;
    Attribution m_a;
    std::vector<GraphTimes> m_times;

    const GraphTimes* timesOf(std::size_t artifact) const
    {
        for (const auto& t : m_times) {
            if (t.artifact == artifact) {
                return &t;
            }
        }
        return nullptr;
    }

    std::string textSha(std::size_t artifact) const
    {
        return fxs::toHex(fxs::sha256(m_run.run.graphs[artifact].parsedGraph()->text()));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_read = readProfileTrace(kSmall + "profile.json");
        QVERIFY(!m_read.error);
        m_run = fxs::io::readTorchTracePath(kSmall + "torch_trace.log");
        QCOMPARE(m_run.run.graphs.size(), std::size_t(3));
        m_prov = collectProvenance(m_run.run);
        m_a = attribute(m_read.trace, m_prov);
        QCOMPARE(m_a.totalKernelUs, 32.5);
        m_times = timesByGraph(m_a, m_prov, m_run.run);
    }

    void regionsAcrossSharedKernels()
    {
        const std::vector<RegionNodes> regions = {
            {"r0", "fc1", {"mm", "add"}},
            {"r1", "fc2", {"relu", "permute_1", "addmm"}},
            {"r2", "", {"permute", "ghost"}}};
        const auto rows = regionTimes(m_a, timesOf(1), regions, "0/0:aot_inference_graph");
        QCOMPARE(rows.size(), std::size_t(3));
        const RegionTime& r0 = rows[0];
        QCOMPARE(r0.id, std::string("r0"));
        QCOMPARE(r0.name, std::string("fc1"));
        QCOMPARE(r0.graph, std::string("0/0:aot_inference_graph"));
        QCOMPARE(r0.us, 7.0); // mm 10 / 2 + Triton 4 / 2
        QCOMPARE(r0.share, 7.0 / 32.5);
        QCOMPARE(r0.nodes, std::size_t(2));
        QCOMPARE(r0.matchedNodes, std::size_t(2));
        QVERIFY(r0.unmatched.empty());
        QCOMPARE(handles(m_a, r0), (std::vector<std::string>{"extern_kernels.mm:1",
                                                             "triton_poi_fused_add_relu_0:2"}));
        QCOMPARE(r0.launches, std::int64_t(6)); // mm: 2 kernels × 2 calls; Triton: 2
        QCOMPARE(r0.sharedKernels, std::size_t(2));
        const RegionTime& r1 = rows[1];
        QCOMPARE(r1.us, 8.0); // Triton 4 / 2 + the addmm site's 6, both its nodes inside
        QCOMPARE(handles(m_a, r1), (std::vector<std::string>{"extern_kernels.addmm:3",
                                                             "triton_poi_fused_add_relu_0:2"}));
        QCOMPARE(r1.launches, std::int64_t(4));
        QCOMPARE(r1.sharedKernels, std::size_t(1)); // the Triton site; addmm's is whole
        const RegionTime& r2 = rows[2];
        QCOMPARE(r2.us, 5.0);
        QCOMPARE(r2.matchedNodes, std::size_t(1));
        QCOMPARE(r2.unmatched, std::vector<std::string>{"ghost"}); // listed, not dropped
    }

    void preGradRegion()
    {
        // The same time seen from the pre-grad graph: linear takes the mm site and half the
        // Triton site (permute 5 + mm 5 + add 2), relu the other half; nothing crosses.
        const auto rows =
            regionTimes(m_a, timesOf(0), {{"p0", "", {"linear", "relu"}}}, "pre");
        QCOMPARE(rows[0].us, 14.0);
        QCOMPARE(rows[0].kernels.size(), std::size_t(2));
        QCOMPARE(rows[0].sharedKernels, std::size_t(0));
        const auto fc2 = regionTimes(m_a, timesOf(0), {{"p1", "", {"relu"}}}, "pre");
        QCOMPARE(fc2[0].us, 2.0);
        QCOMPARE(fc2[0].sharedKernels, std::size_t(1)); // the Triton site is also linear's
    }

    void noTimesMeansUnmatched()
    {
        const auto rows = regionTimes(m_a, nullptr, {{"r0", "", {"mm", "add"}}}, "x");
        QCOMPARE(rows[0].us, 0.0);
        QCOMPARE(rows[0].matchedNodes, std::size_t(0));
        QCOMPARE(rows[0].unmatched.size(), std::size_t(2));
    }

    void locatedBySha()
    {
        const std::vector<RegionNodes> regions = {{"r0", "", {"mm", "add"}}};
        const auto l = locateRegionGraph(m_run.run, m_times, textSha(0), regions);
        QCOMPARE(l.artifact, std::optional<std::size_t>(0));
        QCOMPARE(l.by, std::string("sha256"));
        QCOMPARE(l.selector, std::string("0/0:after_pre_grad_graph"));
        QCOMPARE(l.nodesFound, std::size_t(0)); // said: its names are pre-grad names
        QCOMPARE(l.nodesTotal, std::size_t(2));
        // The AOT graph and the post-grad graph print the same text: the first one is taken.
        QCOMPARE(locateRegionGraph(m_run.run, m_times, textSha(2), regions).artifact,
                 std::optional<std::size_t>(1));
    }

    void locatedByNames()
    {
        const std::vector<RegionNodes> regions = {{"r0", "", {"mm", "add", "ghost"}}};
        const auto l = locateRegionGraph(m_run.run, m_times, "00ff", regions);
        QCOMPARE(l.artifact, std::optional<std::size_t>(1)); // AOT and post-grad tie: first
        QCOMPARE(l.by, std::string("node_names"));
        QCOMPARE(l.nodesFound, std::size_t(2));
        QVERIFY2(l.message.find("2 of the regions' 3 nodes") != std::string::npos,
                 l.message.c_str());
    }

    void notInTheRun()
    {
        const auto none = locateRegionGraph(m_run.run, m_times, "00ff",
                                            {{"r0", "", {"conv", "bn"}}});
        QVERIFY(!none.artifact);
        QVERIFY2(none.message.find("none of the log's 3 graphs") != std::string::npos,
                 none.message.c_str());
        // Half the nodes by name is not enough to call it the same graph.
        const auto half = locateRegionGraph(m_run.run, m_times, "00ff",
                                            {{"r0", "", {"mm", "conv"}}});
        QVERIFY(!half.artifact);
        QVERIFY2(half.message.find("best: 0/0:aot_inference_graph with 1 of") !=
                     std::string::npos,
                 half.message.c_str());
    }

    void selectors()
    {
        QCOMPARE(graphSelector(m_run.run, 2), std::string("0/0:inductor_post_grad_graph"));
        fxs::model::Run twice = m_run.run;
        twice.graphs.push_back(twice.graphs[1]);
        QCOMPARE(graphSelector(twice, 3), std::string("0/0:aot_inference_graph#1"));
    }
};

QTEST_GUILESS_MAIN(TestRegionTimes)
#include "tst_region_times.moc"

FXSCOPE_TEST_END
