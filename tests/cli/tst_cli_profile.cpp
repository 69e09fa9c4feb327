// fxscope-cli profile end to end: the JSON contract on the annotated GPT-2 forward graph (its
// two annotation regions, their addmm FLOPs counted by hand), the Chrome trace, CSV and saved
// profile it writes, and bad arguments. With compiled regions the JSON has the whole graph
// compiled ("compiled_total", "regions_used": the regions that compiled, hit or miss), absent
// with --eager-only.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QtTest>

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

QString graphFixture(const char* name)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/") + name + ".txt";
}

std::string slurp(const QString& path)
{
    std::ifstream in(path.toStdString());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

class TestCliProfile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonContractOnAnnotatedGpt()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath("t.json");
        const QString csv = dir.filePath("t.csv");
        const QString saved = dir.filePath("p.json");
        auto r = runCli({"profile", graphFixture("gpt2_annotated_fw"), "--json", "--repeat", "2",
                         "--eager-only", "--trace", trace, "--csv", csv, "--save", saved});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("copy_GBps").get<double>() > 0);
        // 98 torch.ops lines + the getitem lines: every call node is listed once.
        const auto& nodes = j.at("nodes");
        QVERIFY(nodes.size() > 98);
        for (const auto& n : nodes) {
            for (const char* key : {"name", "target", "eager_ms", "compiled_ms", "bytes"}) {
                QVERIFY2(n.contains(key), key);
            }
            QVERIFY(n.at("compiled_ms").is_null());
            QVERIFY(n.at("eager_ms").get<double>() >= 0);
        }
        // Two annotated blocks (lines 51-66 and 113-128), each: layer norm, 3 getitem, 4 views,
        // 2 t, 2 addmm, gelu, add = 14 nodes; each addmm is 2*256*1024*256 FLOPs.
        QCOMPARE(j.at("regions").size(), std::size_t{2});
        for (const auto& region : j.at("regions")) {
            QCOMPARE(region.at("nodes").size(), std::size_t{14});
            QVERIFY(region.at("compiled_ms").is_null());
            QCOMPARE(region.at("flops").get<double>(), 2.0 * 2 * 256 * 1024 * 256);
            const std::string bound = region.at("bound");
            QVERIFY(bound == "memory" || bound == "compute");
            QVERIFY(region.at("efficiency").get<double>() > 0);
            QVERIFY(region.at("eager_ms").get<double>() > 0);
        }
        QCOMPARE(j.at("regions")[0].at("id").get<std::string>(), std::string("r0"));
        QCOMPARE(j.at("regions")[0].at("nodes")[0].get<std::string>(),
                 std::string("native_layer_norm_1"));
        // The files it wrote.
        const json t = json::parse(slurp(trace), nullptr, false);
        QVERIFY(!t.is_discarded());
        QCOMPARE(t.at("traceEvents").size(), nodes.size() + 2); // + one per region
        const std::string table = slurp(csv);
        QCOMPARE(std::size_t(std::count(table.begin(), table.end(), '\n')), 1 + nodes.size() + 2);
        const json p = json::parse(slurp(saved), nullptr, false);
        QCOMPARE(p.at("schema").get<std::string>(), std::string("fxscope-runtime-profile"));
        QCOMPARE(p.at("nodes").size(), nodes.size());
    }

    void compiledRegionsCarryTheirSpread()
    {
        // resnet18_infer with automatic regions, compiled and timed 5 times each.
        auto r = runCli({"profile", graphFixture("resnet18_infer"), "--auto", "--json", "--repeat",
                         "5"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        int compiled = 0;
        for (const auto& region : j.at("regions")) {
            if (region.at("compiled_ms").is_null()) {
                QCOMPARE(region.at("compiled_median_ms").get<double>(), 0.0);
                continue;
            }
            ++compiled;
            const double median = region.at("compiled_median_ms").get<double>();
            QVERIFY(median > 0);
            QVERIFY(region.at("compiled_spread_ms").get<double>() >= 0);
            // The mean of the same runs is within their range around the median.
            QVERIFY(std::abs(region.at("compiled_ms").get<double>() - median) <=
                    region.at("compiled_spread_ms").get<double>() + 1e-9);
        }
        QVERIFY(compiled > 0);
    }

    void wholeGraphCompiledTotal()
    {
        QTemporaryDir dir;
        const QString graph = QStringLiteral(FXSCOPE_TEST_DATA "/compile/two_regions_fw.txt");
        const QString saved = dir.filePath("p.json");
        auto r = runCli({"profile", graph, "--json", "--repeat", "3", "--cache",
                         dir.filePath("cache.db"), "--save", saved});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QVERIFY2(j.contains("compiled_total"), r.out.left(2000).constData());
        const auto& t = j.at("compiled_total");
        const double median = t.at("median_ms").get<double>();
        const double lo = t.at("min_ms").get<double>();
        const double hi = t.at("max_ms").get<double>();
        QVERIFY(median > 0 && lo <= median && median <= hi);
        QCOMPARE(t.at("spread_ms").get<double>(), hi - lo);
        // Eager timed in the same rounds.
        const auto& e0 = j.at("eager_total");
        QVERIFY(e0.at("min_ms").get<double>() <= e0.at("median_ms").get<double>());
        QVERIFY(e0.at("median_ms").get<double>() <= e0.at("max_ms").get<double>());
        // Used: the regions that compiled (hit or miss); a fallback runs eagerly.
        QCOMPARE(j.at("regions").size(), std::size_t{2});
        int compiled = 0;
        for (const auto& region : j.at("regions")) {
            const std::string state = region.at("compile_state");
            compiled += state == "hit" || state == "miss" ? 1 : 0;
        }
        QCOMPARE(j.at("regions_used").get<int>(), compiled);
        QVERIFY(!j.contains("device_ms")); // the CPU
        // The saved profile (version 2) carries it too.
        const json p = json::parse(slurp(saved), nullptr, false);
        QCOMPARE(p.at("version").get<int>(), 2);
        QCOMPARE(p.at("compiled_graph").at("total").at("median_ms").get<double>(), median);
        QCOMPARE(p.at("compiled_graph").at("regions_used").get<int>(), compiled);
        QCOMPARE(p.at("compiled_graph").at("regions_total").get<int>(), 2);
        // The text output has the comparison line.
        auto text = runCli({"profile", graph, "--repeat", "1", "--cache",
                            dir.filePath("cache.db")});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(text.out.contains("whole graph: eager "), text.out.constData());
        QVERIFY(text.out.contains(" of 2 regions used"));
        // --eager-only: not measured, and the notes say so.
        auto eager = runCli({"profile", graph, "--json", "--repeat", "1", "--eager-only"});
        QVERIFY2(eager.exitCode == 0, eager.err.constData());
        const json e = json::parse(eager.out.toStdString(), nullptr, false);
        QVERIFY(!e.contains("compiled_total"));
        QVERIFY(!e.contains("regions_used"));
        QVERIFY(!e.contains("eager_total"));
        QVERIFY(e.at("notes").dump().find("whole graph compiled vs eager: not measured") !=
                std::string::npos);
    }

    void textOutputWithoutRegions()
    {
        auto r = runCli({"profile", graphFixture("resnet18_infer"), "--repeat", "1"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("convolution"));
        QVERIFY(r.out.contains("GB/s"));
    }

    // The profile by module: resnet18_infer names nothing, so its modules are the 8 BasicBlocks
    // found by repetition ("block 0" ... "block 7", as `structure` lists them); the roots and
    // what is in no module add up to every node's time and count.
    void modulesOnResNet()
    {
        auto r = runCli({"profile", graphFixture("resnet18_infer"), "--json", "--repeat", "1"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        const auto& modules = j.at("modules");
        QCOMPARE(modules.size(), std::size_t{8});
        double nodeMs = 0.0;
        for (const auto& n : j.at("nodes")) {
            nodeMs += n.at("eager_ms").get<double>();
        }
        const auto& rest = j.at("unassigned_to_module");
        double ms = rest.at("eager_ms").get<double>();
        double share = rest.at("share").get<double>();
        std::size_t count = rest.at("nodes").get<std::size_t>();
        for (std::size_t k = 0; k < modules.size(); ++k) {
            const auto& m = modules[k];
            QCOMPARE(m.at("path").get<std::string>(), "block " + std::to_string(k));
            QCOMPARE(m.at("depth").get<int>(), 0);
            QVERIFY(m.at("nodes").get<std::size_t>() > 0);
            ms += m.at("eager_ms").get<double>();
            share += m.at("share").get<double>();
            count += m.at("nodes").get<std::size_t>();
        }
        QVERIFY(qFuzzyCompare(ms, nodeMs));
        QVERIFY(qFuzzyCompare(share, 1.0));
        QCOMPARE(count, j.at("nodes").size());
        // Identical blocks do the same work.
        QCOMPARE(modules[0].at("flops").get<double>(), modules[1].at("flops").get<double>());
        QVERIFY(modules[0].at("flops").get<double>() > 0);
    }

    void tracedModuleWithRealInputs()
    {
        // A traced .pt carries no input shapes: --inputs gives them (make_modules.py: Mlp is
        // linear, gelu, linear, softmax on x of 5 x 8).
        const QString dir = QStringLiteral(FXSCOPE_TEST_DATA "/torchscript/");
        auto without = runCli({"profile", dir + "mlp.pt", "--repeat", "1", "--json"});
        QVERIFY(without.exitCode != 0);
        QVERIFY(without.err.contains("'x'"));
        auto r = runCli({"profile", dir + "mlp.pt", "--inputs", dir + "mlp_inputs.pt",
                         "--eager-only", "--repeat", "2", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        std::vector<std::string> targets;
        for (const auto& n : j.at("nodes")) {
            targets.push_back(n.at("target").get<std::string>());
            QVERIFY(n.at("eager_ms").get<double>() > 0);
        }
        QCOMPARE(targets, (std::vector<std::string>{"aten::linear.default", "aten::gelu.default",
                                                    "aten::linear.default",
                                                    "aten::softmax.int"}));
    }

    void badArguments()
    {
        QCOMPARE(runCli({"profile", "/nonexistent/graph.txt"}).exitCode, 2);
        QVERIFY(runCli({"profile", graphFixture("resnet18_infer"), "--repeat", "0"}).exitCode !=
                0);
        QVERIFY(runCli({"profile", graphFixture("resnet18_infer"), "--auto", "--project",
                        "x.fxscope"})
                    .exitCode != 0);
    }
};

QTEST_GUILESS_MAIN(TestCliProfile)
#include "tst_cli_profile.moc"

FXSCOPE_TEST_END
