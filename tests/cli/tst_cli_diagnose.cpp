// fxscope-cli diagnose end to end: the JSON contract of README on the recorded runs (values
// read by hand from the logs: see tests/unit/diagnose/tst_diagnosis.cpp), gzip'd logs and a
// directory of per-rank logs as RUN, the human output, and the exit code and one-line error
// for a run that cannot be read.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <nlohmann/json.hpp>

#include <QtTest>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::runCli;

const QString kRecorded = QStringLiteral(FXSCOPE_TEST_DATA "/recorded/traces/");
const QString kClasses = QStringLiteral(FXSCOPE_TEST_DATA "/trace_classes/");

json diagnoseJson(const QStringList& runs)
{
    const auto r = runCli(QStringList{"diagnose"} + runs + QStringList{"--json"});
    if (r.exitCode != 0) {
        qFatal("diagnose failed (%d): %s", r.exitCode, r.err.constData());
    }
    return json::parse(r.out.toStdString());
}

std::vector<std::string> keysOf(const json& object)
{
    std::vector<std::string> keys;
    for (const auto& [k, v] : object.items()) {
        keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end());
    return keys;
}

bool hasKeys(const json& object, std::vector<std::string> expected)
{
    const auto keys = keysOf(object);
    return std::all_of(expected.begin(), expected.end(), [&](const std::string& k) {
        return std::find(keys.begin(), keys.end(), k) != keys.end();
    });
}

} // namespace

class TestCliDiagnose : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void recompileContract()
    {
        const json j = diagnoseJson({kRecorded + "recompile.log.gz"});
        QCOMPARE(keysOf(j), (std::vector<std::string>{"cache", "divergence", "export_failures",
                                                      "failures", "findings", "frames",
                                                      "graph_breaks", "problems", "recompiles",
                                                      "runs"}));
        QCOMPARE(j["problems"], json({{"errors", 0}, {"warnings", 0}}));
        QCOMPARE(j["runs"].size(), std::size_t(1));
        QVERIFY(j["runs"][0]["source"].get<std::string>().find("recompile.log.gz") !=
                std::string::npos);
        QVERIFY(j["runs"][0]["ranks"].empty()); // a single-process log names no rank

        const json& f = j["frames"].at(0);
        QVERIFY(hasKeys(f, {"rank", "frame_id", "compile_ids", "total_s", "phases"}));
        QVERIFY(f["rank"].is_null());
        QCOMPARE(f["frame_id"].get<int>(), 0);
        QCOMPARE(f["compile_ids"], json({"0/0", "0/1", "0/2"}));
        const json& p = f["phases"];
        QVERIFY(hasKeys(p, {"dynamo_s", "aot_s", "inductor_s", "cache_s"}));
        const double sum = p["dynamo_s"].get<double>() + p["aot_s"].get<double>() +
                           p["inductor_s"].get<double>() + p["cache_s"].get<double>();
        QVERIFY(std::abs(sum - f["total_s"].get<double>()) < 1e-6);

        const json& r = j["recompiles"].at(0);
        QVERIFY(hasKeys(r, {"rank", "compile_id", "reason", "input", "source", "action", "cost_s"}));
        QCOMPARE(r["compile_id"].get<std::string>(), std::string("0/1"));
        QCOMPARE(r["reason"].get<std::string>(),
                 std::string("tensor 'x' size mismatch at index 0. expected 8, actual 16"));
        QCOMPARE(r["input"].get<std::string>(), std::string("x"));
        QCOMPARE(r["source"]["file"].get<std::string>(), std::string("/home/user/demo/record.py"));
        QCOMPARE(r["source"]["line"].get<int>(), 71);
        QCOMPARE(r["action"].get<std::string>(), std::string("dynamic: s77 = x.size(0)"));
        QVERIFY(r["cost_s"].get<double>() > 0.8);

        QCOMPARE(j["cache"].size(), std::size_t(6));
        const json& c = j["cache"][2];
        QVERIFY(hasKeys(c, {"rank", "compile_id", "cache", "class", "headline"}));
        QCOMPARE(c["compile_id"].get<std::string>(), std::string("0/1"));
        QCOMPARE(c["cache"].get<std::string>(), std::string("aotautograd"));
        QCOMPARE(c["class"].get<std::string>(), std::string("cold_miss"));

        QVERIFY(j["graph_breaks"].empty());
        QVERIFY(j["divergence"].empty());
        const json& finding = j["findings"].at(0);
        QVERIFY(hasKeys(finding, {"severity", "cost_s", "text", "where", "remedy"}));
        QVERIFY(finding["remedy"].is_null()); // the frame's compile time
        // The recompile on x's size: mark_dynamic with the input's name and the dimension.
        const json& size = j["findings"].at(2);
        QVERIFY(size["text"].get<std::string>().starts_with("Recompile 0/1"));
        QVERIFY(hasKeys(size["remedy"], {"kind", "text", "action"}));
        QCOMPARE(size["remedy"]["kind"].get<std::string>(), std::string("mark_dynamic"));
        QVERIFY(size["remedy"]["text"].get<std::string>().find(
                    "torch._dynamo.mark_dynamic(x, 0)") != std::string::npos);
        QCOMPARE(size["remedy"]["action"].get<std::string>(), std::string("open_source"));
    }

    void graphBreaksAndClasses()
    {
        const json j = diagnoseJson({kRecorded + "graph_break.log.gz"});
        QCOMPARE(j["graph_breaks"].size(), std::size_t(2));
        const json& b = j["graph_breaks"][0];
        QVERIFY(hasKeys(b, {"reason", "user_frame", "count", "compile_ids"}));
        QCOMPARE(b["reason"].get<std::string>(), std::string("Failed to trace builtin operator"));
        QCOMPARE(b["user_frame"]["line"].get<int>(), 80);
        QCOMPARE(b["user_frame"]["code"].get<std::string>(), std::string("print(\"step\")"));
        QCOMPARE(b["count"].get<int>(), 1);
        QCOMPARE(b["compile_ids"], json({"0/0", "1/0"}));
        QVERIFY(b["ranks"].is_array() && b["ranks"].empty()); // one process: no rank named

        const json fx = diagnoseJson({kRecorded + "load_fail_fx.log.gz"});
        for (const auto& c : fx["cache"]) {
            QCOMPARE(c["class"].get<std::string>(), std::string("load_failure"));
        }
    }

    void ranksDirectory()
    {
        const json j = diagnoseJson({kRecorded + "ranks"});
        QCOMPARE(j["runs"][0]["ranks"], json({0, 1}));
        QCOMPARE(j["frames"].size(), std::size_t(2));
        QCOMPARE(j["frames"][1]["rank"].get<int>(), 1);
        QCOMPARE(j["divergence"].size(), std::size_t(1));
        const json& v = j["divergence"][0];
        QCOMPARE(v["compile_id"].get<std::string>(), std::string("0/0"));
        QCOMPARE(v["what"].get<std::string>(), std::string("input shapes differ"));
        QCOMPARE(v["run"].get<int>(), 0);
        QCOMPARE(v["detail"]["0"].get<std::string>(), std::string("x: [8, 16] float32"));
        QCOMPARE(v["detail"]["1"].get<std::string>(), std::string("x: [12, 16] float32"));
        QCOMPARE(j["findings"][0]["severity"].get<std::string>(), std::string("error"));
    }

    void failuresContract()
    {
        const json j = diagnoseJson({kClasses + "comp_failure.log"});
        QCOMPARE(j["failures"].size(), std::size_t(1));
        const json& f = j["failures"][0];
        QVERIFY(hasKeys(f, {"rank", "compile_id", "frame", "fail_type", "reason", "user_frame"}));
        QVERIFY(f["rank"].is_null());
        QCOMPARE(f["compile_id"].get<std::string>(), std::string("0/0"));
        QCOMPARE(f["frame"].get<std::string>(), std::string("fn"));
        QCOMPARE(f["fail_type"].get<std::string>(), std::string("BackendCompilerFailed"));
        QCOMPARE(f["user_frame"]["line"].get<int>(), 14);
        QCOMPARE(j["findings"][0]["severity"].get<std::string>(), std::string("error"));
        QVERIFY(j["findings"][0]["text"].get<std::string>().starts_with("Compile failed in fn"));

        const json e = diagnoseJson({kClasses + "export_failures.log"});
        QCOMPARE(e["export_failures"].size(), std::size_t(4));
        QVERIFY(hasKeys(e["export_failures"][0], {"rank", "compile_id", "kind", "failure_type",
                                                  "reason", "expr", "op", "user_frame"}));
        QCOMPARE(e["export_failures"][0]["kind"].get<std::string>(), std::string("guard_added"));

        const json b = diagnoseJson({kClasses + "graph_break_artifact.log"});
        QCOMPARE(b["graph_breaks"][0]["gb_id"].get<std::string>(), std::string("gb0025"));
        QCOMPARE(b["graph_breaks"][0]["count"].get<int>(), 2);
        const json old = diagnoseJson({kClasses + "restart_reasons.log"});
        QCOMPARE(old["graph_breaks"].size(), std::size_t(2));
        QVERIFY(old["graph_breaks"][0]["gb_id"].is_null());
        QCOMPARE(old["graph_breaks"][0]["source"].get<std::string>(),
                 std::string("restart_reasons"));
    }

    void problemsCountedAsInspectCountsThem()
    {
        // Logs whose graphs parse (inspect also parses every graph and counts what the graph
        // parser finds; diagnose leaves graphs unparsed).
        for (const char* name : {"blank_lines.log", "crlf.log", "rank_conflict"}) {
            const QString path = kClasses + name;
            const auto i = runCli({"inspect", "--json", path});
            const auto d = runCli({"diagnose", "--json", path});
            QCOMPARE(i.exitCode, 0);
            QCOMPARE(d.exitCode, 0);
            const json pi = json::parse(i.out.toStdString())["problems"];
            const json pd = json::parse(d.out.toStdString())["problems"];
            QCOMPARE(pi, pd);
        }
        const auto cut = runCli({"diagnose", "--json", kClasses + "cut_payload.log"});
        QCOMPARE(json::parse(cut.out.toStdString())["problems"],
                 json({{"errors", 1}, {"warnings", 0}}));
    }

    void rankFolderOfOneDistributedRun()
    {
        // Records before init_process_group are their file's rank's; stray files are notes.
        const auto r = runCli({"diagnose", "--json", kClasses + "ranks"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["runs"].size(), std::size_t(1));
        QCOMPARE(j["runs"][0]["ranks"], json({0, 1}));
        QVERIFY(j["divergence"].empty()); // device=0 vs device=1 is no difference
        // A folder of separate processes: one run each.
        const json p = diagnoseJson({kClasses + "processes"});
        QCOMPARE(p["runs"].size(), std::size_t(2));
    }

    void humanOutput()
    {
        const auto r = runCli({"diagnose", kRecorded + "recompile.log.gz"});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.startsWith("Findings (largest cost first):"));
        QVERIFY(out.contains("Recompile 0/1: tensor 'x' size mismatch at index 0. expected 8, "
                             "actual 16 \u2192 dynamic: s77 = x.size(0)  @ record.py:71"));
        QVERIFY(out.contains("\u2192 Mark the dimension dynamic before the first call: "
                             "torch._dynamo.mark_dynamic(x, 0) (it was 8, then 16)"));
    }

    void runReadInPart()
    {
        // The recorded log cut in the middle (its gzip stream too): the compiles before the cut
        // are diagnosed, and stderr says what was lost.
        QTemporaryDir dir;
        QFile in(kRecorded + "recompile.log.gz");
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray whole = in.readAll();
        const QString cut = dir.filePath(QStringLiteral("cut.log.gz"));
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly));
        QCOMPARE(out.write(whole.left(whole.size() / 2)), whole.size() / 2);
        out.close();
        const auto r = runCli({"diagnose", "--json", cut});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.startsWith(("fxscope-cli diagnose: " + cut).toUtf8()), r.err.constData());
        QVERIFY(r.err.contains("truncated"));
        QCOMPARE(r.err.count('\n'), 1);
        const json j = json::parse(r.out.toStdString());
        QVERIFY(!j["recompiles"].empty()); // 0/1 comes before the cut
        QCOMPARE(j["recompiles"][0]["compile_id"].get<std::string>(), std::string("0/1"));
    }

    void unreadableRun()
    {
        const auto r = runCli({"diagnose", "--json", kRecorded + "no_such.log"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY(r.err.startsWith("fxscope-cli diagnose: cannot read run "));
        QCOMPARE(r.err.count('\n'), 1);
    }
};

QTEST_GUILESS_MAIN(TestCliDiagnose)
#include "tst_cli_diagnose.moc"

FXSCOPE_TEST_END
