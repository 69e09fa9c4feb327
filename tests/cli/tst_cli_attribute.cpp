// fxscope-cli attribute end to end on the real round-3 recordings (tests/data/runtime: the H200
// GPT-4 training step and ResNet-18 inference, TORCH_TRACE log gzip'd, profile as recorded).
// Expected figures come from an independent Python pass over the trace JSON, not from fxscope:
// total kernel time 4226.575 us (GPT, 693 kernels) and 1847.671 us (ResNet, 183 kernels); the
// ResNet's largest call site is conv1, the kernels launched inside the first aten::convolution
// of each CompiledFxGraph call, 317.47 us over 3 calls. tests/data/runtime/check_totals.py.
#include "core/cache/cache_store.h"
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>

FXSCOPE_TEST_BEGIN

using nlohmann::json;
using fxs::test::runCli;

namespace {

const QString kData = QStringLiteral(FXSCOPE_TEST_DATA "/runtime/");

json parse(const QByteArray& out)
{
    return json::parse(out.toStdString(), nullptr, false);
}

const json* regionById(const json& j, const std::string& id)
{
    for (const auto& r : j.at("regions")) {
        if (r.at("id") == id) {
            return &r;
        }
    }
    return nullptr;
}

QStringList ids(const json& rows)
{
    QStringList out;
    for (const auto& r : rows) {
        out << QString::fromStdString(r.at("id").get<std::string>());
    }
    return out;
}

bool writeText(const QString& path, const QByteArray& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

double sumOf(const json& rows)
{
    double s = 0;
    for (const auto& r : rows) {
        s += r.at("us").get<double>();
    }
    return s;
}

} // namespace

class TestCliAttribute : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void resnetDirectory()
    {
        // The directory holds the log and the profile: the profile is found by sniffing.
        auto r = runCli({"attribute", kData + "resnet18_infer", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = parse(r.out);
        QVERIFY(!j.is_discarded());
        QCOMPARE(j.at("device").get<std::string>(), std::string("NVIDIA H200"));
        QCOMPARE(j.at("steps").get<int>(), 3);
        QVERIFY(std::abs(j.at("total_kernel_us").get<double>() - 1847.671) < 1e-3);
        const auto& top = j.at("kernels").at(0);
        QCOMPARE(top.at("handle").get<std::string>(), std::string("extern_kernels.convolution:3"));
        QVERIFY(std::abs(top.at("us").get<double>() - 317.47) < 1e-3);
        QCOMPARE(top.at("calls").get<int>(), 3);
        QCOMPARE(top.at("modules"), json::array({"conv1"}));
        QCOMPARE(j.at("graphs").at(0).at("kind").get<std::string>(), std::string("inference"));
        QVERIFY(j.at("unattributed").empty());
        QVERIFY(std::abs(sumOf(j.at("kernels")) - 1847.671) < 1e-3);
        QVERIFY(j.at("checks").at("sum_matches_total").get<bool>());
        QVERIFY(j.at("checks").at("triton_sites_without_post_grad_nodes").empty());
        for (const char* field : {"name", "handle", "graph", "calls", "us", "share", "bytes",
                                  "GBps",
                                  "pct_peak_bw", "flops", "TFLOPs", "post_grad_nodes",
                                  "pre_grad_nodes", "modules"}) {
            QVERIFY2(top.contains(field), field);
        }
        QVERIFY(j.at("modules").at(0).contains("path"));
    }

    void gptWithProfileArgument()
    {
        auto r = runCli({"attribute",
                         kData + "gpt4_train/dedicated_log_torch_trace_87z1gt5g.log.gz",
                         kData + "gpt4_train/gpt4_train_profile.json.gz", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = parse(r.out);
        const double total = j.at("total_kernel_us").get<double>();
        QVERIFY(std::abs(total - 4226.575) < 1e-3);
        QVERIFY(std::abs(sumOf(j.at("kernels")) + sumOf(j.at("unattributed")) - total) <
                0.001 * total);
        std::map<std::string, std::string> kinds;
        for (const auto& g : j.at("graphs")) {
            kinds[g.at("key").get<std::string>()] = g.at("kind").get<std::string>();
        }
        const std::string forward = "fc6vxzb72pjo6jz5ljsq6daxig5eeeaawvxpxspd4aqh2exwk4x5";
        const std::string backward = "f4vm47dv5j2qqcrer3ce53jb33ctnvl4g7rv5pgv6aysl56qmth3";
        QCOMPARE(kinds[forward], std::string("forward"));
        QCOMPARE(kinds[backward], std::string("backward"));
    }

    void tableAndInspect()
    {
        auto r = runCli({"attribute", kData + "resnet18_infer", "--top", "3"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("extern_kernels.convolution:3"));
        QCOMPARE(r.out.count("\n"), 2 + 3 + 1); // header lines, 3 rows, the check line
        auto i = runCli({"inspect", kData + "gpt4_train/gpt4_train_profile.json.gz", "--json"});
        QVERIFY2(i.exitCode == 0, i.err.constData());
        const json p = parse(i.out).at("profile_traces").at(0);
        QCOMPARE(p.at("kind").get<std::string>(), std::string("profiler_trace"));
        QCOMPARE(p.at("kernels").get<int>(), 693);
        QCOMPARE(p.at("compiled_graph_calls").get<int>(), 6);
    }

    // Recorded for this work (tools/record/rec_vit_bf16.py, H200, PyTorch 2.11): a bf16 ViT
    // training step with cuDNN attention and AdamW. Python over the trace: 915 kernels,
    // 3569.178 us; every kernel joined, every Triton site of both graphs has post-grad nodes
    // (the backward's from the output code's comments: its node mapping is logged empty).
    void vitBf16Training()
    {
        auto r = runCli({"attribute", kData + "vit_bf16_train", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = parse(r.out);
        QVERIFY(std::abs(j.at("total_kernel_us").get<double>() - 3569.178) < 1e-3);
        QVERIFY(j.at("unattributed").empty());
        QVERIFY(j.at("checks").at("sum_matches_total").get<bool>());
        QVERIFY(j.at("checks").at("triton_sites_without_post_grad_nodes").empty());
        std::map<std::string, std::string> from;
        for (const auto& g : j.at("graphs")) {
            from[g.at("kind").get<std::string>()] = g.at("post_grad_nodes_from").get<std::string>();
        }
        QCOMPARE(from["forward"], std::string("cppCodeToPost"));
        QCOMPARE(from["backward"], std::string("output code comments"));
    }

    // The hand-made project over the small trace's aot_inference_graph (make_small.py): r0 =
    // {mm, add} takes half the mm site (10 µs over permute and mm) and half the Triton site
    // (4 µs over add and relu): 7 µs, both kernels crossing its boundary; r1 = {relu, permute_1,
    // addmm}: 2 + 6 = 8 µs. 32.5 µs of kernels in the trace.
    void smallProjectRegions()
    {
        QTemporaryDir tmp;
        auto r = runCli({"attribute", kData + "small/torch_trace.log", kData + "small/profile.json",
                         "--project", kData + "small/project.fxscope", "--cache",
                         tmp.filePath("none.db"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = parse(r.out);
        const json& p = j.at("project");
        QCOMPARE(p.at("graph").get<std::string>(), std::string("0/0:aot_inference_graph"));
        QCOMPARE(p.at("matched_by").get<std::string>(), std::string("sha256"));
        QVERIFY(p.at("error").is_null());
        const json* r0 = regionById(j, "r0");
        const json* r1 = regionById(j, "r1");
        QVERIFY(r0 && r1);
        QCOMPARE(r0->at("name").get<std::string>(), std::string("fc1"));
        QCOMPARE(r0->at("us").get<double>(), 7.0);
        QCOMPARE(r0->at("share").get<double>(), 7.0 / 32.5);
        QCOMPARE(r0->at("kernels").get<int>(), 2);
        QCOMPARE(r0->at("launches").get<int>(), 6);
        QCOMPARE(r0->at("shared_kernels").get<int>(), 2);
        QCOMPARE(r0->at("nodes").get<int>(), 2);
        QCOMPARE(r0->at("matched_nodes").get<int>(), 2);
        QCOMPARE(r0->at("unmatched_nodes").get<int>(), 0);
        QVERIFY(r0->at("fxscope").is_null());
        QCOMPARE(r1->at("us").get<double>(), 8.0);
        QCOMPARE(r1->at("launches").get<int>(), 4);
        QCOMPARE(r1->at("shared_kernels").get<int>(), 1);
        QCOMPARE(ids(j.at("next")), (QStringList{"r1", "r0"})); // no fxscope entry: by µs
        QVERIFY(std::abs(j.at("total_kernel_us").get<double>() - 32.5) < 1e-9);
        auto t = runCli({"attribute", kData + "small/torch_trace.log", kData + "small/profile.json",
                         "--project", kData + "small/project.fxscope", "--cache",
                         tmp.filePath("none.db")});
        QVERIFY2(t.exitCode == 0, t.err.constData());
        QVERIFY(t.out.contains("on graph 0/0:aot_inference_graph (by sha256"));
        QVERIFY(t.out.contains("compile next: r1, r0"));
    }

    void projectGraphNotInTrace()
    {
        QTemporaryDir tmp;
        auto r = runCli({"attribute", kData + "small/torch_trace.log", kData + "small/profile.json",
                         "--project", kData + "small/project_elsewhere.fxscope", "--cache",
                         tmp.filePath("none.db"), "--json"});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("is not in the TORCH_TRACE log"), r.err.constData());
        QVERIFY2(r.err.contains("none of the log's 3 graphs"), r.err.constData());
        const json j = parse(r.out); // the attribution itself is still printed
        QVERIFY(j.at("regions").empty());
        QVERIFY(!j.at("project").at("error").is_null());
        QVERIFY(!j.at("kernels").empty());
    }

    // fxscope's own cost of the same regions: compiled here (CPU, one timed run, so nothing is
    // judged slower), then read back from the cache by the region's canonical digest; with
    // --compiled, a compile output's timings win over the cache's entry.
    void fxscopeCostsBesideInductor()
    {
        QTemporaryDir tmp;
        const QString cache = tmp.filePath("cache.db");
        auto c = runCli({"compile", kData + "small/torch_trace.log", "--graph",
                         "0/0:aot_inference_graph", "--project", kData + "small/project.fxscope",
                         "--cache", cache, "--repeat", "1", "--json"});
        QVERIFY2(c.exitCode == 0, c.err.constData());
        const QStringList base = {"attribute", kData + "small/torch_trace.log",
                                  kData + "small/profile.json", "--project",
                                  kData + "small/project.fxscope", "--cache", cache, "--json"};
        auto r = runCli(base);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        json j = parse(r.out);
        QCOMPARE(j.at("project").at("cache").get<std::string>(), cache.toStdString());
        for (const char* id : {"r0", "r1"}) {
            const json& fx = regionById(j, id)->at("fxscope");
            QVERIFY2(fx.is_object(), id);
            QCOMPARE(fx.at("source").get<std::string>(), std::string("cache"));
            QCOMPARE(fx.at("state").get<std::string>(), std::string("verified"));
            QCOMPARE(fx.at("target").get<std::string>(), std::string("host"));
            QCOMPARE(fx.at("entries").get<int>(), 1);
            QVERIFY(fx.at("wins").get<bool>());
            QVERIFY(fx.at("compiled_ms").is_null()); // a kept entry stores no timings
        }
        QVERIFY(j.at("next").empty());
        // The entry of r1 judged slower than eager later, as `compile` marks it (its timings
        // in the status reason): it no longer wins and is next.
        std::string r1Key;
        const json compileOut = parse(c.out);
        for (const auto& reg : compileOut.at("regions")) {
            r1Key = reg.at("id") == "r1" ? reg.at("key").get<std::string>() : r1Key;
        }
        {
            fxs::cache::StoreOptions so;
            so.path = cache.toStdString();
            auto store = fxs::cache::CacheStore::open(so);
            QVERIFY(store.ok());
            QVERIFY((*store)->markBad(r1Key, fxs::cache::Reason::SlowerThanEager,
                                      "compiled 0.211 ms (spread 0.004) vs eager 0.082 ms "
                                      "(spread 0.002)")
                        .ok());
        }
        r = runCli(base);
        j = parse(r.out);
        const json& slow = regionById(j, "r1")->at("fxscope");
        QCOMPARE(slow.at("state").get<std::string>(), std::string("bad"));
        QCOMPARE(slow.at("reason").get<std::string>(), std::string("slower_than_eager"));
        QCOMPARE(slow.at("compiled_ms").get<double>(), 0.211);
        QCOMPARE(slow.at("eager_ms").get<double>(), 0.082);
        QVERIFY(!slow.at("wins").get<bool>());
        QCOMPARE(ids(j.at("next")), QStringList{"r1"});
        const QByteArray compiled = R"({"regions": [
            {"id": "r0", "state": "hit", "reason": "hit", "headline": "hit", "target": "host",
             "compile_ms": 1.5, "eager_ms": 0.02, "compiled_ms": 0.01},
            {"id": "r1", "state": "fallback", "reason": "slower_than_eager", "headline": "f",
             "target": "host", "compile_ms": 0.5, "eager_ms": 0.03, "compiled_ms": 0.03},
            {"id": "r2", "nodes": 7, "state": "hit", "eager_ms": 1, "compiled_ms": 0.1}]})";
        QVERIFY(writeText(tmp.filePath("compile.json"), compiled));
        r = runCli(base + QStringList{"--compiled", tmp.filePath("compile.json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        j = parse(r.out);
        const json& fx0 = regionById(j, "r0")->at("fxscope");
        QCOMPARE(fx0.at("source").get<std::string>(), std::string("compile_json"));
        QCOMPARE(fx0.at("compiled_ms").get<double>(), 0.01);
        QCOMPARE(fx0.at("eager_ms").get<double>(), 0.02);
        QVERIFY(fx0.at("wins").get<bool>());
        const json& fx1 = regionById(j, "r1")->at("fxscope");
        QCOMPARE(fx1.at("reason").get<std::string>(), std::string("slower_than_eager"));
        QVERIFY(!fx1.at("wins").get<bool>());
        QCOMPARE(ids(j.at("next")), QStringList{"r1"});
        QCOMPARE(j.at("next").at(0).at("fxscope_state").get<std::string>(),
                 std::string("fallback"));
        // Another project's r0 (5 nodes there, 2 here) is not this r0.
        const QByteArray other = R"({"regions": [
            {"id": "r0", "nodes": 5, "state": "hit", "eager_ms": 1, "compiled_ms": 0.1}]})";
        QVERIFY(writeText(tmp.filePath("other.json"), other));
        r = runCli(base + QStringList{"--compiled", tmp.filePath("other.json")});
        j = parse(r.out);
        QCOMPARE(regionById(j, "r0")->at("fxscope").at("source").get<std::string>(),
                 std::string("cache"));
        QVERIFY(r.out.contains("region r0 has 5 nodes there"));
    }

    // A project `partition --auto` writes over the GPT's AOT forward graph, read on the real
    // trace: it names its graph by digest, and every region carries the documented fields.
    void gptProjectFields()
    {
        QTemporaryDir tmp;
        const QString log = kData + "gpt4_train/dedicated_log_torch_trace_87z1gt5g.log.gz";
        auto p = runCli({"partition", log, "--graph", "0/0:aot_forward_graph", "--auto",
                         "--save-project", tmp.filePath("p.fxscope")});
        QVERIFY2(p.exitCode == 0, p.err.constData());
        auto r = runCli({"attribute", log, kData + "gpt4_train/gpt4_train_profile.json.gz",
                         "--project", tmp.filePath("p.fxscope"), "--cache",
                         tmp.filePath("none.db"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = parse(r.out);
        QCOMPARE(j.at("project").at("matched_by").get<std::string>(), std::string("sha256"));
        QVERIFY(!j.at("regions").empty());
        double sum = 0;
        for (const auto& reg : j.at("regions")) {
            for (const char* field :
                 {"id", "name", "graph", "nodes", "matched_nodes", "unmatched_nodes",
                  "unmatched_examples", "us", "share", "kernels", "kernel_handles",
                  "shared_kernels", "launches", "fxscope"}) {
                QVERIFY2(reg.contains(field), field);
            }
            QCOMPARE(reg.at("graph").get<std::string>(), std::string("0/0:aot_forward_graph"));
            QCOMPARE(reg.at("matched_nodes").get<int>() + reg.at("unmatched_nodes").get<int>(),
                     reg.at("nodes").get<int>());
            sum += reg.at("us").get<double>();
        }
        QVERIFY(sum > 0 && sum < j.at("total_kernel_us").get<double>());
        QVERIFY(!j.at("next").empty());
        const auto& next = j.at("next");
        for (std::size_t i = 1; i < next.size(); ++i) {
            QVERIFY(next[i - 1].at("us").get<double>() >= next[i].at("us").get<double>());
        }
        // The same regions over a text whose digest the log does not hold (a printed copy):
        // matched by node names, and said so.
        QFile f(tmp.filePath("p.fxscope"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        json project = parse(f.readAll());
        project["source"]["sha256"] = std::string(64, '0');
        QVERIFY(writeText(tmp.filePath("printed.fxscope"),
                          QByteArray::fromStdString(project.dump())));
        auto n = runCli({"attribute", log, kData + "gpt4_train/gpt4_train_profile.json.gz",
                         "--project", tmp.filePath("printed.fxscope"), "--cache",
                         tmp.filePath("none.db"), "--json"});
        QVERIFY2(n.exitCode == 0, n.err.constData());
        QVERIFY2(n.err.contains("matched by node names to 0/0:aot_forward_graph"),
                 n.err.constData());
        const json byNames = parse(n.out);
        QCOMPARE(byNames.at("project").at("matched_by").get<std::string>(),
                 std::string("node_names"));
        QCOMPARE(byNames.at("regions"), j.at("regions"));
    }

    // The 6-layer BERT training step (tools/record/rec_bert_vit.py): PyTorch recorded its
    // `## Call CompiledFxGraph` calls as cpu_op events, not user_annotation. Python over the
    // trace: 1110 kernels, 8213.212 us; those launched inside the forward's calls 2237.182 us,
    // the backward's 4772.326 us (same thread, time containment).
    void bertGraphCallsAsCpuOps()
    {
        const QString dir = kData + "bert6_train";
        auto r = runCli({"attribute", dir, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = parse(r.out);
        QVERIFY(std::abs(j.at("total_kernel_us").get<double>() - 8213.212) < 1e-3);
        std::map<std::string, double> us;
        for (const auto& g : j.at("graphs")) {
            us[g.at("kind").get<std::string>()] = g.at("us").get<double>();
        }
        QVERIFY(std::abs(us["forward"] - 2237.182) < 1e-3);
        QVERIFY(std::abs(us["backward"] - 4772.326) < 1e-3);
        QVERIFY(j.at("checks").at("sum_matches_total").get<bool>());
        // Regions over its AOT backward graph: named by post-grad node (from the output code's
        // comments), and time lands on them.
        QTemporaryDir tmp;
        const QString log = dir + "/dedicated_log_torch_trace__gts3e64.log.gz";
        auto p = runCli({"partition", log, "--graph", "0/0:aot_backward_graph", "--auto",
                         "--save-project", tmp.filePath("bw.fxscope")});
        QVERIFY2(p.exitCode == 0, p.err.constData());
        auto b = runCli({"attribute", log, dir + "/bert_train_profile.json.gz", "--project",
                         tmp.filePath("bw.fxscope"), "--cache", tmp.filePath("none.db"),
                         "--json"});
        QVERIFY2(b.exitCode == 0, b.err.constData());
        const json bw = parse(b.out);
        QCOMPARE(bw.at("project").at("graph").get<std::string>(),
                 std::string("0/0:aot_backward_graph"));
        const double regionUs = sumOf(bw.at("regions"));
        QVERIFY(regionUs > 0 && regionUs <= us["backward"] + 1e-6);
    }

    void cutTraceIsAnError()
    {
        auto r = runCli({"attribute", kData + "small/torch_trace.log",
                         kData + "small/cut/profile_cut.json.gz", "--json"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("truncated"));
        QVERIFY(r.err.contains("kept 11 events"));
        const json j = parse(r.out);
        QVERIFY(!j.at("trace").at("error").is_null());
    }
};

QTEST_GUILESS_MAIN(TestCliAttribute)
#include "tst_cli_attribute.moc"

FXSCOPE_TEST_END
