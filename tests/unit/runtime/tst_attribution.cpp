// The kernel join on hand-made data (tests/data/runtime/make_small.py): one Inductor graph
// fc1 → relu → fc2 (batch 8, 16 → 32 → 4) called twice, an optimizer kernel, a kernel without
// launch and a call of a graph the log does not hold. Every expected figure is worked out by
// hand in the comments from the generator's numbers.
#include "core/io/torch_trace_reader.h"
#include "core/runtime/attribution.h"
#include "core/runtime/event_splitter.h"
#include "core/runtime/profile_trace_reader.h"
#include "tests/test_file.h"

#include "core/util/file_reader.h"

#include <QtTest>

#include <cstring>
#include <map>

FXSCOPE_TEST_BEGIN

using namespace fxs::runtime;

namespace {

const std::string kSmall = std::string(FXSCOPE_TEST_DATA) + "/runtime/small/";
const std::string kKey = "ftestgraphkeyaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

const KernelRow* row(const Attribution& a, const std::string& handle)
{
    for (const auto& k : a.kernels) {
        if (k.handle == handle) {
            return &k;
        }
    }
    return nullptr;
}

Attribution smallAttribution(const std::string& profile)
{
    const auto r = readProfileTrace(kSmall + profile);
    if (r.error) {
        qWarning("%s", r.error->toString().c_str());
    }
    const auto run = fxs::io::readTorchTracePath(kSmall + "torch_trace.log");
    return attribute(r.trace, collectProvenance(run.run));
}

} // namespace

class TestAttribution : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A trace that records each graph call twice — a user_annotation and a cpu_op of the same
    // name, as PyTorch does one or the other — has as many calls as one that records it once:
    // the two calls of the small profile plus one more, without launches, at 9000.
    void callRecordedTwiceIsOneCall()
    {
        auto text = fxs::readFile(kSmall + "profile.json");
        QVERIFY(text.ok());
        const std::string name = "## Call CompiledFxGraph " + kKey + " ##";
        auto event = [&](const char* cat, int ts) {
            return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" +
                   name + "\", \"pid\": 1, \"tid\": 10, \"ts\": " + std::to_string(ts) +
                   ", \"dur\": 100},";
        };
        const std::string head = "\"traceEvents\": [";
        const auto at = text->find(head);
        QVERIFY(at != std::string::npos);
        text->insert(at + head.size(), event("cpu_op", 1000) + event("cpu_op", 3000) +
                                           event("user_annotation", 9000) +
                                           event("cpu_op", 9000));
        const auto r = readProfileTraceText(*text, "twice.json");
        QVERIFY(!r.error);
        const auto run = fxs::io::readTorchTracePath(kSmall + "torch_trace.log");
        const Attribution a = attribute(r.trace, collectProvenance(run.run));
        std::int64_t calls = 0;
        for (const auto& g : a.graphs) {
            calls += g.key == kKey ? g.calls : 0;
        }
        QCOMPARE(calls, std::int64_t(3));
        QCOMPARE(a.steps, 3);
        QCOMPARE(row(a, "extern_kernels.mm:1")->us, 10.0); // the join itself is unchanged
        QCOMPARE(row(a, "extern_kernels.mm:1")->calls, std::int64_t(2));
        QVERIFY(a.sumCheckOk);
    }

    void provenanceOfTheLog()
    {
        const auto run = fxs::io::readTorchTracePath(kSmall + "torch_trace.log");
        const auto prov = collectProvenance(run.run);
        QCOMPARE(prov.graphs.size(), std::size_t(1));
        const auto& g = prov.graphs[0];
        QCOMPARE(g.key, kKey);
        QCOMPARE(g.kind, std::string("inference"));
        QCOMPARE(g.compileId.toString(), std::string("0/0"));
        QCOMPARE(g.sites.size(), std::size_t(3));
        QCOMPARE(g.sites[1].handle(), std::string("triton_poi_fused_add_relu_0:2"));
        QVERIFY(g.sites[1].triton);
        QVERIFY(!g.sites[0].triton);
        QVERIFY(g.postGrad && g.preGrad);
        QCOMPARE(prov.tritonInfo.at("triton_poi_fused_add_relu_0").compileTimeUs, 1234);
    }

    void kernelsNodesModules()
    {
        const auto a = smallAttribution("profile.json");
        // 2 calls x (4 + 1 + 2 + 3) + optimizer 5 + orphan 0.5 + unknown graph 7.
        QCOMPARE(a.totalKernelUs, 32.5);
        QCOMPARE(a.attributedUs, 25.0);
        QVERIFY(a.sumCheckOk);
        QVERIFY(a.tritonWithoutNodes.empty());
        QCOMPARE(a.steps, 2);
        QCOMPARE(a.device, std::string("NVIDIA H100 80GB HBM3"));
        QVERIFY(a.peaks && a.peaks->bytesPerSec == 3.35e12);
        // Both kernels of the one aten::mm are call site 1, whatever their names.
        const auto* mm = row(a, "extern_kernels.mm:1");
        QVERIFY(mm);
        QCOMPARE(mm->us, 10.0);
        QCOMPARE(mm->calls, 2);
        QCOMPARE(mm->launches, 4);
        QCOMPARE(mm->name, std::string("sm90_xmma_gemm_f32f32_a + splitKreduce_kernel"));
        QCOMPARE(*mm->flops, 8192.0); // 2 * 8 * 16 * 32
        QCOMPARE(mm->modules, std::vector<std::string>{"fc1"});
        QVERIFY(mm->split);
        const auto* addmm = row(a, "extern_kernels.addmm:3");
        QVERIFY(addmm);
        QCOMPARE(*addmm->flops, 2048.0); // 2 * 8 * 32 * 4
        QCOMPARE(addmm->modules, std::vector<std::string>{"fc2"});
        const auto* tri = row(a, "triton_poi_fused_add_relu_0:2");
        QVERIFY(tri);
        // Reads mm (8*32*4 = 1024 B) and arg1_1 (32*4 = 128 B), writes relu (1024 B).
        QCOMPARE(*tri->bytes, 2176.0);
        QCOMPARE(tri->preNodes, (std::vector<std::string>{"linear", "relu"}));
        QCOMPARE(tri->autotune, std::string("only 1 config"));
        // Outside compiled graphs: the enclosing annotation names it.
        const KernelRow* opt = nullptr;
        for (const auto& k : a.kernels) {
            opt = k.op == "Optimizer.step#SGD.step" ? &k : opt;
        }
        QVERIFY(opt && opt->us == 5.0 && opt->handle.empty());
        // Nodes split evenly: mm:1's 10 us over permute and mm; the Triton 4 us over add, relu.
        double relu = -1, mmNode = -1;
        for (const auto& n : a.nodes) {
            relu = n.name == "relu" ? n.us : relu;
            mmNode = n.name == "mm" ? n.us : mmNode;
        }
        QCOMPARE(relu, 2.0);
        QCOMPARE(mmNode, 5.0);
        // fc1: mm:1 (10) + add's half of the Triton kernel (2); fc2: addmm:3 (6).
        QCOMPARE(a.modules.size(), std::size_t(2));
        QCOMPARE(a.modules[0].path, std::string("fc1"));
        QCOMPARE(a.modules[0].us, 12.0);
        QCOMPARE(a.modules[1].us, 6.0);
    }

    void unattributedIsSaid()
    {
        const auto a = smallAttribution("profile.json");
        QCOMPARE(a.unattributed.size(), std::size_t(2));
        std::map<std::string, double> byReason;
        for (const auto& u : a.unattributed) {
            byReason[u.reason] = u.us;
        }
        QCOMPARE(byReason["graph fmissinggraph is not in the TORCH_TRACE log"], 7.0);
        QCOMPARE(byReason["no launch event with the kernel's correlation id"], 0.5);
    }

    void gzipGivesTheSame()
    {
        const auto a = smallAttribution("profile.json.gz");
        QCOMPARE(a.totalKernelUs, 32.5);
        QCOMPARE(a.kernels.size(), std::size_t(4));
    }

    void cutGzipKeepsItsEvents()
    {
        const auto r = readProfileTrace(kSmall + "cut/profile_cut.json.gz");
        QVERIFY(r.error.has_value());
        QCOMPARE(r.error->code, fxs::ErrorCode::Parse);
        QVERIFY(r.trace.eventsRead > 0);
        QVERIFY(r.trace.eventsRead < 30);
        QCOMPARE(r.trace.devices.size(), std::size_t(1));
    }

    // The splitter gives the same elements whatever the pieces the bytes come in.
    void piecesDoNotMatter()
    {
        const auto whole = fxs::readFile(kSmall + "profile.json");
        QVERIFY(whole.ok());
        auto split = [&](std::size_t piece) {
            std::vector<std::string> got;
            EventSplitter s(
                "p", 1 << 20,
                [&](std::string_view j) {
                    got.emplace_back(j);
                    return true;
                },
                            [&](std::string_view k, std::string_view j) {
                                got.push_back(std::string(k) + "=" + std::string(j));
                                return true;
                            });
            std::vector<char> buf(piece + EventSplitter::kReadablePadding);
            for (std::size_t at = 0; at < whole->size(); at += piece) {
                const std::size_t n = std::min(piece, whole->size() - at);
                std::memcpy(buf.data(), whole->data() + at, n);
                if (!s.feed(buf.data(), n)) {
                    return std::vector<std::string>{"error"};
                }
            }
            if (!s.finish()) {
                got.push_back("unfinished");
            }
            return got;
        };
        const auto reference = split(whole->size());
        QCOMPARE(reference.size(), std::size_t(3 + 32)); // 3 top-level values, 32 events
        for (std::size_t piece : {1, 2, 3, 7, 64, 1000}) {
            QCOMPARE(split(piece), reference);
        }
    }
};

QTEST_GUILESS_MAIN(TestAttribution)
#include "tst_attribution.moc"

FXSCOPE_TEST_END
