// The pieces of diagnose that work on text or hand-built runs: graph code up to names, the
// identical-up-to-names and missing-components headlines, graph and guard normalisation for
// rank comparison, phase categories, readable sources, and metrics-only cold starts.
#include "core/diagnose/cold_start.h"
#include "core/diagnose/diagnosis.h"
#include "core/diagnose/graph_names.h"
#include "core/diagnose/rank_divergence.h"
#include "core/explain/recompile_cause.h"
#include "tests/test_file.h"

#include "../explain/lookup_factory.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::diagnose;
using model::CacheKind;
using model::CacheState;

namespace {

const char* const kGraphA = "GraphModule()\n\n\n\ndef forward(self, primals_1, primals_2):\n"
                            "    sin = torch.ops.aten.sin.default(primals_1)\n"
                            "    mm = torch.ops.aten.mm.default(sin, primals_2);  sin = None\n"
                            "    return (mm, primals_1)";
// The same graph with other node names (and `sin` as a name, not as the op's attribute).
const char* const kGraphB = "GraphModule()\n\n\n\ndef forward(self, arg0_1, arg1_1):\n"
                            "    y = torch.ops.aten.sin.default(arg0_1)\n"
                            "    out = torch.ops.aten.mm.default(y, arg1_1);  y = None\n"
                            "    return (out, arg0_1)";
const char* const kGraphC = "GraphModule()\n\n\n\ndef forward(self, arg0_1, arg1_1):\n"
                            "    y = torch.ops.aten.cos.default(arg0_1)\n"
                            "    out = torch.ops.aten.mm.default(y, arg1_1);  y = None\n"
                            "    return (out, arg0_1)";

model::CacheLookup missWithGraph(const std::string& key, const char* gm, const std::string& id)
{
    return test::lookup(CacheKind::FxGraph, CacheState::Miss, key,
                        {test::comp("gm", gm), test::comp("example_inputs[0]", "T")}, id);
}

Diagnosis diagnoseRun(const model::Run& run)
{
    auto d = diagnose::diagnose({&run});
    if (!d) {
        qFatal("%s", d.error().toString().c_str());
    }
    return std::move(*d);
}

} // namespace

class TestDiagnoseParts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void canonicalNames()
    {
        const auto a = canonicalGraphCode(kGraphA);
        const auto b = canonicalGraphCode(kGraphB);
        QCOMPARE(a.text, b.text);
        QCOMPARE(a.names, (std::vector<std::string>{"primals_1", "primals_2", "sin", "mm"}));
        QVERIFY(a.text.find("torch.ops.aten.sin.default(v0)") != std::string::npos);
        const auto rename = firstRename(a, b);
        QVERIFY(rename);
        QCOMPARE(rename->first, std::string("primals_1"));
        QCOMPARE(rename->second, std::string("arg0_1"));
        QVERIFY(canonicalGraphCode(kGraphC).text != b.text);
        QVERIFY(!firstRename(a, a));
        // Names inside string literals stay.
        const auto s = canonicalGraphCode("def forward(self, x):\n    y = f(x, 'x')\n");
        QVERIFY(s.text.find("f(v0, 'x')") != std::string::npos);
    }

    void identicalUpToNamesHeadline()
    {
        model::Run run;
        run.lookups.push_back(missWithGraph("fkey1", kGraphA, "0/0"));
        run.lookups.push_back(missWithGraph("fkey2", kGraphB, "1/0"));
        run.lookups.push_back(missWithGraph("fkey3", kGraphC, "2/0"));
        const auto d = diagnoseRun(run);
        QCOMPARE(d.cache.size(), std::size_t(3));
        QVERIFY(!d.cache[0].sameGraphUpToNames);
        QCOMPARE(d.cache[1].sameGraphUpToNames, std::optional<std::size_t>(0));
        QCOMPARE(d.cache[1].headline,
                 std::string("miss: the graph is identical to 0/0's up to node names "
                             "(primals_1 \u2192 arg0_1): only the names changed the key"));
        QVERIFY(!d.cache[2].sameGraphUpToNames); // cos is not sin
        QVERIFY(std::any_of(d.findings.begin(), d.findings.end(), [](const Finding& f) {
            return f.text.find("up to node names") != std::string::npos;
        }));
    }

    void keysWithoutComponents()
    {
        model::Run run;
        run.lookups.push_back(test::lookup(CacheKind::FxGraph, CacheState::Miss, "fabc", {}));
        run.lookups.push_back(test::lookup(CacheKind::FxGraph, CacheState::Hit, "fdef", {}));
        run.lookups.push_back(test::lookup(CacheKind::AotAutograd, CacheState::Bypass, "", {}));
        const auto d = diagnoseRun(run);
        QVERIFY(d.cache[0].componentsMissing);
        QVERIFY(d.cache[1].componentsMissing);
        QVERIFY(!d.cache[2].componentsMissing); // a bypass logs no key to explain
        QVERIFY(d.cache[0].headline.find("logged without its components") != std::string::npos);
        QVERIFY(d.cache[0].headline.find("TORCH_LOGS=\"+torch._inductor.codecache,"
                                         "+torch._functorch._aot_autograd.autograd_cache\"") !=
                std::string::npos);
        QCOMPARE(std::count_if(d.findings.begin(), d.findings.end(),
                               [](const Finding& f) {
                                   return f.text.find("without their components") !=
                                          std::string::npos;
                               }),
                 std::ptrdiff_t(1));
    }

    void normalisation()
    {
        QCOMPARE(normalisedGraphCode("def forward(self, L_x_: \"f32[8, 16][16, 1]cuda:0\"):\n"
                                     "    # File: x.py:3 in fn\n"
                                     "    y: \"f32[8, 16]\" = l_x_ @ w  # comment\n"),
                 std::string("def forward(self, L_x_: \"\"):\n    y: \"\" = l_x_ @ w\n"));
        QCOMPARE(normalisedGraphCode("s = \"hello\""), std::string("s = \"hello\"\n"));
        QCOMPARE(normalisedGuards("ID_MATCH: ___check_obj_id(G['torch'], 139828778771984), "
                                  "type=<m at 0x7f2be533e180>\nGuard latency = 76.90 us\n"
                                  "TENSOR_MATCH: check(x, size=[8, 16], stride=[16, 1])\n"
                                  "LAMBDA: L['n'] == 3"),
                 std::string("ID_MATCH: ___check_obj_id(G['torch'], #), type=<m at #>\n"
                             "TENSOR_MATCH: check(x, size=[], stride=[])\nLAMBDA: L['n'] == 3\n"));
    }

    void phaseCategories()
    {
        QCOMPARE(categoryOf("inductor_compile"), std::optional(PhaseCategory::Inductor));
        QCOMPARE(categoryOf("compile_fx.<locals>.fw_compiler_base"),
                 std::optional(PhaseCategory::Inductor));
        QCOMPARE(categoryOf("create_aot_dispatcher_function"), std::optional(PhaseCategory::Aot));
        QCOMPARE(categoryOf("AOTAutogradCache.inductor_load"), std::optional(PhaseCategory::Cache));
        QCOMPARE(categoryOf("TritonBundler.collect"), std::optional(PhaseCategory::Cache));
        QCOMPARE(categoryOf("dynamo"), std::optional(PhaseCategory::Dynamo));
        QCOMPARE(categoryOf("bytecode_tracing"), std::nullopt); // inherits its parent's
    }

    void readableSources()
    {
        QCOMPARE(explain::readableSource("L['x']"), std::string("x"));
        QCOMPARE(explain::readableSource("L['x'].size()[0]"), std::string("x.size(0)"));
        QCOMPARE(explain::readableSource("L['x'].stride()[1]"), std::string("x.stride(1)"));
        QCOMPARE(explain::readableSource("G['torch'].nn"), std::string("torch.nn"));
        QCOMPARE(explain::readableSource("L['self']._modules['lin'].weight"),
                 std::string("self._modules['lin'].weight"));
        QCOMPARE(explain::readableSource("L['broken"), std::string("L['broken"));
    }

    void coldStartFromMetricsAlone()
    {
        model::Run run;
        model::CompilationMetrics m;
        m.kind = "compilation_metrics";
        m.compileId = *model::CompileId::parse("0/0");
        m.json = R"({"compile_id": "0/0", "co_name": "f", "co_filename": "/a.py",
                     "co_firstlineno": 3, "entire_frame_compile_time_s": 2.0,
                     "backend_compile_time_s": 1.5, "inductor_compile_time_s": 1.0})";
        run.metrics.push_back(m);
        m.kind = "bwd_compilation_metrics";
        m.json = R"({"compile_id": "0/0", "inductor_compile_time_s": 0.25, "duration_us": 300000})";
        run.metrics.push_back(m);
        m.kind = "compilation_metrics";
        m.json = "{not json";
        run.metrics.push_back(m);
        const auto frames = framesOf(run, 0, compileTimes(run));
        QCOMPARE(frames.size(), std::size_t(1));
        const auto& f = frames[0];
        QVERIFY(f.fromMetrics);
        QCOMPARE(f.function, std::string("f"));
        QCOMPARE(f.line, 3);
        QVERIFY(qFuzzyCompare(f.phases.dynamoS, 0.5));
        QVERIFY(qFuzzyCompare(f.phases.aotS, 0.5 + 0.05));
        QVERIFY(qFuzzyCompare(f.phases.inductorS, 1.0 + 0.25));
        QVERIFY(qFuzzyCompare(f.totalS, 2.3));
    }

    void divergenceOnlyWithTwoRanks()
    {
        model::Run run;
        model::TensorRecord t;
        t.origin.compileId = *model::CompileId::parse("0/0");
        t.origin.rank = 0;
        t.source = "L['x']";
        t.dtype = "torch.float32";
        t.size = {"4"};
        run.tensors.push_back(t);
        QVERIFY(findDivergence(run).empty());
        t.origin.rank = 1;
        run.tensors.push_back(t);
        QVERIFY(findDivergence(run).empty()); // same inputs on both
        t.origin.compileId = *model::CompileId::parse("0/1"); // rank 1 recompiled
        run.tensors.push_back(t);
        const auto v = findDivergence(run);
        QCOMPARE(v.size(), std::size_t(1));
        QCOMPARE(v[0].compileId.toString(), std::string("0/1"));
        QCOMPARE(v[0].what, std::string("compiled on some ranks only"));
        QCOMPARE(v[0].detail.at(0), std::string("not compiled"));
        QCOMPARE(v[0].detail.at(1), std::string("compiled"));
    }
};

QTEST_GUILESS_MAIN(TestDiagnoseParts)
#include "tst_diagnose_parts.moc"

FXSCOPE_TEST_END
