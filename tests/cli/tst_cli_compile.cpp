// fxscope-cli compile end to end: a printed graph with a pointwise chain and a softmax region,
// compiled through a fresh cache (miss), again (hit), with another dtype (miss naming the
// change), and refused when the cache database is writable by others; the GPT-2 fixture's
// annotated regions compile with their matmuls left to LibTorch (extern nodes).
#include "tests/cli/cli_runner.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

using nlohmann::json;

namespace {

using fxs::test::runCli;

// Two regions for --auto: an 11-node chain on x, y and a 3-node softmax region on z, kept
// apart by the mm between them (mm is not compiled).
QByteArray graphText(const char* dt)
{
    const QByteArray m = QByteArray("\"") + dt + "[32, 128][128, 1]cpu\"";
    const QByteArray mm = QByteArray("\"") + dt + "[32, 32][32, 1]cpu\"";
    QByteArray t = "class GraphModule(torch.nn.Module):\n    def forward(self, x: " + m +
                   ", y: " + m + ", z: " + m + "):\n";
    auto line = [&](const char* name, const QByteArray& meta, const char* call) {
        t += QByteArray("        ") + name + ": " + meta + " = torch.ops.aten." + call + "\n";
    };
    line("sin", m, "sin.default(x)");
    line("mul", m, "mul.Tensor(sin, y)");
    line("add", m, "add.Tensor(mul, 1)");
    line("relu", m, "relu.default(add)");
    line("neg", m, "neg.default(relu)");
    line("mul_1", m, "mul.Tensor(neg, 0.5)");
    line("exp", m, "exp.default(mul_1)");
    line("tanh", m, "tanh.default(y)");
    line("add_1", m, "add.Tensor(exp, tanh)");
    line("sigmoid", m, "sigmoid.default(add_1)");
    line("mul_2", m, "mul.Tensor(sigmoid, x)");
    line("permute", QByteArray("\"") + dt + "[128, 32][1, 128]cpu\"", "permute.default(z, [1, 0])");
    line("mm", mm, "mm.default(mul_2, permute)");
    line("_softmax", mm, "_softmax.default(mm, -1, False)");
    line("mul_3", mm, "mul.Tensor(_softmax, 2.0)");
    line("exp_1", mm, "exp.default(mul_3)");
    t += "        return (exp_1,)\n";
    return t;
}

using Cli = fxs::test::CliRun;

} // namespace

class TestCliCompile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString write(const char* name, const QByteArray& text)
    {
        const QString path = m_dir.path() + "/" + name;
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return path;
    }
    QString db() const { return m_dir.path() + "/cache/cache.db"; }

private Q_SLOTS:
    void missThenHit()
    {
        const QString g = write("g32.txt", graphText("f32"));
        const Cli first = runCli({"compile", g, "--auto", "--cache", db(), "--json", "--repeat", "2"});
        QVERIFY2(first.exitCode == 0, first.err.constData());
        const json a = json::parse(first.out.toStdString());
        QCOMPARE(a["regions"].size(), std::size_t(2));
        const json& r0 = a["regions"][0];
        QCOMPARE(r0["id"].get<std::string>(), std::string("r0"));
        QCOMPARE(r0["nodes"].get<int>(), 11);
        QCOMPARE(r0["state"].get<std::string>(), std::string("miss"));
        QCOMPARE(r0["key"].get<std::string>().size(), std::size_t(64));
        QVERIFY(r0["compile_ms"].get<double>() > 0);
        QVERIFY(r0["max_abs_err"].get<double>() < 1e-4);
        const json& r1 = a["regions"][1];
        QCOMPARE(r1["nodes"].get<int>(), 3);
        QCOMPARE(r1["state"].get<std::string>(), std::string("miss"));
        const double sum = r0["eager_ms"].get<double>() + r1["eager_ms"].get<double>();
        QVERIFY(std::abs(a["total_eager_ms"].get<double>() - sum) < 1e-9);

        const Cli second = runCli({"compile", g, "--auto", "--cache", db(), "--json", "--repeat", "2"});
        QCOMPARE(second.exitCode, 0);
        const json b = json::parse(second.out.toStdString());
        for (const auto& r : b["regions"]) {
            QCOMPARE(r["state"].get<std::string>(), std::string("hit"));
            QVERIFY(r["headline"].get<std::string>().rfind("hit: entry ", 0) == 0);
        }
        QCOMPARE(b["regions"][0]["key"], r0["key"]);
    }

    void otherDtypeMissSaysWhy()
    {
        const QString g = write("g16.txt", graphText("bf16"));
        const Cli c = runCli({"compile", g, "--auto", "--cache", db(), "--json", "--repeat", "1"});
        QVERIFY2(c.exitCode == 0, c.err.constData());
        const json a = json::parse(c.out.toStdString());
        const json& r0 = a["regions"][0];
        QCOMPARE(r0["state"].get<std::string>(), std::string("miss"));
        QCOMPARE(r0["headline"].get<std::string>(),
                 std::string("miss: input 0 dtype float32 → bfloat16 (+1 more)"));
    }

    void humanOutputHasTotals()
    {
        const QString g = write("g32b.txt", graphText("f32"));
        const Cli c = runCli({"compile", g, "--auto", "--cache", db(), "--repeat", "1"});
        QCOMPARE(c.exitCode, 0);
        QVERIFY(c.out.contains("total eager"));
        QVERIFY(c.out.contains("r0"));
    }

    void gpt2RegionsCompileAroundTheirMatmuls()
    {
        // Before regions were schedules, any op the code generator does not lower (addmm here)
        // made the whole region fall back, and compiled_ms was eager_ms by construction.
        const QString g = FXSCOPE_TEST_DATA "/fixtures/graphs/gpt2_annotated_fw.txt";
        const QString cache = m_dir.path() + "/gpt2/cache.db";
        const Cli c = runCli({"compile", g, "--cache", cache, "--json", "--repeat", "2"});
        QVERIFY2(c.exitCode == 0, c.err.constData());
        const json a = json::parse(c.out.toStdString());
        QVERIFY(!a["regions"].empty());
        for (const auto& r : a["regions"]) {
            QVERIFY2(r["state"].get<std::string>() == "miss" || r["state"] == "hit",
                     r["headline"].get<std::string>().c_str());
            // Each annotated block is 14 nodes (layer norm, 3 getitems, 2 addmm with their
            // weight transposes and views, gelu, residual add): the addmms are extern.
            QCOMPARE(r["nodes"].get<int>(), 14);
            QVERIFY(r["extern_nodes"].get<int>() >= 2);
            QVERIFY(r["extern_nodes"].get<int>() < r["nodes"].get<int>());
            QVERIFY(r["compiled_ms"].get<double>() > 0);
            QVERIFY(r["compiled_ms"].get<double>() != r["eager_ms"].get<double>());
            QVERIFY(r["max_abs_err"].get<double>() < 1e-3);
        }
    }

    void refusesCacheWritableByOthers()
    {
        const QString g = write("g32c.txt", graphText("f32"));
        QCOMPARE(::chmod(db().toLocal8Bit().constData(), 0666), 0);
        const Cli c = runCli({"compile", g, "--auto", "--cache", db(), "--json"});
        QCOMPARE(::chmod(db().toLocal8Bit().constData(), 0600), 0);
        QCOMPARE(c.exitCode, 1);
        QVERIFY(c.err.contains("writable by group or others"));
    }
};

QTEST_GUILESS_MAIN(TestCliCompile)
#include "tst_cli_compile.moc"
