// fxscope-cli partition --nested end to end: the README contract of the summary and of the plan
// file on the GPT trace (4 blocks s.blocks.0-3 of 23 nodes, counted by hand in
// tst_structure_fixtures) and the 24-layer LLaMA trace, a graph without repetition, the text
// output, and the exit codes (unreadable input, unwritable plan, options it excludes).
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::runCli;
using Names = std::vector<std::string>;

const QString kGpt = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold");
const QString kLlama = QStringLiteral(FXSCOPE_TEST_DATA "/recorded/traces/llama24.log.gz");

json readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return json();
    }
    return json::parse(f.readAll().toStdString(), nullptr, false);
}

Names numbered(const std::string& prefix, int n)
{
    Names out;
    for (int k = 0; k < n; ++k) {
        out.push_back(prefix + std::to_string(k));
    }
    return out;
}

} // namespace

class TestCliPartitionNested : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void gptSummaryAndPlan()
    {
        const QString plan = m_dir.filePath("gpt.plan.json");
        const auto r = runCli({"partition", kGpt, "--graph", "0", "--nested", plan, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json s = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!s.is_discarded());
        QCOMPARE(s.at("mode").get<std::string>(), std::string("nested"));
        QCOMPARE(s.at("plan").get<std::string>(), plan.toStdString());
        QCOMPARE(s.at("structure_source").get<std::string>(), std::string("names"));
        QCOMPARE(s.at("region_count").get<int>(), 1);
        QCOMPARE(s.at("instance_count").get<int>(), 4);
        QCOMPARE(s.at("regions")[0].at("instances").get<Names>(), numbered("s.blocks.", 4));
        QCOMPARE(s.at("regions")[0].at("nodes_each").get<int>(), 23);
        QVERIFY(s.at("regions")[0].at("module_class").is_null());
        QCOMPARE(s.at("skipped")[0].at("reason").get<std::string>(), std::string("inside_region"));
        QVERIFY(s.at("warnings").is_array());
        const json p = readJson(plan);
        QVERIFY(!p.is_discarded() && p.is_object());
        QCOMPARE(p.at("format").get<std::string>(), std::string("fxscope-nested-plan"));
        QCOMPARE(p.at("version").get<int>(), 1);
        QCOMPARE(p.at("graph").at("selector").get<std::string>(), std::string("0"));
        QCOMPARE(p.at("graph").at("nodes").get<int>(), 102); // `inspect` counts the same
        QCOMPARE(p.at("graph").at("sha256").get<std::string>().size(), std::size_t(64));
        QCOMPARE(p.at("regions")[0].at("instances").get<Names>(), numbered("s.blocks.", 4));
        QCOMPARE(p.at("regions")[0].at("parent").get<std::string>(), std::string("s.blocks"));
        QCOMPARE(p.at("skipped")[0].at("modules").get<Names>(),
                 (Names{"s.blocks.0.ln1", "s.blocks.0.ln2"}));
    }

    void llamaTextOutput()
    {
        const QString plan = m_dir.filePath("llama.plan.json");
        const auto r = runCli({"partition", kLlama, "--graph", "0", "--nested", plan});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("n0  24 x "), r.out.constData());
        QVERIFY(r.out.contains("model.layers.0 ... model.layers.23"));
        QVERIFY(r.out.contains("1 nested region(s), 24 instance(s); plan written to"));
        const json p = readJson(plan);
        QCOMPARE(p.at("regions").size(), std::size_t(1));
        QCOMPARE(p.at("regions")[0].at("instances").get<Names>(), numbered("model.layers.", 24));
    }

    void noRepetition()
    {
        const QString plan = m_dir.filePath("mlp.plan.json");
        const auto r = runCli({"partition", FXSCOPE_TEST_DATA "/fixtures/export/small_mlp.pt2",
                               "--nested", plan, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json s = json::parse(r.out.toStdString(), nullptr, false);
        QCOMPARE(s.at("region_count").get<int>(), 0);
        QCOMPARE(s.at("skipped").size(), std::size_t(1));
        QCOMPARE(s.at("skipped")[0].at("reason").get<std::string>(), std::string("no_repetition"));
        QVERIFY(readJson(plan).at("regions").empty());
    }

    void exitCodes()
    {
        const QString plan = m_dir.filePath("x.plan.json");
        QCOMPARE(runCli({"partition", "/nonexistent/trace", "--nested", plan}).exitCode, 1);
        QVERIFY(!QFile::exists(plan));
        // A bad selector: nothing written either.
        QCOMPARE(runCli({"partition", kGpt, "--graph", "99", "--nested", plan}).exitCode, 1);
        QVERIFY(!QFile::exists(plan));
        const auto unwritable =
            runCli({"partition", kGpt, "--graph", "0", "--nested", "/nonexistent/dir/p.json"});
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY(unwritable.err.contains("/nonexistent/dir/p.json"));
        // --nested is its own mode: not with --auto, --project, --plan or --save-project.
        for (const char* other : {"--auto", "--plan", "--project", "--save-project"}) {
            QStringList args{"partition", kGpt, "--graph", "0", "--nested", plan,
                             QString::fromLatin1(other)};
            if (QString::fromLatin1(other) != "--auto") {
                args << m_dir.filePath("other.json");
            }
            const auto r = runCli(args);
            QVERIFY2(r.exitCode != 0 && r.exitCode != 1, other);
        }
        QVERIFY(!QFile::exists(plan));
    }
};

QTEST_GUILESS_MAIN(TestCliPartitionNested)
#include "tst_cli_partition_nested.moc"

FXSCOPE_TEST_END
