// Every fxscope-cli JSON output stays valid UTF-8 when strings carry invalid bytes: node names,
// targets, annotation values and stack paths read from a graph, file paths given on the command
// line, and bytes of a binary file quoted in an error. Before one writer replaced them, a single
// bad byte aborted run, partition, explain, render, structure and cache (SIGABRT, issue 18
// point 1).
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using Args = std::vector<std::string>;

const std::string kBad = "\xff";         // never valid in UTF-8
const std::string kFffd = "\xef\xbf\xbd"; // U+FFFD, what a writer puts in its place

struct Run {
    bool normalExit = false;
    int exitCode = -1;
    std::string out;
    std::string err;
};

// Runs fxscope-cli with arguments that are raw bytes (QProcess arguments are QStrings, which
// cannot carry invalid UTF-8): the NUL-separated arguments go through a file read by bash.
Run runBytes(const std::string& dir, const std::vector<std::string>& args)
{
    const std::string argFile = dir + "/args.bin";
    std::ofstream f(argFile, std::ios::binary);
    for (const auto& a : args) {
        f << a << '\0';
    }
    f.close();
    QProcess p;
    p.start(QStringLiteral("/bin/bash"),
            {QStringLiteral("-c"), QStringLiteral("mapfile -d '' a < \"$0\"; exec \"$1\" \"${a[@]}\""),
             QString::fromStdString(argFile), QStringLiteral(FXSCOPE_CLI_PATH)});
    Run r;
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.normalExit = p.exitStatus() == QProcess::NormalExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    return r;
}

void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

// Strict parse: nlohmann rejects invalid UTF-8, so a value here means the text is valid.
json strictJson(const std::string& text)
{
    return json::parse(text, nullptr, false);
}

std::string readAll(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A graph whose node name, annotation value, stack file and function carry a bad byte; its
// target is valid so that run, compile and profile get past loading.
std::string badNamesGraph()
{
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, x: \"f32[4, 4][4, 1]cpu\"):\n"
           "        # Annotation: {'compile_with_inductor': 'r" + kBad + "'} File: /src/m" + kBad +
           ".py:5 in f" + kBad + ", code: a = torch.sin(x)\n"
           "        sin" + kBad + ": \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.sin.default(x)\n"
           "        return (sin" + kBad + ",)\n";
}

// A graph whose target carries a bad byte: run lists it as unsupported.
std::string badTargetGraph()
{
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, x: \"f32[4, 4][4, 1]cpu\"):\n"
           "        co" + kBad + ": \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.co" + kBad +
           "s.default(x)\n"
           "        return (co" + kBad + ",)\n";
}

bool has(const json& v, const std::string& text)
{
    return v.is_string() && v.get<std::string>() == text;
}

} // namespace

// Runs ARGS, checks it ended normally with CODE and printed strict JSON, names it VAR.
#define JSON_OF(var, args, code)                                                              \
    const Run var##Run = runBytes(m_tmp.path().toStdString(), args);                          \
    QVERIFY2(var##Run.normalExit, var##Run.err.c_str());                                      \
    QVERIFY2(var##Run.exitCode == (code), var##Run.err.c_str());                              \
    const json var = strictJson(var##Run.out);                                                \
    QVERIFY2(!var.is_discarded(), ("not valid UTF-8 JSON: " + var##Run.out).c_str())

class TestCliJsonUtf8 : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string m_dir;   // a directory whose name holds a bad byte
    std::string m_graph; // badNamesGraph() in m_dir, its file name with a bad byte too
    std::string m_trace; // a TORCH_TRACE fixture copied into m_dir

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_dir = m_tmp.path().toStdString() + "/d" + kBad;
        QCOMPARE(::mkdir(m_dir.c_str(), 0700), 0);
        m_graph = m_dir + "/g" + kBad + ".txt";
        writeFile(m_graph, badNamesGraph());
        m_trace = m_dir + "/t" + kBad + ".log";
        const QString trace = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold");
        const QString log = QDir(trace).entryList({QStringLiteral("*.log")}).value(0);
        QVERIFY(!log.isEmpty());
        writeFile(m_trace, readAll((trace + "/" + log).toStdString()));
    }

    void cleanupTestCase()
    {
        std::filesystem::remove_all(m_dir); // QTemporaryDir cannot remove a name it cannot decode
    }

    void inspectKeepsPathsAndTargets()
    {
        JSON_OF(j, (Args{"inspect", "--json", m_graph, m_trace}), 0);
        const std::string dir = m_tmp.path().toStdString() + "/d" + kFffd;
        int graphs = 0;
        int traceGraphs = 0;
        for (const auto& g : j["graphs"]) {
            graphs += has(g["source"], dir + "/g" + kFffd + ".txt");
            traceGraphs += has(g["source"], dir + "/t" + kFffd + ".log");
        }
        QCOMPARE(graphs, 1);
        QVERIFY(traceGraphs > 0);
        const std::string bin = m_dir + "/u16.txt";
        writeFile(bin, std::string("\xff\xfeg\0r\0a\0\xc3(", 11));
        JSON_OF(e, (Args{"inspect", "--json", bin}), 1);
        QVERIFY(e["errors"][0]["message"].get<std::string>().find(kFffd) != std::string::npos);
    }

    void runReportsNamesTargetsAndErrors()
    {
        JSON_OF(j, (Args{"run", "--json", m_graph}), 0);
        QVERIFY(has(j["per_node"][0]["name"], "sin" + kFffd));
        QVERIFY(has(j["outputs"][0]["name"], "sin" + kFffd));
        const std::string bad = m_dir + "/target.txt";
        writeFile(bad, badTargetGraph());
        JSON_OF(u, (Args{"run", "--json", bad}), 1);
        QVERIFY(has(u["unsupported"][0]["node"], "co" + kFffd));
        QVERIFY(has(u["unsupported"][0]["target"], "aten::co" + kFffd + "s.default"));
        const std::string bin = m_dir + "/u16.txt";
        writeFile(bin, std::string("\xff\xfeg\0r\0a\0\xc3(", 11));
        JSON_OF(e, (Args{"run", "--json", bin}), 2);
        QVERIFY(e["error"]["found"].get<std::string>().find(kFffd) != std::string::npos);
        QVERIFY(e["error"]["where"].get<std::string>().find("d" + kFffd) != std::string::npos);
    }

    void partitionWritesValidPlanAndProject()
    {
        const std::string plan = m_dir + "/plan" + kBad + ".json";
        const std::string project = m_dir + "/p" + kBad + ".fxscope";
        JSON_OF(j, (Args{"partition", m_graph, "--json", "--plan", plan, "--save-project", project}),
                0);
        QVERIFY(has(j["regions"][0]["nodes"][0], "sin" + kFffd));
        QVERIFY(has(j["regions"][0]["annotation"]["compile_with_inductor"], "r" + kFffd));
        QVERIFY(j["graph"].get<std::string>().find("d" + kFffd) != std::string::npos);
        QVERIFY2(!strictJson(readAll(plan)).is_discarded(), readAll(plan).c_str());
        QVERIFY2(!strictJson(readAll(project)).is_discarded(), readAll(project).c_str());
        const Run again =
            runBytes(m_tmp.path().toStdString(), {"partition", m_graph, "--json", "--project", project});
        QVERIFY2(again.normalExit, again.err.c_str());
        QVERIFY(!strictJson(again.out).is_discarded());
    }

    void compileProfileAndCacheStayValid()
    {
        // The cache gets a folder of its own (it refuses a folder holding other files).
        const std::string db = m_dir + "/cache" + kBad + "/c" + kBad + ".db";
        JSON_OF(compiled, (Args{"compile", m_graph, "--json", "--cache", db, "--repeat", "1"}), 0);
        JSON_OF(ls, (Args{"cache", "--cache", db, "ls"}), 0);
        QCOMPARE(ls["path"].get<std::string>(), m_tmp.path().toStdString() + "/d" + kFffd + "/cache" +
                                                    kFffd + "/c" + kFffd + ".db");
        const std::string saved = m_dir + "/prof" + kBad + ".json";
        JSON_OF(p, (Args{"profile", m_graph, "--json", "--repeat", "1", "--save", saved}), 0);
        QVERIFY(p.dump(-1, ' ', false, json::error_handler_t::strict).find("sin" + kFffd) !=
                std::string::npos);
        QVERIFY2(!strictJson(readAll(saved)).is_discarded(), readAll(saved).c_str());
    }

    void explainAndCompileProfileKeepPaths()
    {
        JSON_OF(one, (Args{"explain", "--json", m_trace}), 0);
        QVERIFY(one["run_a"].get<std::string>().find("t" + kFffd) != std::string::npos);
        JSON_OF(twoRuns, (Args{"explain", "--json", m_trace, m_trace}), 0);
        const std::string chrome = m_dir + "/chrome" + kBad + ".json";
        JSON_OF(compileProfile,
                (Args{"compile-profile", "--json", m_trace, "--trace", chrome}), 0);
        QVERIFY(!strictJson(readAll(chrome)).is_discarded());
    }

    void diagnoseAndStructureStayValid()
    {
        JSON_OF(diagnosis, (Args{"diagnose", "--json", m_trace}), 0);
        JSON_OF(tree, (Args{"structure", "--json", m_graph}), 0);
        QVERIFY(tree["graph"]["source"].get<std::string>().find("d" + kFffd) !=
                std::string::npos);
    }

    void renderSummaryKeepsPath()
    {
        const std::string svg = m_dir + "/o" + kBad + ".svg";
        JSON_OF(j, (Args{"render", m_graph, "--out", svg}), 0);
        QVERIFY(j.dump(-1, ' ', false, json::error_handler_t::strict).find("d" + kFffd) !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliJsonUtf8)
#include "tests/test_file.h"
#include "tst_cli_json_utf8.moc"

FXSCOPE_TEST_END
