// Measured time laid on the graphs of a run (graph_times) and the rates of a kernel row
// (kernel_rates), on the hand-made small trace (tests/data/runtime/make_small.py): one inference
// graph, fc1 → relu → fc2, called twice. Its run holds after_pre_grad_graph (0),
// aot_inference_graph (1) and inductor_post_grad_graph (2). Figures worked out by hand from the
// generator's kernel durations: mm site 2 × (4 + 1) = 10 µs over permute and mm, the Triton
// site 2 × 2 = 4 µs over add and relu, the addmm site 2 × 3 = 6 µs over permute_1 and addmm.
#include "core/io/torch_trace_reader.h"
#include "core/runtime/graph_times.h"
#include "core/runtime/kernel_rates.h"
#include "core/runtime/profile_trace_reader.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs::runtime;

namespace {

const std::string kSmall = std::string(FXSCOPE_TEST_DATA) + "/runtime/small/";

std::size_t rowOf(const Attribution& a, const std::string& handle)
{
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        if (a.kernels[i].handle == handle) {
            return i;
        }
    }
    return a.kernels.size();
}

} // namespace

class TestGraphTimes : public QObject {
    Q_OBJECT

    ProfileReadResult m_read;
    fxs::io::TraceReadResult m_run;
    RunProvenance m_prov;
    Attribution m_a;

private Q_SLOTS:
    void initTestCase()
    {
        m_read = readProfileTrace(kSmall + "profile.json");
        QVERIFY(!m_read.error);
        m_run = fxs::io::readTorchTracePath(kSmall + "torch_trace.log");
        QCOMPARE(m_run.run.graphs.size(), std::size_t(3));
        QCOMPARE(m_run.run.graphs[0].kind, std::string("after_pre_grad_graph"));
        QCOMPARE(m_run.run.graphs[1].kind, std::string("aot_inference_graph"));
        QCOMPARE(m_run.run.graphs[2].kind, std::string("inductor_post_grad_graph"));
        m_prov = collectProvenance(m_run.run);
        m_a = attribute(m_read.trace, m_prov);
    }

    void postGradSide()
    {
        const auto times = timesByGraph(m_a, m_prov, m_run.run);
        QCOMPARE(times.size(), std::size_t(3));
        const std::size_t mm = rowOf(m_a, "extern_kernels.mm:1");
        const std::size_t tri = rowOf(m_a, "triton_poi_fused_add_relu_0:2");
        const std::size_t addmm = rowOf(m_a, "extern_kernels.addmm:3");
        QVERIFY(mm < m_a.kernels.size() && tri < m_a.kernels.size());
        for (const std::size_t g : {1, 2}) { // the AOT graph and the post-grad graph alike
            const GraphTimes& t = times[g];
            QCOMPARE(t.artifact, g);
            QVERIFY(!t.preGrad);
            QCOMPARE(t.nodes.size(), std::size_t(6));
            QCOMPARE(t.nodes.at("permute").us, 5.0);
            QCOMPARE(t.nodes.at("mm").us, 5.0);
            QCOMPARE(t.nodes.at("add").us, 2.0);
            QCOMPARE(t.nodes.at("relu").us, 2.0);
            QCOMPARE(t.nodes.at("addmm").us, 3.0);
            QCOMPARE(t.nodes.at("mm").kernels, std::vector<std::size_t>{mm});
            QCOMPARE(t.nodes.at("relu").kernels, std::vector<std::size_t>{tri});
            QCOMPARE(t.nodes.at("permute_1").kernels, std::vector<std::size_t>{addmm});
            QCOMPARE(t.us, 20.0); // the attributed 25 µs less the optimizer's 5
            QVERIFY(!t.nodes.count("arg0_1")); // inputs ran no kernel
        }
    }

    void preGradSide()
    {
        const auto times = timesByGraph(m_a, m_prov, m_run.run);
        const GraphTimes& t = times[0];
        QCOMPARE(t.artifact, std::size_t(0));
        QVERIFY(t.preGrad);
        QCOMPARE(t.nodes.size(), std::size_t(3));
        QCOMPARE(t.nodes.at("linear").us, 12.0); // permute 5 + mm 5 + add 2
        QCOMPARE(t.nodes.at("relu").us, 2.0);
        QCOMPARE(t.nodes.at("linear_1").us, 6.0);
        std::vector<std::size_t> linear{rowOf(m_a, "extern_kernels.mm:1"),
                                        rowOf(m_a, "triton_poi_fused_add_relu_0:2")};
        std::sort(linear.begin(), linear.end());
        QCOMPARE(t.nodes.at("linear").kernels, linear);
        QCOMPARE(t.us, 20.0);
    }

    void runsAreMatchedByKey()
    {
        // The trace calls the log's graph and "fmissinggraph", which no log holds.
        QCOMPARE(knownGraphKeys(m_read.trace, m_run.run), std::size_t(1));
        QCOMPARE(knownGraphKeys(m_read.trace, fxs::model::Run{}), std::size_t(0));
    }

    void rates()
    {
        const KernelRow& tri = m_a.kernels[rowOf(m_a, "triton_poi_fused_add_relu_0:2")];
        const KernelRates r = kernelRates(tri, m_a.peaks);
        // 2176 bytes a call (mm and the bias in, relu out), 2 calls in 4 µs.
        QCOMPARE(*r.bytes, 4352.0);
        QCOMPARE(*r.gbps, 4352.0 / 4e-6 / 1e9);
        QCOMPARE(*r.pctPeakBw, 100.0 * 4352.0 / 4e-6 / 3.35e12);
        QVERIFY(!r.flops && !r.pctPeakFlops);
        QCOMPARE(*r.pctPeak(), *r.pctPeakBw);
        const KernelRow& mm = m_a.kernels[rowOf(m_a, "extern_kernels.mm:1")];
        const KernelRates g = kernelRates(mm, m_a.peaks);
        QCOMPARE(*g.flops, 16384.0); // 2 * 8 * 16 * 32 a call, 2 calls
        QCOMPARE(*g.tflops, 16384.0 / 10e-6 / 1e12);
        QCOMPARE(g.peakKind, std::string("fp32"));
        QCOMPARE(*g.pctPeak(), 100.0 * 16384.0 / 10e-6 / m_a.peaks->fp32Flops);
        QVERIFY(!kernelRates(mm, std::nullopt).pctPeak());
        KernelRow idle = mm;
        idle.us = 0;
        QVERIFY(!kernelRates(idle, m_a.peaks).tflops); // no time: no rate
    }
};

QTEST_GUILESS_MAIN(TestGraphTimes)
#include "tst_graph_times.moc"

FXSCOPE_TEST_END
