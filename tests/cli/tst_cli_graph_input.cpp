// The graph inputs every single-graph command takes (app/cli/graph_input.h), end to end:
// `inspect` on TorchScript .pt files, `partition --auto` on a .pt, and `run`/`partition`/
// `profile` on one graph of a TORCH_TRACE fixture picked with --graph (index or
// COMPILE_ID:KIND[#N]), plus the errors of a missing or wrong selector.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"
#include "tests/unit/torchscript/nested_code_archive.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <map>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

const QString kTorchScript = QStringLiteral(FXSCOPE_TEST_DATA "/torchscript/");
// basic_cold: `(x.sin() @ y).relu() * 2`; its graphs in log order (inspect lists the same):
// 0 dynamo_output_graph ... 4 aot_forward_graph, 5 aot_backward_graph, 6 and 8
// before_post_grad_graph (forward, backward).
const QString kTrace = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold");

json parse(const CliRun& r)
{
    return json::parse(r.out.toStdString(), nullptr, false);
}

std::vector<std::string> outputNames(const json& run)
{
    std::vector<std::string> names;
    for (const auto& o : run.at("outputs")) {
        names.push_back(o.at("name").get<std::string>());
    }
    return names;
}

} // namespace

class TestCliGraphInput : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void inspectListsTorchScriptGraphs()
    {
        auto r = runCli({"inspect", kTorchScript + "mlp.pt", kTorchScript + "conv_block.pt",
                         "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parse(r);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("errors").empty());
        QCOMPARE(j.at("graphs").size(), std::size_t(2));
        const json& mlp = j.at("graphs")[0];
        QCOMPARE(mlp.at("kind").get<std::string>(), std::string("graph"));
        QVERIFY(mlp.at("source").get<std::string>().find("mlp.pt") != std::string::npos);
        // x; 4 parameters; linear, gelu, linear, softmax; output.
        QCOMPARE(mlp.at("nodes").get<int>(), 10);
        QCOMPARE(mlp.at("call_function_nodes").get<int>(), 4);
        QCOMPARE(mlp.at("placeholders").get<int>(), 1);
        QCOMPARE(mlp.at("ops"), json::parse(R"({"aten::gelu.default": 1,
            "aten::linear.default": 2, "aten::softmax.int": 1})"));
        // conv_block: _convolution, batch_norm, relu, adaptive_avg_pool2d, flatten, max.dim
        // + 2 getitems.
        QCOMPARE(j.at("graphs")[1].at("call_function_nodes").get<int>(), 8);
    }

    void inspectReportsBrokenTorchScript()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.pt"));
        QFile in(kTorchScript + "mlp.pt");
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(in.read(3000)); // truncated: the zip's central directory is gone
        out.close();
        auto r = runCli({"inspect", path, "--json"});
        QCOMPARE(r.exitCode, 1);
        const json j = parse(r);
        QCOMPARE(j.at("errors").size(), std::size_t(1));
        QCOMPARE(j.at("errors")[0].at("where").get<std::string>(), path.toStdString());
        QVERIFY(j.at("errors")[0].at("message").get<std::string>().find("TorchScript") !=
                std::string::npos);
        // LibTorch's message quotes a non-UTF-8 byte of bad_token.pt: still valid JSON.
        auto badByte = runCli({"inspect", kTorchScript + "bad_token.pt", "--json"});
        QCOMPARE(badByte.exitCode, 1);
        QVERIFY(!parse(badByte).is_discarded());
        auto scripted = runCli({"inspect", kTorchScript + "scripted_branch.pt", "--json"});
        QCOMPARE(scripted.exitCode, 0); // the straight-line part is read, the `if` reported
        QVERIFY(parse(scripted).at("errors")[0].at("message").get<std::string>().find(
                    "control flow") != std::string::npos);
    }

    // Issue 18 point 2: deeply nested code overflowed LibTorch's parser's stack (SIGSEGV);
    // now it is the input error (exit 1) naming the archive entry and line.
    void inspectRefusesDeeplyNestedTorchScript()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("nested.pt")).toStdString();
        const std::string mlp = (kTorchScript + "mlp.pt").toStdString();
        QCOMPARE(fxs::test::writeNestedReturn(mlp, path, "/code/__torch__.py", "_0",
                                              fxs::test::kCrashingDepth),
                 std::string("mlp/code/__torch__.py"));
        auto r = runCli({"inspect", QString::fromStdString(path), "--json"});
        QCOMPARE(r.exitCode, 1);
        const json j = parse(r);
        QVERIFY2(!j.is_discarded(), r.out.constData());
        QCOMPARE(j.at("errors").size(), std::size_t(1));
        const json& e = j.at("errors")[0];
        QCOMPARE(e.at("where").get<std::string>(), path);
        QVERIFY2(e.at("message").get<std::string>().find(
                     "brackets nest 50000 deep (more than 256) at mlp/code/__torch__.py:14") == 0,
                 r.out.constData());
    }

    void runRefusesScriptedControlFlow()
    {
        // The importer reads past prim::If; running what it read would be wrong: exit 2.
        auto r = runCli({"run", kTorchScript + "scripted_branch.pt", "--json"});
        QCOMPARE(r.exitCode, 2);
        const json e = parse(r).at("error");
        QCOMPARE(e.at("found").get<std::string>(), std::string("prim::If"));
        QVERIFY(e.at("where").get<std::string>().find("scripted_branch.pt") != std::string::npos);
    }

    void partitionAutoOnTorchScript()
    {
        auto r = runCli({"partition", kTorchScript + "conv_block.pt", "--auto", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parse(r);
        QCOMPARE(j.at("mode").get<std::string>(), std::string("auto"));
        // The code generator lowers relu only: convolution, batch_norm, pooling, flatten and
        // max.dim (a reduction with indices) are not lowered, so relu stands alone and no
        // region is worth compiling.
        QCOMPARE(j.at("regions").size(), std::size_t(0));
        std::map<std::string, std::string> code;
        for (const json& e : j.at("excluded")) {
            code[e.at("node").get<std::string>()] = e.at("code").get<std::string>();
        }
        QCOMPARE(code.at("input_1"), std::string("nothing_to_fuse")); // the relu
        QCOMPARE(code.at("max"), std::string("unsupported_op"));
        // max.dim's outputs are unnamed in TorchScript: its getitems are max_0 and max_1.
        QCOMPARE(code.at("max_0"), std::string("tuple_outside"));
        QCOMPARE(code.at("max_1"), std::string("tuple_outside"));
        // Every non-placeholder node is accounted for as excluded: 16 - x - output.
        QCOMPARE(j.at("excluded").size(), std::size_t(14));
    }

    void runPicksATraceGraph()
    {
        auto byKind = runCli({"run", kTrace, "--graph", "0/0:aot_forward_graph", "--json"});
        QCOMPARE(byKind.exitCode, 0);
        const json j = parse(byKind);
        QCOMPARE(j.at("ok").get<bool>(), true);
        // aot_forward_graph payload: sin, mm, relu, mul, le, permute, permute_1.
        QCOMPARE(j.at("nodes_run").get<int>(), 7);
        QCOMPARE(outputNames(j), (std::vector<std::string>{"mul", "primals_1", "le", "permute",
                                                            "permute_1"}));
        QCOMPARE(j.at("outputs")[0].at("shape"), json::array({64, 64}));
        QVERIFY(j.at("outputs")[0].at("min").get<double>() >= 0.0); // relu(...) * 2
        QCOMPARE(j.at("outputs")[2].at("dtype").get<std::string>(), std::string("bool"));
        // The same graph by its index in inspect's list.
        auto byIndex = runCli({"run", kTrace, "--graph", "4", "--json"});
        QCOMPARE(byIndex.exitCode, 0);
        QCOMPARE(outputNames(parse(byIndex)), outputNames(j));
        // The second before_post_grad_graph of 0/0 is the backward one (5 placeholders).
        auto second = runCli({"partition", kTrace, "--graph", "0/0:before_post_grad_graph#1",
                              "--auto", "--json"});
        QCOMPARE(second.exitCode, 0);
        QVERIFY(parse(second).at("graph").get<std::string>().find("basic_cold") !=
                std::string::npos);
    }

    void backwardFromForwardInOneTrace()
    {
        auto r = runCli({"run", kTrace, "--graph", "0/0:aot_backward_graph", "--from-forward",
                         kTrace, "--forward-graph", "0/0:aot_forward_graph", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parse(r);
        QCOMPARE(j.at("ok").get<bool>(), true);
        // Gradients of x and y, both 64x64.
        QCOMPARE(j.at("outputs").size(), std::size_t(2));
        QCOMPARE(j.at("outputs")[1].at("shape"), json::array({64, 64}));
    }

    void profileTakesATraceGraph()
    {
        auto r = runCli({"profile", kTrace, "--graph", "0/0:aot_forward_graph", "--eager-only",
                         "--repeat", "1", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!parse(r).is_discarded());
    }

    // Graph inputs and project files: gzip'd graphs read as plain ones; directories, FIFOs and
    // devices refused at once with what they are (a FIFO never blocks the command).
    void gzipAndSpecialFiles()
    {
        const QString resnet = QStringLiteral(FXSCOPE_TEST_DATA "/recorded/graphs/"
                                              "resnet18_train_graph0.txt.gz");
        auto r = runCli({"partition", resnet, "--auto", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!parse(r).at("regions").empty());

        QTemporaryDir dir;
        const QString fifo = dir.filePath("graph.txt");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        r = runCli({"run", fifo, "--json"}, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(parse(r).at("error").at("message").get<std::string>().find("named pipe") !=
                std::string::npos);
        r = runCli({"partition", resnet, "--project", dir.path()}, 60000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("it is a directory"), r.err.constData());
        r = runCli({"partition", resnet, "--project", fifo}, 60000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("named pipe"), r.err.constData());
        r = runCli({"profile", "/dev/zero"}, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("/dev/zero: not a regular file: it is a character device"),
                 r.err.constData());
    }

    void selectorErrors()
    {
        auto none = runCli({"run", kTrace, "--json"});
        QCOMPARE(none.exitCode, 2);
        const json e = parse(none).at("error");
        QCOMPARE(e.at("code").get<std::string>(), std::string("invalid"));
        QVERIFY(e.at("expected").get<std::string>().find("0/0:aot_forward_graph") !=
                std::string::npos);
        QCOMPARE(runCli({"run", kTrace, "--graph", "10"}).exitCode, 2); // 10 graphs: 0..9
        QCOMPARE(runCli({"run", kTrace, "--graph", "0/0:before_post_grad_graph#2"}).exitCode, 2);
        QCOMPARE(runCli({"run", kTrace, "--graph", "1/0:aot_forward_graph"}).exitCode, 2);
        const QString graphCode = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/"
                                                 "resnet18_infer.txt");
        auto notATrace = runCli({"partition", graphCode, "--graph", "0"});
        QCOMPARE(notATrace.exitCode, 1);
        QVERIFY(notATrace.err.contains("TORCH_TRACE input only"));
    }
};

QTEST_GUILESS_MAIN(TestCliGraphInput)
#include "tst_cli_graph_input.moc"

FXSCOPE_TEST_END
