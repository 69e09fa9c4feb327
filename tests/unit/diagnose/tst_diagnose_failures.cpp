// What diagnose reports from the hand-made logs of tests/data/trace_classes (issue #28): failed
// compiles and export failures as errors, graph breaks from every format (artifact with its
// registry id and hints, restart_reasons of older logs), guards compared across ranks up to the
// GPU index, and compile times from the cumulative metrics fields.
#include "core/diagnose/diagnosis.h"
#include "core/diagnose/failures.h"
#include "core/diagnose/graph_breaks.h"
#include "core/diagnose/rank_divergence.h"
#include "core/io/torch_trace_reader.h"
#include "tests/test_file.h"

#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::diagnose;

namespace {

const std::string kData = FXSCOPE_TEST_DATA "/trace_classes/";

Diagnosis diagnosePath(const std::string& path)
{
    io::TraceReadOptions options;
    options.parseGraphs = false;
    const auto r = io::readTorchTracePath(path, options);
    if (!r.readSomething) {
        qFatal("cannot read %s", path.c_str());
    }
    auto d = diagnose::diagnose({&r.run});
    if (!d) {
        qFatal("diagnose failed: %s", d.error().toString().c_str());
    }
    return std::move(*d);
}

const Finding* findingWith(const Diagnosis& d, const std::string& fragment)
{
    const auto it = std::find_if(d.findings.begin(), d.findings.end(), [&](const Finding& f) {
        return f.text.find(fragment) != std::string::npos;
    });
    return it == d.findings.end() ? nullptr : &*it;
}

} // namespace

class TestDiagnoseFailures : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void failedCompileIsAnError()
    {
        const auto d = diagnosePath(kData + "comp_failure.log");
        QCOMPARE(d.failures.size(), std::size_t(1));
        const Failure& f = d.failures[0];
        QCOMPARE(f.compileId.toString(), std::string("0/0"));
        QCOMPARE(f.frame, std::string("fn"));
        QCOMPARE(f.failType, std::string("BackendCompilerFailed"));
        QCOMPARE(f.reason, std::string("backend='broken_backend' raised:\nRuntimeError: broken "
                                       "backend"));
        QCOMPARE(f.userFrame.file, std::string("/home/user/demo/demo.py")); // dynamo_start's
        QCOMPARE(f.userFrame.line, 14);
        QVERIFY(f.error.find("Traceback (most recent call last)") == 0);
        QCOMPARE(f.costS, 0.25);
        const Finding* finding = findingWith(d, "Compile failed in fn: BackendCompilerFailed");
        QVERIFY(finding);
        QCOMPARE(finding->severity, diagnose::Severity::Error);
        QCOMPARE(finding->link.kind, Link::Kind::Compile);
    }

    void exceptionFromTraceback()
    {
        const auto e = lastException("Traceback (most recent call last):\n"
                                     "  File \"x.py\", line 3, in f\n    raise ValueError(1)\n"
                                     "torch._dynamo.exc.Unsupported: bad op\nmore detail\n\n"
                                     "Set TORCH_LOGS=\"+dynamo\" for more information\n");
        QCOMPARE(e.type, std::string("Unsupported"));
        QCOMPARE(e.message, std::string("bad op\nmore detail"));
        QCOMPARE(lastException("").type, std::string());
    }

    void exportFailuresInLogOrder()
    {
        const auto d = diagnosePath(kData + "export_failures.log");
        QCOMPARE(d.exportFailures.size(), std::size_t(4)); // the "guard" prefix is no failure
        QCOMPARE(d.exportFailures[0].failureType, std::string("guard_evaluated"));
        QCOMPARE(d.exportFailures[0].expr, std::string("Eq(s0, 3)"));
        QCOMPARE(d.exportFailures[0].userFrame.line, 21);
        QCOMPARE(d.exportFailures[1].failureType, std::string("data_dependent"));
        QCOMPARE(d.exportFailures[2].failureType, std::string("missing_fake_kernel"));
        QCOMPARE(d.exportFailures[2].op, std::string("mylib.foo.default"));
        QCOMPARE(d.exportFailures[3].failureType, std::string("mismatched_fake_kernel"));
        QVERIFY(d.exportFailures[3].reason.find("Shapes differ") != std::string::npos);
        const auto errors = std::count_if(d.findings.begin(), d.findings.end(), [](const auto& f) {
            return f.severity == diagnose::Severity::Error && f.text.starts_with("Export: ");
        });
        QCOMPARE(int(errors), 4);
    }

    void graphBreaksFromRestartReasons()
    {
        const auto d = diagnosePath(kData + "restart_reasons.log");
        QCOMPARE(d.graphBreaks.size(), std::size_t(2));
        for (const auto& b : d.graphBreaks) {
            QCOMPARE(b.reason,
                     std::string("skip function graph_break in file torch/_dynamo/decorators.py"));
            QCOMPARE(b.source, std::string("restart_reasons"));
            QCOMPARE(b.userFrame.file, std::string("/home/user/demo/demo.py"));
            QCOMPARE(b.count, 1);
        }
        QCOMPARE(d.graphBreaks[0].userFrame.line, 7);
        QCOMPARE(d.graphBreaks[1].userFrame.line, 9);
        QCOMPARE(d.graphBreaks[0].compileIds.size(), std::size_t(2)); // 0/0 and resumed 1/0
    }

    void graphBreakArtifactDeduplicatedWithItsId()
    {
        const auto d = diagnosePath(kData + "graph_break_artifact.log");
        QCOMPARE(d.graphBreaks.size(), std::size_t(1)); // not again from restart_reasons
        const auto& b = d.graphBreaks[0];
        QCOMPARE(b.count, 2);
        QCOMPARE(b.gbId, std::string("gb0025"));
        QCOMPARE(b.reason, std::string("Call to `torch._dynamo.graph_break()`"));
        const std::vector<std::string> hints{"Remove the `torch._dynamo.graph_break()` call."};
        QCOMPARE(b.hints, hints);
        QCOMPARE(b.userFrame.line, 7);
        QVERIFY(findingWith(d, "[gb0025]"));
    }

    void graphBreakIds()
    {
        QCOMPARE(graphBreakId("see https://x/gb/gb0123.html for more"), std::string("gb0123"));
        QCOMPARE(graphBreakId("gb0007"), std::string("gb0007"));
        QCOMPARE(graphBreakId("gb12345 and xgb0001"), std::string());
        QCOMPARE(graphBreakId("no id"), std::string());
    }

    void guardsOfTwoGpusDoNotDiverge()
    {
        const std::string g0 = "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet("
                               "CUDA), torch.float32, device=0, requires_grad=False, size=[8], "
                               "stride=[1])";
        std::string g1 = g0;
        g1.replace(g1.find("device=0"), 8, "device=1");
        QCOMPARE(normalisedGuards(g0), normalisedGuards(g1));
        QCOMPARE(normalisedGuards("+- LAMBDA_GUARD: a is b  # h = F.gelu(h)  # t.py:60 in f"),
                 normalisedGuards("+- LAMBDA_GUARD: a is b  # h2 = F.relu(h2)  # t.py:71 in f"));
        std::string f16 = g0;
        f16.replace(f16.find("float32"), 7, "float16");
        QVERIFY(normalisedGuards(g0) != normalisedGuards(f16));
        QCOMPARE(normalisedGraphCode("x = torch.ones(2, device = device(type='cuda', index=0))"),
                 normalisedGraphCode("x = torch.ones(2, device = device(type='cuda', index=1))"));

        const auto d = diagnosePath(kData + "ranks");
        QCOMPARE(d.runs.at(0).ranks, (std::vector<int>{0, 1}));
        QVERIFY2(d.divergence.empty(), d.divergence.empty() ? "" : d.divergence[0].what.c_str());
    }

    void compilesAfterResetAreOtherCompiles()
    {
        const auto d = diagnosePath(kData + "reset.log");
        QCOMPARE(d.frames.size(), std::size_t(4));
        QCOMPARE(d.frames[0].function, std::string("fn"));
        QCOMPARE(d.frames[1].function, std::string("g"));
        QCOMPARE(d.frames[2].function, std::string("fn"));
        QCOMPARE(d.frames[3].function, std::string("h"));
        QCOMPARE(d.frames[3].compileIds.at(0).toString(), std::string("1/0 after reset 1"));
        for (const auto& f : d.frames) {
            QCOMPARE(f.compileIds.size(), std::size_t(1));
            QCOMPARE(f.totalS, 0.25); // the chromium events' time, each in its own session
            QVERIFY(!f.fromMetrics);
        }
    }

    void cumulativeTimesWhenNoOtherTime()
    {
        const std::string log =
            "V1128 09:00:00.000000 1 a.py:1] {\"compilation_metrics\": {\"co_name\": \"fn\", "
            "\"compile_id\": \"0/0\", \"dynamo_cumulative_compile_time_us\": 2000000, "
            "\"aot_autograd_cumulative_compile_time_us\": 1500000, "
            "\"inductor_cumulative_compile_time_us\": 1000000}, \"frame_id\": 0, "
            "\"frame_compile_id\": 0, \"attempt\": 0}\n";
        const auto r = io::readTorchTrace(log, "cumulative.log");
        const auto d = diagnose::diagnose({&r.run});
        QVERIFY(d);
        QCOMPARE(d->frames.size(), std::size_t(1));
        QCOMPARE(d->frames[0].totalS, 2.0);
        QCOMPARE(d->frames[0].phases.inductorS, 1.0);
        QCOMPARE(d->frames[0].phases.aotS, 0.5);
    }
};

QTEST_GUILESS_MAIN(TestDiagnoseFailures)
#include "tst_diagnose_failures.moc"

FXSCOPE_TEST_END
