// The profiler trace reader (streaming split, gzip, truncated and corrupt input keeping what
// was read) and the kernel join on the real round-3 GPT training fixture, with figures checked
// by hand and by an independent Python sum over the trace (total kernel time 4226.575 us).
#include "core/io/torch_trace_reader.h"
#include "core/runtime/attribution.h"
#include "core/runtime/profile_trace_reader.h"
#include "tests/test_file.h"

#include <QtTest>

#include <cmath>
#include <map>

FXSCOPE_TEST_BEGIN

using namespace fxs::runtime;

namespace {

const std::string kData = std::string(FXSCOPE_TEST_DATA) + "/runtime/gpt4_train/";

const char* kSmall = R"({"schemaVersion": 1,
 "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph fkey ##", "pid": 1, "tid": 2, "ts": 100, "dur": 50},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 2, "ts": 110, "dur": 2, "args": {"correlation": 7}},
  {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 200, "dur": 10.5, "args": {"correlation": 7, "grid": [4, 1, 1], "block": [128, 1, 1], "stream": 7, "device": 0}},
  {"ph": "s", "id": 7, "pid": 1, "tid": 2, "ts": 110, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": 7, "ts": 300, "dur": 1.5, "args": {"correlation": 99}}
 ],
 "traceName": "x"})";

} // namespace

class TestProfileTrace : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsSmallTrace()
    {
        const auto r = readProfileTraceText(kSmall, "small.json");
        QVERIFY(!r.error);
        QCOMPARE(r.trace.eventsRead, 5);
        QCOMPARE(r.trace.count(EventKind::Kernel), 2);
        QCOMPARE(r.trace.count(EventKind::Launch), 1);
        QCOMPARE(r.trace.devices.size(), std::size_t(1));
        QCOMPARE(r.trace.devices[0].name, std::string("NVIDIA H100 80GB HBM3"));
        const auto& k = r.trace.events[2];
        QCOMPARE(k.grid[0], 4);
        QCOMPARE(k.block[0], 128);
        QCOMPARE(k.correlation, std::int64_t(7));
    }

    // Every cut of the small trace keeps the events before the cut and says where it stopped.
    void truncatedKeepsWhatWasRead()
    {
        const std::string text = kSmall;
        const auto cut = text.find("\"orphan\"");
        const auto r = readProfileTraceText(text.substr(0, cut), "cut.json");
        QVERIFY(r.error.has_value());
        QCOMPARE(r.error->code, fxs::ErrorCode::Parse);
        QVERIFY(r.error->message.find("cut short") != std::string::npos);
        QVERIFY(r.error->where.find("cut.json:") == 0);
        QCOMPARE(r.trace.count(EventKind::Kernel), 1); // the first kernel was kept
        for (std::size_t n = 0; n < text.size(); n += 7) {
            const auto part = readProfileTraceText(text.substr(0, n), "cut.json");
            QVERIFY(part.error.has_value());
        }
    }

    void corruptAndNested()
    {
        auto bad = readProfileTraceText(R"({"traceEvents": [ {"ph": "X"}, 42 ]})", "bad.json");
        QVERIFY(bad.error.has_value());
        QCOMPARE(bad.error->expected, std::string("an event object '{'"));
        QCOMPARE(bad.trace.eventsRead, 1);
        std::string deep = R"({"traceEvents": [ {"args": )";
        deep += std::string(300, '[');
        const auto d = readProfileTraceText(deep, "deep.json");
        QVERIFY(d.error.has_value());
        QVERIFY(d.error->message.find("nested") != std::string::npos);
        const auto none = readProfileTraceText(R"({"a": 1})", "none.json");
        QVERIFY(none.error.has_value());
        QVERIFY(!looksLikeProfileTrace("V1128 07:21:27.910000 1903 x.py:1] {}"));
        QVERIFY(looksLikeProfileTrace(kSmall));
    }

    // The small trace's graph is not in any log: said, not guessed; the orphan has no launch.
    void graphNotInLog()
    {
        const auto r = readProfileTraceText(kSmall, "small.json");
        const auto a = attribute(r.trace, RunProvenance{});
        QCOMPARE(a.unattributed.size(), std::size_t(2));
        QVERIFY(a.kernels.empty());
        QVERIFY(a.sumCheckOk);
        QCOMPARE(a.totalKernelUs, 12.0);
        bool said = false;
        for (const auto& u : a.unattributed) {
            said = said || (u.reason == "graph fkey is not in the TORCH_TRACE log" && u.us == 10.5);
        }
        QVERIFY(said);
    }

    // ProfilerStep#N annotations make the steps; outside compiled graphs a kernel goes to its
    // outermost cpu_op or annotation other than the step (5 us under aten::mul in step 1, 2 us
    // under aten::add inside "my_region" in step 2).
    void profilerSteps()
    {
        const char* text = R"({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 2, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 2, "ts": 10, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 15, "dur": 1, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "mul_kernel", "pid": 0, "tid": 7, "ts": 500, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 2, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "my_region", "pid": 1, "tid": 2, "ts": 110, "dur": 50},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 2, "ts": 120, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 125, "dur": 1, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 600, "dur": 2, "args": {"correlation": 2}}
 ]})";
        const auto r = readProfileTraceText(text, "steps.json");
        QVERIFY(!r.error);
        const auto a = attribute(r.trace, RunProvenance{});
        QCOMPARE(a.steps, 2);
        QCOMPARE(a.stepsFrom, std::string("ProfilerStep#N annotations"));
        QCOMPARE(a.perStepUs, (std::vector<double>{5.0, 2.0}));
        QCOMPARE(a.kernels.size(), std::size_t(2));
        QCOMPARE(a.kernels[0].op, std::string("aten::mul"));
        QCOMPARE(a.kernels[1].op, std::string("my_region"));
        QVERIFY(a.unattributed.empty());
    }

    void gptFixtureJoin()
    {
        const auto r = readProfileTrace(kData + "gpt4_train_profile.json.gz");
        QVERIFY2(!r.error, r.error ? r.error->toString().c_str() : "");
        QCOMPARE(r.trace.count(EventKind::Kernel), 693); // python: Counter of cat
        const auto run = fxs::io::readTorchTracePath(kData + "dedicated_log_torch_trace_87z1gt5g.log.gz");
        QVERIFY(run.readSomething);
        const auto prov = collectProvenance(run.run);
        QCOMPARE(prov.graphs.size(), std::size_t(2));
        const auto a = attribute(r.trace, prov);
        QVERIFY(std::abs(a.totalKernelUs - 4226.575) < 1e-6);
        QVERIFY(a.sumCheckOk);
        QVERIFY(a.unattributed.empty());
        QCOMPARE(a.steps, 3);
        QCOMPARE(a.device, std::string("NVIDIA H200"));
        const KernelRow* mm = nullptr;
        for (const auto& k : a.kernels) {
            if (k.handle == "extern_kernels.mm:13" && k.graph[1] == 'c') {
                mm = &k;
            }
        }
        QVERIFY(mm);
        // Block 0's fc2: [1024, 1024] @ [1024, 256] = 2 * 1024 * 1024 * 256 per call.
        QCOMPARE(*mm->flops, 536870912.0);
        QCOMPARE(mm->calls, 3);
        QCOMPARE(mm->postNodes, std::vector<std::string>{"mm_default_6"});
        QCOMPARE(mm->preNodes, std::vector<std::string>{"linear_1"});
        QCOMPARE(mm->modules, std::vector<std::string>{"s.blocks.0.fc2"});
        QVERIFY(a.kernels.front().name.find("fmha_cutlassB") == 0);
    }

    // mode="reduce-overhead" (tests/data/runtime/cudagraphs_infer, recorded on an H200 by
    // tools/record/rec_cudagraphs.py): each of the 3 calls replays a CUDA graph of 19 kernels
    // through one cudaGraphLaunch, and the call is a cpu_op, not a user_annotation. Read by
    // hand from the trace, per replay in time order: layer_norm_0, two sm80_xmma GEMM kernels,
    // addmm_gelu_1, a cutlass sgemm + cublasLt splitKreduce, add_addmm_native_layer_norm_2, ...
    // against the log's sites LN:1, mm:2, gelu:3, mm:4, LN:5, ..., add_addmm_4:13.
    void cudaGraphReplaysJoinTheirSites()
    {
        const std::string dir = std::string(FXSCOPE_TEST_DATA) + "/runtime/cudagraphs_infer/";
        const auto r = readProfileTrace(dir + "cudagraphs_infer_profile.json.gz");
        QVERIFY2(!r.error, r.error ? r.error->toString().c_str() : "");
        QCOMPARE(r.trace.count(EventKind::Kernel), 60); // 3 × 19 replayed + 3 input copies
        const auto run = fxs::io::readTorchTracePath(dir + "dedicated_log_torch_trace_ghx98lw1.log.gz");
        const auto a = attribute(r.trace, collectProvenance(run.run));
        QVERIFY(a.sumCheckOk);
        QVERIFY(a.unattributed.empty());
        std::map<std::string, const KernelRow*> byHandle;
        for (const auto& k : a.kernels) {
            if (!k.handle.empty()) {
                byHandle[k.handle] = &k;
            }
        }
        QCOMPARE(byHandle.size(), std::size_t(13)); // every call site of the graph
        const KernelRow* mm2 = byHandle["extern_kernels.mm:2"];
        QVERIFY(mm2);
        QCOMPARE(mm2->calls, 3);
        QCOMPARE(mm2->launches, 6); // two GEMM kernels per replay
        QVERIFY(mm2->name.find("sm80_xmma_gemm") == 0);
        const KernelRow* mm4 = byHandle["extern_kernels.mm:4"];
        QVERIFY(mm4 && mm4->name.find("cutlass") != std::string::npos &&
                mm4->name.find("splitKreduce") != std::string::npos);
        const KernelRow* gelu = byHandle["triton_poi_fused_addmm_gelu_1:7"];
        QVERIFY(gelu);
        QCOMPARE(gelu->calls, 3);
        QVERIFY(!gelu->postNodes.empty());
        // The input copies before each replay ran outside the graph, under its call's region.
        double outside = 0;
        for (const auto& k : a.kernels) {
            outside += k.handle.empty() ? k.us : 0.0;
        }
        QVERIFY(outside > 0);
    }
};

QTEST_GUILESS_MAIN(TestProfileTrace)
#include "tst_profile_trace.moc"

FXSCOPE_TEST_END
