// Higher-order bodies (graph/subgraphs) on recorded graphs: a nested_compile_region block run
// by four invoke_subgraph calls is listed once with four call sites; cond's two bodies; the
// recorded nested_compile_region TORCH_TRACE; and the graph diff naming a change inside a body.
#include "core/explain/graph_diff.h"
#include "core/graph/subgraphs.h"
#include "core/io/graph_code_parser.h"
#include "core/io/loader.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

std::string recorded(const char* relative)
{
    return std::string(FXSCOPE_TEST_DATA "/recorded/") + relative;
}

std::string text(const std::string& path)
{
    auto t = readFile(path);
    return t.ok() ? *t : std::string();
}

graph::GraphPtr parsed(const std::string& path)
{
    return io::parseGraphCode(text(path), path).graph;
}

} // namespace

class TestSubgraphs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void repeatedBodyIsListedOnceWithItsCalls()
    {
        const auto g = parsed(recorded("graphs/nested_train_graph0.txt"));
        QVERIFY(g);
        const auto subs = graph::listSubgraphs(*g);
        QCOMPARE(subs.size(), std::size_t(1));
        const auto& s = subs[0];
        QCOMPARE(s.name, std::string("partitioned_fw_subgraph_0_0"));
        QCOMPARE(s.hop, std::string("invoke_subgraph"));
        QCOMPARE(s.calls(), std::size_t(4)); // four blocks, one body
        // 7 inputs, native_layer_norm + 3 getitems, t, addmm, gelu, t_1, addmm_1, add, output.
        QCOMPARE(s.graph->size(), std::size_t(18));
        QVERIFY(s.parent.empty());
        for (const auto id : s.callSites) {
            const auto& call = g->node(id);
            QCOMPARE(call.target, std::string("higher_order.invoke_subgraph"));
            QCOMPARE(graph::bodiesCalledBy(*g, call).front(), s.graph);
        }
        QCOMPARE(g->node(s.callSites.front()).name, std::string("invoke_subgraph_8"));
        QCOMPARE(g->node(s.callSites.back()).name, std::string("invoke_subgraph_14"));
    }

    void condHasTwoBodies()
    {
        const auto g = parsed(recorded("graphs/hop_cond_aot_graph0.txt"));
        QVERIFY(g);
        const auto subs = graph::listSubgraphs(*g);
        QCOMPARE(subs.size(), std::size_t(2));
        QCOMPARE(subs[0].name, std::string("true_graph_0"));
        QCOMPARE(subs[1].name, std::string("false_graph_0"));
        for (const auto& s : subs) {
            QCOMPARE(s.hop, std::string("cond"));
            QCOMPARE(s.calls(), std::size_t(1));
            QCOMPARE(s.graph->size(), std::size_t(3));
        }
        const auto& cond = g->node(*g->find("cond"));
        QCOMPARE(graph::bodiesCalledBy(*g, cond).size(), std::size_t(2));
        QVERIFY(graph::bodiesCalledBy(*g, g->node(*g->find("gt"))).empty());
    }

    void recordedNestedTrace()
    {
        const auto r = io::loadPaths({recorded("traces/nested.log.gz")});
        QCOMPARE(r.runs.size(), std::size_t(1));
        // Every graph that calls the block's body calls it four times, once per block.
        int withBodies = 0;
        for (const auto& a : r.runs[0].graphs) {
            if (!a.graph) {
                continue;
            }
            for (const auto& s : graph::listSubgraphs(*a.graph)) {
                if (s.hop == "invoke_subgraph") {
                    ++withBodies;
                    QCOMPARE(s.calls(), std::size_t(4));
                }
            }
        }
        QVERIFY(withBodies >= 2); // the Dynamo graph and the AOT forward at least
    }

    void graphDiffNamesTheBody()
    {
        const std::string a = text(recorded("graphs/nested_train_graph0.txt"));
        std::string b = a;
        const std::string from = "gelu: \"f32[4, 128][128, 1]cuda:0\" = torch.ops.aten.gelu.default(addmm)";
        const auto at = b.find(from);
        QVERIFY(at != std::string::npos);
        b.replace(at, from.size(),
                  "gelu: \"f32[4, 128][128, 1]cuda:0\" = torch.ops.aten.relu.default(addmm)");
        const auto d = explain::diffGraphCode(a, b);
        QVERIFY(d.parsed);
        QCOMPARE(d.nodes.size(), std::size_t(1));
        const auto& ch = d.nodes[0];
        QCOMPARE(ch.name, std::string("gelu"));
        QCOMPARE(ch.body, std::string("partitioned_fw_subgraph_0_0"));
        QCOMPARE(ch.targetA, std::string("aten::gelu.default"));
        QCOMPARE(ch.targetB, std::string("aten::relu.default"));
        QCOMPARE(d.graphB->node(ch.idB).name, std::string("invoke_subgraph_8")); // first call
        QCOMPARE(d.nodesA, d.graphA->size());
    }
};

QTEST_GUILESS_MAIN(TestSubgraphs)
#include "tst_subgraphs.moc"

FXSCOPE_TEST_END
