// The shared PyTorch 2.11 fixtures end to end on CPU: every node runs (composites stand in for
// the CUDA-only and newer operators) and every floating output is finite. Backward graphs are
// fed from their forward graphs.
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/io/graph_code_parser.h"
#include "core/io/loader.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QtTest>

#include <ATen/ATen.h>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

graph::GraphPtr load(const std::string& name)
{
    const std::string path = FXSCOPE_TEST_DATA "/fixtures/graphs/" + name + ".txt";
    auto text = readFile(path);
    if (!text.ok()) {
        return nullptr;
    }
    auto parsed = io::parseGraphCode(*text, path);
    return parsed.diagnostics.errorCount() == 0 ? parsed.graph : nullptr;
}

int callNodes(const graph::Graph& g)
{
    return static_cast<int>(g.countOf(graph::OpKind::CallFunction));
}

void checkFinite(const exec::RunReport& r)
{
    QVERIFY(r.ok);
    QVERIFY(!r.outputs.empty());
    for (const auto& o : r.outputs) {
        QCOMPARE(o.nan, std::int64_t(0));
        QCOMPARE(o.inf, std::int64_t(0));
    }
}

void runPair(const std::string& fwName, const std::string& bwName)
{
    auto fw = load(fwName);
    auto bw = load(bwName);
    QVERIFY(fw && bw);
    exec::RunOptions o;
    auto f = exec::Interpreter::run(*fw, o);
    QVERIFY2(f.ok(), f.ok() ? "" : f.error().toString().c_str());
    QCOMPARE(f->nodesRun, callNodes(*fw));
    checkFinite(*f);
    o.forwardGraph = fw;
    auto b = exec::Interpreter::run(*bw, o);
    QVERIFY2(b.ok(), b.ok() ? "" : b.error().toString().c_str());
    QCOMPARE(b->nodesRun, callNodes(*bw));
    checkFinite(*b);
    // The note says how the inputs were matched; every placeholder was fed or synthesised.
    QVERIFY(b->notes.back().find("ran the forward graph first") != std::string::npos);
}

} // namespace

class TestExecFixtures : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void resnet18Inference()
    {
        auto g = load("resnet18_infer");
        QVERIFY(g);
        auto r = exec::Interpreter::run(*g, {});
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        checkFinite(*r);
        QCOMPARE(r->device, std::string("cpu"));
        QCOMPARE(r->nodesRun, callNodes(*g));
        QCOMPARE(r->outputs.size(), std::size_t(1));
        QCOMPARE(r->outputs[0].shape, (std::vector<std::int64_t>{2, 1000})); // addmm: [2, 1000]
        QCOMPARE(r->notes.front(), std::string("the graph was recorded on CUDA, but this LibTorch "
                                               "has no CUDA or sees no GPU: running on CPU"));
    }

    void traceGraphsFedByAotComments()
    {
        // basic_cold: (x.sin() @ y).relu() * 2. Its backward graph's placeholders carry
        // `# PlainAOTInput(idx=0)` (primals_1) and `# TangentAOTInput(...)` (tangents_1);
        // le, permute, permute_1 are matched by name.
        const QDir dir(QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold"));
        const auto log = dir.filePath(dir.entryList({"*.log"}, QDir::Files).value(0));
        auto loaded = io::loadPaths({log.toStdString()});
        QCOMPARE(loaded.runs.size(), std::size_t(1));
        graph::GraphPtr fw, bw;
        for (const auto& g : loaded.runs[0].graphs) {
            if (g.kind == "aot_forward_graph") {
                fw = g.graph;
            } else if (g.kind == "aot_backward_graph") {
                bw = g.graph;
            }
        }
        QVERIFY(fw && bw);
        exec::RunOptions o;
        o.forwardGraph = fw;
        o.keep = {"primals_1", "permute_1", "tangents_1"};
        auto r = exec::Interpreter::run(*bw, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QVERIFY(r->ok);
        QVERIFY2(r->notes.back().find("1 by AOT comment, 3 by name; 1 tangents") !=
                     std::string::npos,
                 r->notes.back().c_str());
        // d/dx of 2 * relu(sin(x) @ y): where(sin(x) @ y <= 0, 0, 2 t) @ y^T * cos(x), with y^T
        // the forward's permute_1: the fed `le` must agree with the fed x and y.
        const auto x = exec::tensorOf(*r->kept.find("primals_1"));
        const auto yT = exec::tensorOf(*r->kept.find("permute_1"));
        const auto t = exec::tensorOf(*r->kept.find("tangents_1"));
        const auto mask = at::matmul(x.sin(), yT.t()) > 0;
        const auto expected = at::matmul(at::where(mask, 2 * t, at::zeros_like(t)), yT) * x.cos();
        const auto got = exec::tensorOf(*r->kept.find("output.0"));
        QVERIFY(at::allclose(got, expected, 1e-4, 1e-4));
    }

    void resnet18Training() { runPair("resnet18_train_fw", "resnet18_train_bw"); }
    void gpt2AnnotatedTraining() { runPair("gpt2_annotated_fw", "gpt2_annotated_bw"); }
    void gpt12Training() { runPair("gpt12_train_fw", "gpt12_train_bw"); }
};

QTEST_GUILESS_MAIN(TestExecFixtures)
#include "tst_exec_fixtures.moc"

FXSCOPE_TEST_END
