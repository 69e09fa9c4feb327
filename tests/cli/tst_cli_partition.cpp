// fxscope-cli partition end to end: the README contract on the regional-inductor graph, the
// annotated GPT-2 with a region plan, --auto, project save/re-match after an edit, exit codes.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

QString regionalGraph() { return QStringLiteral(FXSCOPE_TEST_DATA "/partition/regional_fw.txt"); }

QString fixture(const QString& relative)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/") + relative;
}

json parsed(const CliRun& r) { return json::parse(r.out.toStdString(), nullptr, false); }

using Names = std::vector<std::string>;

} // namespace

class TestCliPartition : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void contractOnRegionalGraph()
    {
        const auto r = runCli({"partition", regionalGraph(), "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parsed(r);
        QCOMPARE(j.at("mode").get<std::string>(), std::string("annotations"));
        QCOMPARE(j.at("regions").size(), std::size_t(1));
        const json& r0 = j.at("regions")[0];
        QCOMPARE(r0.at("id").get<std::string>(), std::string("r0"));
        QCOMPARE(r0.at("annotation"), json({{"compile_with_inductor", 0}}));
        QCOMPARE(r0.at("nodes").get<Names>(), (Names{"mul", "add"}));
        QCOMPARE(r0.at("inputs").get<Names>(), (Names{"sin", "primals_2"}));
        QCOMPARE(r0.at("outputs").get<Names>(), (Names{"add"}));
        QCOMPARE(r0.at("bytes_in").get<int>(), 80); // two f32[10]
        QCOMPARE(r0.at("bytes_out").get<int>(), 40);
        QCOMPARE(r0.at("node_count").get<int>(), 2);
        QVERIFY(r0.at("options").is_null());
        const json& ex = j.at("excluded");
        QCOMPARE(ex.size(), std::size_t(2));
        QCOMPARE(ex[0].at("node").get<std::string>(), std::string("sin"));
        QCOMPARE(ex[0].at("code").get<std::string>(), std::string("not_annotated"));
        QCOMPARE(ex[1].at("node").get<std::string>(), std::string("sin_1"));
        QVERIFY(j.at("splits").empty());
        QVERIFY(j.at("warnings").empty());
    }

    void humanOutput()
    {
        const auto r = runCli({"partition", regionalGraph()});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("r0  2 nodes  in 2"));
        QVERIFY(r.out.contains("nodes: mul, add"));
        QVERIFY(r.out.contains("1 region(s); 2 node(s) left out [not_annotated: 2]"));
    }

    void autoProposal()
    {
        const auto r = runCli({"partition", regionalGraph(), "--auto", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = parsed(r);
        QCOMPARE(j.at("mode").get<std::string>(), std::string("auto"));
        QCOMPARE(j.at("regions").size(), std::size_t(1));
        const json& r0 = j.at("regions")[0];
        QCOMPARE(r0.at("nodes").get<Names>(), (Names{"sin", "mul", "add", "sin_1"}));
        QCOMPARE(r0.at("inputs").get<Names>(), (Names{"primals_1", "primals_2"}));
        QCOMPARE(r0.at("outputs").get<Names>(), (Names{"sin", "add", "sin_1"}));
        QVERIFY(r0.at("annotation").is_null());
        QVERIFY(j.at("excluded").empty());
        const auto excluded =
            parsed(runCli({"partition", regionalGraph(), "--auto", "--json", "--exclude", "mul"}));
        // Without mul, sin is alone (nothing to fuse) and add joins sin_1.
        QCOMPARE(excluded.at("regions")[0].at("nodes").get<Names>(), (Names{"add", "sin_1"}));
        QCOMPARE(excluded.at("excluded").size(), std::size_t(2));
        QCOMPARE(excluded.at("excluded")[0].at("code").get<std::string>(),
                 std::string("nothing_to_fuse"));
        QCOMPARE(excluded.at("excluded")[1].at("node").get<std::string>(), std::string("mul"));
        QCOMPARE(excluded.at("excluded")[1].at("code").get<std::string>(),
                 std::string("user_excluded"));
    }

    void planForAnnotatedGpt2()
    {
        QTemporaryDir dir;
        const QString plan = dir.filePath("fw.plan.json");
        const QString graph = fixture("gpt2_annotated_fw.txt");
        const auto r = runCli({"partition", graph, "--json", "--plan", plan});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parsed(r).at("regions").size(), std::size_t(2));
        QFile file(plan);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const json p = json::parse(file.readAll().toStdString());
        QCOMPARE(p.at("format").get<std::string>(), std::string("fxscope-region-plan"));
        QCOMPARE(p.at("version").get<int>(), 1);
        QFile source(graph);
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray digest =
            QCryptographicHash::hash(source.readAll(), QCryptographicHash::Sha256).toHex();
        QCOMPARE(p.at("graph").at("sha256").get<std::string>(), digest.toStdString());
        QCOMPARE(p.at("regions").size(), std::size_t(2));
        const json& r0 = p.at("regions")[0];
        QCOMPARE(r0.at("value").get<int>(), 0);
        QCOMPARE(r0.at("nodes").size(), std::size_t(14));
        const json& first = r0.at("nodes")[0];
        QCOMPARE(first.at("name").get<std::string>(), std::string("native_layer_norm_1"));
        QCOMPARE(first.at("target").get<std::string>(),
                 std::string("aten::native_layer_norm.default"));
        QCOMPARE(first.at("file").get<std::string>(), std::string("/home/user/demo/models.py"));
        QCOMPARE(first.at("line").get<int>(), 22);
        QCOMPARE(r0.at("nodes")[13].at("line").get<int>(), 27); // add_2: x + s.mlp(x)
    }

    void projectRoundTripAndEdit()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath("regional.fxscope");
        QCOMPARE(runCli({"partition", regionalGraph(), "--save-project", project}).exitCode, 0);
        const auto same = runCli({"partition", regionalGraph(), "--project", project, "--json"});
        QCOMPARE(same.exitCode, 0);
        const json a = parsed(same);
        QCOMPARE(a.at("mode").get<std::string>(), std::string("project"));
        QCOMPARE(a.at("regions")[0].at("nodes").get<Names>(), (Names{"mul", "add"}));
        QCOMPARE(a.at("project").at("source_changed").get<bool>(), false);
        // The graph edited: `add` renamed. The region keeps mul, and the loss is reported.
        QFile in(regionalGraph());
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        text.replace("add", "plus");
        const QString edited = dir.filePath("edited.txt");
        QFile out(edited);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        const auto changed = runCli({"partition", edited, "--project", project, "--json"});
        QCOMPARE(changed.exitCode, 3);
        const json b = parsed(changed);
        QCOMPARE(b.at("regions")[0].at("nodes").get<Names>(), (Names{"mul"}));
        QCOMPARE(b.at("project").at("source_changed").get<bool>(), true);
        QCOMPARE(b.at("project").at("missing_nodes"),
                 json::parse("[{\"region\": \"r0\", \"node\": \"add\"}]"));
    }

    void exitCodes()
    {
        QCOMPARE(runCli({"partition", "/nonexistent/graph.txt"}).exitCode, 1);
        QTemporaryDir dir;
        const QString junk = dir.filePath("junk.txt");
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("hello\n");
        f.close();
        QCOMPARE(runCli({"partition", junk}).exitCode, 1);
        QVERIFY(runCli({"partition", regionalGraph(), "--auto", "--project", junk}).exitCode != 0);
        QCOMPARE(runCli({"partition", regionalGraph(), "--project", junk}).exitCode, 1);
    }
};

QTEST_GUILESS_MAIN(TestCliPartition)
#include "tst_cli_partition.moc"

FXSCOPE_TEST_END
