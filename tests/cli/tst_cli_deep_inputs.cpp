// fxscope-cli on inputs that overflowed a reader's stack, trapped or failed with a bare message
// (issue 31), each made at test time: JSON nested 100,000 deep in a .fxscope project, a .pt2
// program and a TORCH_TRACE metrics record; size expressions in graph code that divide
// INT64_MIN by -1, nest 100,000 parentheses or hold a literal past int64; TorchScript code
// with a 20,000-long `- - -` chain and a data.pkl nested 200,000 deep. Each ends with a clear
// error and a normal exit, never a signal.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"
#include "tests/unit/torchscript/nested_code_archive.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

constexpr int kDeep = 100000;

std::string deepArray(int depth = kDeep)
{
    return std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']');
}

QString write(const QTemporaryDir& dir, const QString& name, const std::string& text)
{
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString(), std::ios::binary) << text;
    return path;
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Ended by itself (no signal, no timeout) with one of the CLI's error codes.
bool endedWithAnError(const CliRun& r)
{
    return r.exitCode >= 1 && r.exitCode <= 3;
}

bool says(const CliRun& r, const char* text)
{
    return r.out.contains(text) || r.err.contains(text);
}

QString report(const CliRun& r)
{
    return QStringLiteral("exit %1\nstdout: %2\nstderr: %3")
        .arg(r.exitCode)
        .arg(QString::fromUtf8(r.out.left(600)), QString::fromUtf8(r.err.left(600)));
}

// A graph whose one input has `dims` as its sizes; it runs one relu.
std::string graphWithInputSizes(const std::string& dims)
{
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, x: \"f32[" + dims + "]\"):\n"
           "        relu: \"f32[4]\" = torch.ops.aten.relu.default(x);  x = None\n"
           "        return (relu,)\n";
}

} // namespace

class TestCliDeepInputs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void deepJsonInAProject()
    {
        // view_state was copied (recursively) by the project reader: SIGSEGV.
        QTemporaryDir dir;
        const QString graph =
            QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/resnet18_infer.txt");
        const QString project = write(dir, "deep.fxscope",
                                      "{\"schema\": 1, \"kind\": \"fxscope-project\", "
                                      "\"regions\": [], \"view_state\": {\"a\": " +
                                          deepArray() + "}}");
        const auto r = runCli({"partition", graph, "--project", project, "--json"});
        QVERIFY2(endedWithAnError(r), qPrintable(report(r)));
        QVERIFY2(says(r, "JSON nested deeper than 200 levels at byte 274"), qPrintable(report(r)));
    }

    void deepJsonInAPt2Program()
    {
        // A node argument of an unknown kind was dumped (recursively) into the graph: SIGSEGV.
        QTemporaryDir dir;
        const std::string path = dir.filePath("deep.pt2").toStdString();
        const std::string entry = fxs::test::writeEditedEntry(
            FXSCOPE_TEST_DATA "/fixtures/export/small_mlp.pt2", path, "/models/model.json",
            [](std::string& program) {
                // A node's argument (the graph's own input list is not read that way).
                const std::string arg = "\"arg\": {\"as_tensor\": {\"name\": \"p_fc1_bias\"}}";
                const std::string deep = "\"arg\": {\"as_weird\": " + deepArray() + "}";
                const auto at = program.find(arg);
                return at != std::string::npos && program.replace(at, arg.size(), deep).size() > 0;
            });
        QCOMPARE(entry, std::string("small_mlp/models/model.json"));
        const auto r = runCli({"inspect", QString::fromStdString(path), "--json"});
        QVERIFY2(r.exitCode >= 0 && r.exitCode <= 3, qPrintable(report(r)));
        QVERIFY2(says(r, "JSON nested deeper than 200 levels at byte"), qPrintable(report(r)));
    }

    void deepJsonInATraceMetricsRecord()
    {
        // compile-profile put the metrics record's JSON into its output: copied and dumped
        // (recursively): SIGSEGV. Now the record is kept as text.
        QTemporaryDir dir;
        std::string log = slurp(FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold/"
                                                  "dedicated_log_torch_trace_octthcir.log");
        const auto metrics = log.find("{\"compilation_metrics\"");
        QVERIFY(metrics != std::string::npos);
        const auto null = log.find("\"fail_reason\": null", metrics);
        QVERIFY(null != std::string::npos);
        log.replace(null, 19, "\"fail_reason\": " + deepArray());
        const QString trace = write(dir, "deep.log", log);
        for (const char* command : {"compile-profile", "diagnose"}) {
            const auto r = runCli({command, trace, "--json"});
            QVERIFY2(r.exitCode >= 0 && r.exitCode <= 3, qPrintable(report(r)));
            QVERIFY2(!json::parse(r.out.toStdString(), nullptr, false).is_discarded(),
                     qPrintable(report(r)));
        }
    }

    void sizeExpressionsInGraphCode_data()
    {
        QTest::addColumn<QString>("dims");
        QTest::addColumn<QString>("error");
        // INT64_MIN // -1 trapped (SIGFPE); 100,000 parentheses overflowed the evaluator's
        // stack; a literal past int64 failed with the bare message "stoll".
        QTest::newRow("min // -1")
            << "(-9223372036854775807 - 1) // -1"
            << "size expression overflows int64 at `-9223372036854775808 // -1`";
        QTest::newRow("parentheses")
            << QString::fromStdString(std::string(kDeep, '(') + "4" + std::string(kDeep, ')'))
            << "size expression nested deeper than 200 levels";
        QTest::newRow("huge literal")
            << "99999999999999999999 + 1"
            << "integer literal 99999999999999999999 out of range (int64)";
        QTest::newRow("modulo by zero") << "4 % (2 - 2)" << "division by zero at `4 % 0`";
    }
    void sizeExpressionsInGraphCode()
    {
        QFETCH(QString, dims);
        QFETCH(QString, error);
        QTemporaryDir dir;
        const QString graph = write(dir, "g.txt", graphWithInputSizes(dims.toStdString()));
        const auto r = runCli({"run", graph, "--json"});
        QVERIFY2(endedWithAnError(r), qPrintable(report(r)));
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY2(j.contains("error"), qPrintable(report(r)));
        QCOMPARE(QString::fromStdString(j["error"]["message"].get<std::string>()), error);
        QCOMPARE(j["error"]["where"].get<std::string>(), std::string("x (line 2)"));
    }

    void sizeArgumentPastInt64()
    {
        const auto r = runCli({"run", QStringLiteral(FXSCOPE_TEST_DATA
                                                     "/fixtures/graphs/resnet18_infer.txt"),
                               "--size", "s0=99999999999999999999"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bad --size: integer literal 99999999999999999999 out of range"),
                 qPrintable(report(r)));
    }

    void torchScriptUnaryChain()
    {
        // 20,000 `- ` in a forward: LibTorch's parser recursed once per sign (SIGSEGV).
        QTemporaryDir dir;
        const std::string path = dir.filePath("chain.pt").toStdString();
        std::string chain;
        for (int i = 0; i < 20000; ++i) {
            chain += "- ";
        }
        const std::string entry = fxs::test::writeEditedEntry(
            FXSCOPE_TEST_DATA "/torchscript/mlp.pt", path, "/code/__torch__.py",
            [&](std::string& code) {
                const auto at = code.find("return _0");
                return at != std::string::npos && code.replace(at, 9, "return " + chain + "_0")
                                                          .size() > 0;
            });
        QCOMPARE(entry, std::string("mlp/code/__torch__.py"));
        const auto r = runCli({"inspect", QString::fromStdString(path), "--json"});
        QVERIFY2(endedWithAnError(r), qPrintable(report(r)));
        QVERIFY2(says(r, "operators chain 20000 deep (more than 512) at mlp/code/__torch__.py:14"),
                 qPrintable(report(r)));
    }

    void torchScriptDeepPickle()
    {
        // data.pkl as 200,000 tuples inside each other.
        QTemporaryDir dir;
        const std::string path = dir.filePath("deep.pt").toStdString();
        const std::string entry = fxs::test::writeEditedEntry(
            FXSCOPE_TEST_DATA "/torchscript/mlp.pt", path, "/data.pkl", [](std::string& pkl) {
                pkl = "\x80\x02)" + std::string(200000, '\x85') + ".";
                return true;
            });
        QCOMPARE(entry, std::string("mlp/data.pkl"));
        const auto r = runCli({"inspect", QString::fromStdString(path), "--json"});
        QVERIFY2(endedWithAnError(r), qPrintable(report(r)));
        QVERIFY2(says(r, "starts values nested 200001 deep (more than 1000)"),
                 qPrintable(report(r)));
    }
};

QTEST_GUILESS_MAIN(TestCliDeepInputs)
#include "tst_cli_deep_inputs.moc"

FXSCOPE_TEST_END
