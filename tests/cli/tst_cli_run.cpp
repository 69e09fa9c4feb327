// fxscope-cli run end to end: the JSON contract on a fixture, backward fed by --from-forward,
// --host-times, TorchScript input, unsupported graphs (non-zero exit with the list) and bad
// arguments.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QtTest>

#include <nlohmann/json.hpp>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

QString graphFixture(const char* name)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/") + name + ".txt";
}

json parse(const CliRun& r)
{
    return json::parse(r.out.toStdString(), nullptr, false);
}

} // namespace

class TestCliRun : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonContractOnResnet()
    {
        auto r = runCli({"run", graphFixture("resnet18_infer"), "--json", "--repeat", "2"});
        QCOMPARE(r.exitCode, 0);
        const json j = parse(r);
        QVERIFY(!j.is_discarded());
        for (const char* key : {"ok", "device", "nodes_run", "total_ms", "peak_bytes", "outputs",
                                "per_node", "unsupported", "notes"}) {
            QVERIFY2(j.contains(key), key);
        }
        QCOMPARE(j["ok"].get<bool>(), true);
        QCOMPARE(j["device"].get<std::string>(), std::string("cpu"));
        // resnet18_infer.txt: 70 torch.ops calls + 21 getitem lines = 91 call_function nodes.
        QCOMPARE(j["nodes_run"].get<int>(), 91);
        QCOMPARE(j["per_node"].size(), std::size_t(91));
        QCOMPARE(j["per_node"][0]["target"].get<std::string>(),
                 std::string("aten::convolution.default"));
        QVERIFY(j["per_node"][0]["ms"].get<double>() >= 0);
        QVERIFY(j["total_ms"].get<double>() > 0);
        QVERIFY(j["peak_bytes"].get<std::int64_t>() > 2 * 64 * 112 * 112 * 4);
        const auto& out = j["outputs"].at(0);
        QCOMPARE(out["shape"], json::array({2, 1000}));
        QCOMPARE(out["dtype"].get<std::string>(), std::string("float32"));
        QCOMPARE(out["nan"].get<int>(), 0);
        QCOMPARE(out["inf"].get<int>(), 0);
        QVERIFY(j["unsupported"].empty());
        QCOMPARE(j["notes"].size(), std::size_t(1)); // recorded on CUDA, running on CPU
    }

    // --host-times: the per-node times say they are the host's (no per-node sync on CUDA; the
    // CPU has none anyway), in a note; without the flag no such note.
    void hostTimesSaySo()
    {
        const QString note = "per_node: the host's time for each node (--host-times)";
        auto r = runCli({"run", graphFixture("resnet18_infer"), "--json", "--host-times"});
        QCOMPARE(r.exitCode, 0);
        json j = parse(r);
        QCOMPARE(j["per_node"].size(), std::size_t(91));
        QCOMPARE(j["notes"].size(), std::size_t(2));
        QVERIFY(QString::fromStdString(j["notes"][1].get<std::string>()).startsWith(note));
        r = runCli({"run", graphFixture("resnet18_infer"), "--json"});
        j = parse(r);
        QCOMPARE(j["notes"].size(), std::size_t(1));
        QVERIFY(!QString::fromStdString(j["notes"][0].get<std::string>()).startsWith(note));
    }

    void backwardFromForward()
    {
        auto r = runCli({"run", graphFixture("gpt2_annotated_bw"), "--from-forward",
                         graphFixture("gpt2_annotated_fw"), "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parse(r);
        QCOMPARE(j["ok"].get<bool>(), true);
        // 30 returned values; the second is None (no gradient for the token ids).
        QCOMPARE(j["outputs"].size(), std::size_t(30));
        QCOMPARE(j["outputs"][1]["value"].get<std::string>(), std::string("None"));
        QCOMPARE(j["outputs"][0]["shape"], json::array({1000, 256}));
    }

    void torchScriptModule()
    {
        const QString dir = QStringLiteral(FXSCOPE_TEST_DATA "/torchscript/");
        auto r = runCli({"run", dir + "mlp.pt", "--inputs", dir + "mlp_inputs.pt", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parse(r);
        QCOMPARE(j["outputs"][0]["shape"], json::array({5, 4}));
        // softmax rows: min > 0, max < 1, mean exactly 1/4.
        QVERIFY(std::abs(j["outputs"][0]["mean"].get<double>() - 0.25) < 1e-6);
    }

    void unsupportedGraphExitsNonZero()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("g.txt");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("class GraphModule(torch.nn.Module):\n"
                "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                "        a: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(x)\n"
                "        b: \"f32[4][1]cpu\" = torch.ops.aten.not_a_real_op.default(a)\n"
                "        return (b,)\n");
        f.close();
        auto r = runCli({"run", path, "--json"});
        QCOMPARE(r.exitCode, 1);
        const json j = parse(r);
        QCOMPARE(j["ok"].get<bool>(), false);
        QCOMPARE(j["nodes_run"].get<int>(), 0);
        QCOMPARE(j["unsupported"].size(), std::size_t(1));
        QCOMPARE(j["unsupported"][0]["node"].get<std::string>(), std::string("b"));
        QCOMPARE(j["unsupported"][0]["target"].get<std::string>(),
                 std::string("aten::not_a_real_op.default"));
    }

    void badArguments()
    {
        auto missing = runCli({"run", "/nonexistent/graph.txt", "--json"});
        QCOMPARE(missing.exitCode, 2);
        QCOMPARE(parse(missing)["error"]["code"].get<std::string>(), std::string("io"));
        auto badSize = runCli({"run", graphFixture("resnet18_infer"), "--size", "s0"});
        QCOMPARE(badSize.exitCode, 2);
        QVERIFY(badSize.err.contains("NAME=INTEGER"));
        auto unmatched = runCli({"run", graphFixture("gpt2_annotated_bw"), "--from-forward",
                                 graphFixture("resnet18_infer"), "--json"});
        QCOMPARE(unmatched.exitCode, 1);
        QVERIFY(parse(unmatched)["error"]["message"].get<std::string>().find("primals_2") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliRun)
#include "tst_cli_run.moc"

FXSCOPE_TEST_END
