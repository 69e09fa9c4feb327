// TorchScript import: modules traced by Debian's torch 1.13 (tests/data/torchscript, made by
// make_modules.py) become graph IR with aten:: overload targets and get_attr parameters, and
// running them on the interpreter reproduces the module's own output saved at generation.
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/torchscript/torchscript_importer.h"
#include "tests/test_file.h"

#include <torch/csrc/jit/serialization/pickle.h>

#include <QtTest>

#include <fstream>
#include <iterator>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

const std::string kDir = FXSCOPE_TEST_DATA "/torchscript/";

std::vector<c10::IValue> loadTuple(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return torch::jit::pickle_load(bytes).toTupleRef().elements().vec();
}

int countTarget(const graph::Graph& g, const std::string& target)
{
    int n = 0;
    for (const auto& node : g.nodes()) {
        n += node.target == target ? 1 : 0;
    }
    return n;
}

void runAndCompare(const std::string& name, std::size_t outputs)
{
    auto m = torchscript::importTorchScript(kDir + name + ".pt");
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
    exec::RunOptions o;
    o.inputs = m->attributes;
    o.inputsFile = kDir + name + "_inputs.pt";
    auto r = exec::Interpreter::run(*m->graph, o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    QVERIFY(r->ok);
    QCOMPARE(r->outputs.size(), outputs);
    auto expected = loadTuple(kDir + name + "_expected.pt");
    QCOMPARE(expected.size(), outputs);
    for (std::size_t i = 0; i < outputs; ++i) {
        const at::Tensor want = expected[i].toTensor();
        const at::Tensor got = exec::tensorOf(*r->kept.find("output." + std::to_string(i)));
        QCOMPARE(got.sizes().vec(), want.sizes().vec());
        QVERIFY(at::allclose(got, want, 1e-5, 1e-5));
    }
}

} // namespace

class TestTorchScript : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void detectsTorchScriptFiles()
    {
        QVERIFY(torchscript::looksLikeTorchScript(kDir + "mlp.pt"));
        QVERIFY(!torchscript::looksLikeTorchScript(kDir + "mlp_inputs.pt")); // a torch.save file
        QVERIFY(!torchscript::looksLikeTorchScript(kDir + "make_modules.py"));
        auto missing = torchscript::importTorchScript(kDir + "nope.pt");
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, ErrorCode::Io);
    }

    void mlpImportsAsAtenGraph()
    {
        auto m = torchscript::importTorchScript(kDir + "mlp.pt");
        QVERIFY(m.ok());
        const auto& g = *m->graph;
        // Mlp: x -> linear(fc1) -> gelu -> linear(fc2) -> softmax.
        QCOMPARE(g.placeholders().size(), std::size_t(1));
        QCOMPARE(g.countOf(graph::OpKind::GetAttr), std::size_t(4));
        QCOMPARE(countTarget(g, "aten::linear.default"), 2);
        QCOMPARE(countTarget(g, "aten::gelu.default"), 1);
        QCOMPARE(countTarget(g, "aten::softmax.int"), 1);
        QVERIFY(m->attributes->contains("fc1.weight"));
        QCOMPARE(m->attributes->find("fc1.weight")->sizes(), (std::vector<std::int64_t>{16, 8}));
        QVERIFY(g.find("fc2_bias").has_value());
        QCOMPARE(g.node(*g.find("fc2_bias")).target, std::string("fc2.bias"));
        QVERIFY(exec::Interpreter::checkSupport(g).empty());
    }

    void mlpRunsLikeTheModule() { runAndCompare("mlp", 1); }
    void convBlockRunsLikeTheModule() { runAndCompare("conv_block", 2); }
};

QTEST_GUILESS_MAIN(TestTorchScript)
#include "tst_torchscript.moc"

FXSCOPE_TEST_END
