// torch.export `.pt2` archives through every fxscope-cli command that takes a graph: inspect
// (signature, ranges, higher-order bodies), run with the archive's own weights and sample
// inputs (checked against a forward pass computed independently), dynamic sizes within their
// range, partition, compile and profile; damaged archives fail naming what is wrong.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QtTest>

#include <nlohmann/json.hpp>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

QString recorded(const char* name)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/recorded/export/") + name;
}

QString smallMlp()
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/export/small_mlp.pt2");
}

json parse(const CliRun& r)
{
    return json::parse(r.out.toStdString(), nullptr, false);
}

} // namespace

class TestCliPt2 : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void inspectListsSignatureRangesAndBodies()
    {
        auto r = runCli({"inspect", "--json", recorded("mlp_dynamic.pt2"),
                         recorded("hop_set_grad.pt2")});
        QCOMPARE(r.exitCode, 0);
        const json j = parse(r);
        QVERIFY(j["errors"].empty());
        const json& dyn = j["graphs"][0];
        QCOMPARE(dyn["kind"].get<std::string>(), std::string("graph"));
        QCOMPARE(dyn["nodes"].get<int>(), 10);
        QVERIFY(dyn["subgraphs"].empty());
        const json& ex = dyn["export"];
        QCOMPARE(ex["schema_version"].get<std::string>(), std::string("8.17"));
        QCOMPARE(ex["inputs"].size(), std::size_t(5));
        QCOMPARE(ex["inputs"][0]["kind"].get<std::string>(), std::string("parameter"));
        QCOMPARE(ex["inputs"][0]["target"].get<std::string>(), std::string("fc1.weight"));
        QCOMPARE(ex["inputs"][4]["kind"].get<std::string>(), std::string("user_input"));
        QCOMPARE(ex["outputs"][0]["name"].get<std::string>(), std::string("softmax"));
        QCOMPARE(ex["range_constraints"][0],
                 (json{{"symbol", "s77"}, {"min", 2}, {"max", 64}, {"hint", 8}}));
        const json& hop = j["graphs"][1]["subgraphs"];
        QCOMPARE(hop.size(), std::size_t(1));
        QCOMPARE(hop[0]["name"].get<std::string>(), std::string("submod_1"));
        QCOMPARE(hop[0]["hop"].get<std::string>(), std::string("wrap_with_set_grad_enabled"));
        QCOMPARE(hop[0]["nodes"].get<int>(), 3);
        QCOMPARE(hop[0]["calls"].get<int>(), 1);
    }

    void runUsesTheArchivesWeightsAndSampleInputs()
    {
        auto r = runCli({"run", smallMlp(), "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parse(r);
        QCOMPARE(j["ok"].get<bool>(), true);
        const json& out = j["outputs"][0];
        QCOMPARE(out["shape"], json::array({8, 4}));
        // The same forward pass computed in double precision from the archive's raw weight
        // bytes and sample input by a separate pure-Python script: min 0.140457, max 0.429297.
        QVERIFY(std::abs(out["min"].get<double>() - 0.140457) < 1e-5);
        QVERIFY(std::abs(out["max"].get<double>() - 0.429297) < 1e-5);
        QVERIFY(std::abs(out["mean"].get<double>() - 0.25) < 1e-6);
        QVERIFY(j["notes"].dump().find("sample inputs") != std::string::npos);
    }

    void dynamicSizesStayInTheirRange()
    {
        auto r = runCli({"run", recorded("mlp_dynamic.pt2"), "--size", "s77=16", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parse(r)["outputs"][0]["shape"], json::array({16, 4}));
        r = runCli({"run", recorded("mlp_dynamic.pt2"), "--size", "s77=100"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("s77=100 is outside the range") && r.err.contains("[2, 64]"),
                 r.err.constData());
    }

    void partitionCompileAndProfile()
    {
        QTemporaryDir dir;
        auto r = runCli({"partition", recorded("gpt2_small.pt2"), "--auto", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!parse(r)["regions"].empty());
        const QString cache = dir.filePath("cache.db");
        r = runCli({"compile", smallMlp(), "--auto", "--cache", cache, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json c = parse(r);
        QVERIFY(!c["regions"].empty());
        for (const auto& region : c["regions"]) {
            QVERIFY(region["max_abs_err"].get<double>() < 1e-4);
        }
        r = runCli({"profile", recorded("cnn_bn.pt2"), "--eager-only", "--repeat", "2", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(parse(r)["nodes"].size(), std::size_t(9));
    }

    void damagedArchives()
    {
        QTemporaryDir dir;
        QFile in(smallMlp());
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        const QString cut = dir.filePath("cut.pt2");
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes.left(bytes.size() / 3));
        out.close();
        auto r = runCli({"inspect", cut, "--json"});
        QCOMPARE(r.exitCode, 1);
        const json j = parse(r);
        QCOMPARE(j["errors"].size(), std::size_t(1));
        QVERIFY(j["errors"][0]["message"].get<std::string>().find(
                    "not a readable zip archive") != std::string::npos);
        r = runCli({"run", cut});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not a readable zip archive"), r.err.constData());
        // A weight file renamed (in both zip headers; its config still names weight_3).
        QByteArray renamed = bytes;
        QCOMPARE(renamed.count("data/weights/weight_3"), 2);
        renamed.replace("data/weights/weight_3", "data/weights/weight_X");
        const QString missing = dir.filePath("missing.pt2");
        QFile m(missing);
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write(renamed);
        m.close();
        r = runCli({"inspect", missing, "--json"});
        QCOMPARE(r.exitCode, 0); // the graph is kept
        const json k = parse(r);
        QCOMPARE(k["graphs"].size(), std::size_t(1));
        QCOMPARE(k["errors"].size(), std::size_t(1));
        QVERIFY(k["errors"][0]["where"].get<std::string>().ends_with(
            "!small_mlp/data/weights/weight_3"));
        r = runCli({"run", missing});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("weight file missing"), r.err.constData());
        r = runCli({"run", smallMlp(), "--graph", "0"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--graph applies to TORCH_TRACE input only"));
    }
};

QTEST_GUILESS_MAIN(TestCliPt2)
#include "tst_cli_pt2.moc"

FXSCOPE_TEST_END
