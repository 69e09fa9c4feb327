// fxscope-cli inspect end to end: JSON contract on the fixtures, human output, exit codes.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <set>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

QString fixture(const QString& relative)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/") + relative;
}

QString traceFile(const char* run)
{
    const QDir dir(fixture(QStringLiteral("traces/") + run));
    return dir.filePath(dir.entryList({"*.log"}, QDir::Files).value(0));
}

const json* findGraph(const json& graphs, const std::string& kind)
{
    for (const auto& g : graphs) {
        if (g.at("kind") == kind) {
            return &g;
        }
    }
    return nullptr;
}

} // namespace

class TestCliInspect : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonContract()
    {
        const QString log = traceFile("basic_cold");
        const QString graphFile = fixture("graphs/gpt2_export.txt");
        const auto r = runCli({"inspect", log, graphFile, "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.size(), std::size_t(6));
        QVERIFY(j.at("errors").empty());
        QCOMPARE(j.at("problems"), json({{"errors", 0}, {"warnings", 0}}));
        QVERIFY(j.at("links").empty());
        // describe_storage is read (into the described inputs) and listed nowhere as unknown.
        QCOMPARE(j.at("unknown_kinds"), json::object());
        const json& graphs = j.at("graphs");
        QCOMPARE(graphs.size(), std::size_t(11)); // 10 in the log + 1 file

        // aot_forward_graph at line 1189, counted by hand: 2 placeholders, 7 aten calls, output.
        const json* fw = findGraph(graphs, "aot_forward_graph");
        QVERIFY(fw);
        QCOMPARE(fw->at("source").get<std::string>(), log.toStdString());
        QCOMPARE(fw->at("compile_id").get<std::string>(), std::string("0/0"));
        QCOMPARE(fw->at("nodes").get<int>(), 10);
        QCOMPARE(fw->at("call_function_nodes").get<int>(), 7);
        QCOMPARE(fw->at("placeholders").get<int>(), 2);
        QCOMPARE(fw->at("outputs").get<int>(), 1);
        const json& ops = fw->at("ops");
        QCOMPARE(ops.size(), std::size_t(6));
        QCOMPARE(ops.at("aten::permute.default").get<int>(), 2);
        QCOMPARE(ops.at("aten::mm.default").get<int>(), 1);
        QCOMPARE(ops.at("aten::le.Scalar").get<int>(), 1);

        const json& file = graphs.back();
        QCOMPARE(file.at("kind").get<std::string>(), std::string("graph"));
        QVERIFY(file.at("compile_id").is_null());
        QCOMPARE(file.at("source").get<std::string>(), graphFile.toStdString());
        QCOMPARE(file.at("outputs").get<int>(), 1);
        QVERIFY(file.at("call_function_nodes").get<int>() > 0);

        const json& events = j.at("cache_events");
        QCOMPARE(events.size(), std::size_t(3));
        QCOMPARE(events[0].at("cache").get<std::string>(), std::string("aotautograd"));
        QCOMPARE(events[0].at("state").get<std::string>(), std::string("miss"));
        QCOMPARE(events[0].at("key").get<std::string>(),
                 std::string("avddz3w5f2geiueawjvndebxkxjym6xzd3menaq5e74jy3j7fwen"));
        QCOMPARE(events[0].at("components").get<int>(), 538);
        QCOMPARE(events[0].at("compile_id").get<std::string>(), std::string("0/0"));
        QVERIFY(events[0].at("reason").is_null());
        QCOMPARE(events[1].at("cache").get<std::string>(), std::string("fx_graph"));
        QCOMPARE(events[2].at("components").get<int>(), 542);
    }

    void unknownKindsAndLinks()
    {
        const auto r = runCli({"inspect", "--json",
                               QStringLiteral(FXSCOPE_TEST_DATA "/trace_classes/other_kinds.log")});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("unknown_kinds"),
                 json({{"create_unbacked_symbol", 1}, {"expression_created", 2}}));
        QCOMPARE(j.at("links"),
                 json::array({{{"name", "manifold_url"}, {"url", "https://example.com/trace"}}}));
    }

    void bypassAndDisabled()
    {
        const auto r = runCli({"inspect", "--json", fixture("traces/autograd_fn_cold"),
                               fixture("traces/regional_cold")});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        const json& events = j.at("cache_events");
        QCOMPARE(events.size(), std::size_t(7)); // 3 + 4
        QCOMPARE(events[0].at("state").get<std::string>(), std::string("bypass"));
        QVERIFY(events[0].at("key").is_null());
        QCOMPARE(events[0].at("components").get<int>(), 0);
        QVERIFY(events[0].at("reason").get<std::string>().rfind(
                    "Unsupported call_function target autograd_function_apply.", 0) == 0);
        int disabled = 0;
        for (const auto& e : events) {
            disabled += e.at("state") == "disabled" ? 1 : 0;
        }
        QCOMPARE(disabled, 2);
    }

    void humanOutput()
    {
        const auto r = runCli({"inspect", traceFile("basic_warm")});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.startsWith("run "));
        QVERIFY(out.contains("aot_backward_graph"));
        QCOMPARE(out.count(QRegularExpression(" hit ")), 3);
        QVERIFY(r.err.isEmpty());
    }

    void partialInputReportsErrors()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile in(traceFile("basic_warm"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray data = in.readAll();
        data += "garbage line\n";
        const QString path = dir.filePath("partial.log");
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(data);
        out.close();
        const auto r = runCli({"inspect", "--json", path});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("errors").size(), std::size_t(1));
        // basic_warm has 2575 lines; the garbage is line 2576.
        QCOMPARE(j.at("errors")[0].at("where").get<std::string>(),
                 path.toStdString() + ":2576");
        QCOMPARE(j.at("cache_events").size(), std::size_t(3));
    }

    // The round-2 recordings are kept gzip'd: inspect inflates them as it reads.
    void readsGzipRecordings()
    {
        const QString recorded = QStringLiteral(FXSCOPE_TEST_DATA "/recorded/");
        const auto r = runCli({"inspect", "--json", recorded + "traces/recompile.log.gz",
                               recorded + "graphs/resnet18_train_graph0.txt.gz"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QVERIFY2(j.at("errors").empty(), j.at("errors").dump().c_str());
        // recompile.log: the function compiled twice (0/0, then 0/1 after a guard failure).
        std::set<std::string> ids;
        std::size_t fromGraphFile = 0;
        for (const auto& g : j.at("graphs")) {
            if (g.at("source").get<std::string>().find("resnet18") != std::string::npos) {
                ++fromGraphFile;
                QVERIFY(g.at("nodes").get<int>() > 100);
            } else if (!g.at("compile_id").is_null()) {
                ids.insert(g.at("compile_id").get<std::string>());
            }
        }
        QCOMPARE(fromGraphFile, std::size_t(1));
        QVERIFY(ids.count("0/0") == 1 && ids.count("0/1") == 1);
    }

    // A FIFO with no writer, a directory given as a file, a device: refused at once by name.
    void refusesSpecialFiles()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("pipe.log");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const auto r = runCli({"inspect", "--json", fifo, "/dev/null"}, 60000);
        QCOMPARE(r.exitCode, 1); // not -1: it neither hung nor crashed
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("errors").size(), std::size_t(2));
        QVERIFY(j.at("errors")[0].at("message").get<std::string>().find("named pipe") !=
                std::string::npos);
        QVERIFY(j.at("errors")[1].at("message").get<std::string>().find("character device") !=
                std::string::npos);
    }

    void nothingReadable()
    {
        const auto r = runCli({"inspect", "/nonexistent/fxscope.log"});
        QVERIFY(r.exitCode != 0);
        QVERIFY(r.exitCode != -1);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.err.endsWith('\n'));
        QVERIFY(r.err.contains("/nonexistent/fxscope.log"));

        const auto j = runCli({"inspect", "--json", "/nonexistent/fxscope.log"});
        QVERIFY(j.exitCode != 0);
        const json parsed = json::parse(j.out.toStdString());
        QCOMPARE(parsed.at("errors").size(), std::size_t(1));
        QVERIFY(parsed.at("graphs").empty());
    }
};

QTEST_GUILESS_MAIN(TestCliInspect)
#include "tst_cli_inspect.moc"

FXSCOPE_TEST_END
