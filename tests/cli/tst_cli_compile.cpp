// fxscope-cli compile end to end: a printed graph with a pointwise chain and a softmax region,
// compiled through a fresh cache (miss), again (hit), with another dtype (miss naming the
// change), and refused when the cache database is writable by others; the GPT-2 fixture's
// annotated regions compile with their matmuls left to LibTorch (extern nodes).
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

FXSCOPE_TEST_BEGIN

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

// tools/bench/chain8_16m.txt (sin, mul, add, relu, ..., sigmoid, mul: 11 nodes on x and y) at a
// small size, in the dtype given ("f32", "f64").
QByteArray chainText(const char* dt, int size)
{
    const QByteArray m = QByteArray("\"") + dt + "[" + QByteArray::number(size) + "][1]cpu\"";
    QByteArray t = "class GraphModule(torch.nn.Module):\n    def forward(self, x: " + m +
                   ", y: " + m + "):\n";
    for (const char* line :
         {"sin = torch.ops.aten.sin.default(x)", "mul = torch.ops.aten.mul.Tensor(sin, y)",
          "add = torch.ops.aten.add.Tensor(mul, 1.0)", "relu = torch.ops.aten.relu.default(add)",
          "mul_1 = torch.ops.aten.mul.Tensor(relu, 0.5)", "neg = torch.ops.aten.neg.default(mul_1)",
          "exp = torch.ops.aten.exp.default(neg)", "tanh = torch.ops.aten.tanh.default(y)",
          "add_1 = torch.ops.aten.add.Tensor(exp, tanh)",
          "sigmoid = torch.ops.aten.sigmoid.default(add_1)",
          "mul_2 = torch.ops.aten.mul.Tensor(sigmoid, x)"}) {
        const QByteArray l(line);
        const int eq = l.indexOf(" = ");
        t += "        " + l.left(eq) + ": " + m + l.mid(eq) + "\n";
    }
    return t + "        return (mul_2,)\n";
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
        QCOMPARE(r0["reason"].get<std::string>(), std::string("miss_cold"));
        QCOMPARE(r0["reason_code"].get<int>(), 3);
        QCOMPARE(r0["key"].get<std::string>().size(), std::size_t(64));
        QVERIFY(r0["compile_ms"].get<double>() > 0);
        QVERIFY(r0["max_abs_err"].get<double>() < 1e-4);
        QCOMPARE(r0.at("compiled_b2b_ms").get<double>(), 0.0); // CUDA only
        QCOMPARE(r0.at("eager_b2b_ms").get<double>(), 0.0);
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
            QCOMPARE(r["reason_code"].get<int>(), 1);
            QCOMPARE(r["reason"].get<std::string>(), std::string("hit"));
            QVERIFY(r["headline"].get<std::string>().rfind("hit: entry ", 0) == 0);
        }
        QCOMPARE(b["regions"][0]["key"], r0["key"]);
        // The verified hits report the timings saved when they were built, to the last bit
        // (timed now they would differ), not timed again; --retime times them again.
        QCOMPARE(r0["timings_from_cache"].get<bool>(), false);
        for (int i = 0; i < 2; ++i) {
            const json& hit = b["regions"][i];
            const json& built = a["regions"][i];
            QCOMPARE(hit["timings_from_cache"].get<bool>(), true);
            QCOMPARE(hit["eager_ms"].get<double>(), built["eager_ms"].get<double>());
            QCOMPARE(hit["compiled_ms"].get<double>(), built["compiled_ms"].get<double>());
            QCOMPARE(hit["timing"], built["timing"]);
            QVERIFY(hit["max_abs_err"].get<double>() < 1e-4); // still verified
        }
        const Cli third = runCli({"compile", g, "--auto", "--cache", db(), "--json", "--repeat",
                                  "2", "--retime"});
        QCOMPARE(third.exitCode, 0);
        const json c = json::parse(third.out.toStdString());
        QCOMPARE(c["regions"][0]["state"].get<std::string>(), std::string("hit"));
        QCOMPARE(c["regions"][0]["timings_from_cache"].get<bool>(), false);
        QVERIFY(c["regions"][0]["eager_ms"].get<double>() != r0["eager_ms"].get<double>());
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
        QCOMPARE(r0["reason"].get<std::string>(), std::string("miss_input_dtype"));
        QCOMPARE(r0["reason_code"].get<int>(), 5);
    }

    void float64ChainCompilesAndNamesTheDtype()
    {
        // The chain benchmark in float32, then its float64 copy against the same cache: the
        // copy compiles (double kernels), verifies at double tolerances, and misses with the
        // dtype change as the headline.
        const QString cache = m_dir.path() + "/chain/cache.db";
        const Cli f32 = runCli({"compile", write("chain32.txt", chainText("f32", 4096)), "--auto",
                                "--cache", cache, "--json", "--repeat", "1"});
        QVERIFY2(f32.exitCode == 0, f32.err.constData());
        QCOMPARE(json::parse(f32.out.toStdString())["regions"][0]["state"].get<std::string>(),
                 std::string("miss"));
        const Cli f64 = runCli({"compile", write("chain64.txt", chainText("f64", 4096)), "--auto",
                                "--cache", cache, "--json", "--repeat", "1"});
        QVERIFY2(f64.exitCode == 0, f64.err.constData());
        const json r = json::parse(f64.out.toStdString())["regions"][0];
        QCOMPARE(r["nodes"].get<int>(), 11);
        QVERIFY2(r["state"].get<std::string>() == "miss", r["headline"].get<std::string>().c_str());
        QCOMPARE(r["extern_nodes"].get<int>(), 0);
        QCOMPARE(r["reason"].get<std::string>(), std::string("miss_input_dtype"));
        QCOMPARE(r["headline"].get<std::string>(),
                 std::string("miss: input 0 dtype float32 → float64 (+1 more)"));
        QVERIFY(r["max_abs_err"].get<double>() < 1e-12);
    }

    void dumpWritesWhatTheCodeGeneratorMade()
    {
        const QString g = write("dump.txt", graphText("f32"));
        const QString dir = m_dir.path() + "/dump";
        const Cli c = runCli({"compile", g, "--auto", "--cache", db(), "--json", "--repeat", "1",
                              "--dump", dir});
        QVERIFY2(c.exitCode == 0, c.err.constData());
        auto read = [&](const QString& name) {
            QFile f(dir + "/" + name);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
        };
        // r0 is the 11-node chain: one generated step, one kernel, named after what it
        // computes (pointwise, its first four primitives, 32 x 128 elements).
        const QByteArray schedule = read("r0.schedule.txt");
        QVERIFY2(schedule.contains("region r0: 11 nodes, 11 generated, 0 LibTorch"),
                 schedule.constData());
        QVERIFY(schedule.contains("step 0: generated, entry 0"));
        QVERIFY(schedule.contains("nodes: sin, mul, add, relu"));
        QVERIFY(schedule.contains("canonical (cache key component 'schedule'): gen v0"));
        const QByteArray ir = read("r0.ir.txt");
        QVERIFY2(ir.contains("kernel fx0_pw_sin_mul_add_relu_4096 (FX nodes sin, mul, add, relu, "
                             "neg, mul_1, exp"),
                 ir.constData());
        QVERIFY(ir.contains("index space [32, 128]"));
        QVERIFY(ir.contains(" = sin(t0) : float"));
        QVERIFY(ir.contains("store t"));
        const QByteArray source = read("r0.cpp");
        QVERIFY(source.contains("extern \"C\" int fxs_region_entry("));
        // The source names nodes by canonical position (the schedule's "gen v0 ..."), not by name.
        const QByteArray kernel = "fx0_pw_sin_mul_add_relu_4096";
        QVERIFY2(source.contains("// " + kernel + ": covers FX nodes v0, v1, v2, v3"),
                 source.constData());
        // The node named "relu" is not in it: the word occurs only in the kernel's name (the
        // primitive's, fxscope's own table).
        QCOMPARE(source.count("relu"), source.count(kernel));
        const QByteArray passes = read("r0.passes.txt");
        for (const char* pass : {"canonicalize", "eager", "schedule", "print", "key", "verify",
                                 "total", "state: ", "reason: "}) {
            QVERIFY2(passes.contains(pass), pass);
        }
        // r1 (softmax after the mm) is dumped too; the environment variable does the same
        // for any run (the app's).
        QVERIFY(QFile::exists(dir + "/r1.ir.txt"));
        const QString envDir = m_dir.path() + "/dump_env";
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FXSCOPE_DUMP_CODEGEN", envDir);
        const Cli viaEnv = fxs::test::runCli(
            {"compile", g, "--auto", "--cache", db(), "--json", "--repeat", "1"}, env);
        QCOMPARE(viaEnv.exitCode, 0);
        for (const char* f : {"r0.schedule.txt", "r0.ir.txt", "r0.cpp", "r0.passes.txt"}) {
            QVERIFY2(QFile::exists(envDir + "/" + f), f);
        }
    }

    void noRunBuildsForCudaWithoutRunning()
    {
        // Needs NVRTC, not a GPU: generate, build a cubin for sm_90 and cache it unverified.
        const QString g = write("gcuda.txt", graphText("f32").replace("cpu\"", "cuda:0\""));
        const QString cache = m_dir.path() + "/cuda/cache.db";
        const QStringList args{"compile", g, "--auto", "--device", "cuda", "--no-run",
                               "--arch", "sm_90", "--cache", cache, "--json"};
        const Cli c = runCli(args);
        QVERIFY2(c.exitCode == 0, c.err.constData());
        const json a = json::parse(c.out.toStdString());
        QCOMPARE(a["device"].get<std::string>(), std::string("cuda"));
        const json& r0 = a["regions"][0];
        if (r0["state"] == "fallback" &&
            r0["headline"].get<std::string>().find("NVRTC") != std::string::npos) {
            QSKIP("no NVRTC on this machine");
        }
        for (const auto& r : a["regions"]) {
            QCOMPARE(r["state"].get<std::string>(), std::string("built"));
            QCOMPARE(r["target"].get<std::string>(), std::string("sm_90"));
            QCOMPARE(r["device"].get<std::string>(), std::string()); // nothing ran
        }
        const Cli again = runCli(args);
        QCOMPARE(again.exitCode, 0);
        for (const auto& r : json::parse(again.out.toStdString())["regions"]) {
            QCOMPARE(r["state"].get<std::string>(), std::string("hit"));
        }
        const Cli bad = runCli({"compile", g, "--device", "cuda", "--no-run", "--arch", "90"});
        QCOMPARE(bad.exitCode, 2);
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

FXSCOPE_TEST_END
