// Nested-region plans from module trees: the GPT trace's Dynamo graph (4 blocks s.blocks.0-3,
// 23 nodes each, counted by hand in tst_structure_fixtures), the 24-layer LLaMA trace, the
// 2-block GPT `.pt2` whose nn_module_stack names the class (__main__.Block, checked by hand in
// tst_pt2_reader), ResNet-18 (identical blocks only in layer1; layer2-4 start with a
// downsampling block), graphs without repetition, and the plan file's JSON.
#include "core/io/pt2_reader.h"
#include "core/io/torch_trace_reader.h"
#include "core/structure/nested_plan.h"
#include "core/structure/structure.h"
#include "tests/test_file.h"
#include "tests/unit/structure/synthetic_graphs.h"
#include "tests/data/run_graphs.h"

#include <nlohmann/json.hpp>

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::structure;
using nlohmann::json;

namespace {

const std::string kData = FXSCOPE_TEST_DATA;

using testdata::graphIndex;

std::vector<std::string> numbered(const std::string& prefix, int n)
{
    std::vector<std::string> out;
    for (int k = 0; k < n; ++k) {
        out.push_back(prefix + std::to_string(k));
    }
    return out;
}

// The plan of a trace's Dynamo graph, with the graph kept alive for the caller.
struct TracePlan {
    io::TraceReadResult read;
    graph::GraphPtr graph;
    NestedPlan plan;
};

TracePlan planOfTrace(const std::string& path, const NestedPlanOptions& options = {})
{
    TracePlan t;
    t.read = io::readTorchTracePath(path);
    const std::size_t index = graphIndex(t.read.run, "dynamo_output_graph");
    if (index == t.read.run.graphs.size()) {
        return t;
    }
    t.graph = t.read.run.graphs[index].graph;
    auto tree = recoverRunGraphStructure(t.read.run, index);
    if (tree.ok()) {
        t.plan = planNestedRegions(*t.graph, *tree, options);
    }
    return t;
}

std::vector<std::string> skippedCodes(const NestedPlan& plan)
{
    std::vector<std::string> codes;
    for (const NestedSkipped& s : plan.skipped) {
        codes.emplace_back(nestedSkipCode(s.reason));
    }
    return codes;
}

// Three residual blocks whose call nodes carry nn_module_stack frames blocks.K of class
// types[K] under a root of class m.Net.
graph::GraphPtr exportedBlocks(const std::vector<std::string>& types)
{
    auto g = test::residualStack(std::vector<int>(types.size(), 8),
                                 [](std::size_t k) { return "w" + std::to_string(k); });
    graph::GraphBuilder b;
    for (graph::Node n : g->nodes()) {
        const std::size_t under = n.name.rfind('_');
        if (n.isCallFunction() && under != std::string::npos) {
            const std::size_t k = std::stoul(n.name.substr(under + 1));
            n.moduleStack = {{"", "", "m.Net"}, {"k" + std::to_string(k),
                              "blocks." + std::to_string(k), types.at(k)}};
        }
        n.users.clear();
        n.inputs.clear();
        b.add(std::move(n));
    }
    return *b.build();
}

} // namespace

class TestNestedPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void gptTraceOneRegionOfFourBlocks()
    {
        const TracePlan t = planOfTrace(kData + "/fixtures/traces/gpt_cold");
        QVERIFY(t.graph);
        const NestedPlan& plan = t.plan;
        QCOMPARE(plan.source, Source::Names);
        QCOMPARE(plan.regions.size(), std::size_t(1));
        const NestedRegion& r = plan.regions[0];
        QCOMPARE(r.id, std::string("n0"));
        QCOMPARE(r.instances, numbered("s.blocks.", 4));
        QCOMPARE(r.nodesEach, std::size_t(23)); // 12 parameters + 11 statements, by hand
        QCOMPARE(r.parent, std::string("s.blocks"));
        QVERIFY(r.moduleClass.empty()); // a printed Dynamo graph names no classes
        QCOMPARE(plan.instanceCount(), std::size_t(4));
        // ln1 and ln2 of block 0 are identical too, but inside the region's first instance.
        QCOMPARE(plan.skipped.size(), std::size_t(1));
        QCOMPARE(plan.skipped[0].reason, NestedSkip::InsideRegion);
        QCOMPARE(plan.skipped[0].modules,
                 (std::vector<std::string>{"s.blocks.0.ln1", "s.blocks.0.ln2"}));
        QVERIFY(plan.skipped[0].message.find("s.blocks.0") != std::string::npos);
    }

    void llamaTwentyFourLayers()
    {
        const TracePlan t = planOfTrace(kData + "/recorded/traces/llama24.log.gz");
        QVERIFY(t.graph);
        QCOMPARE(t.plan.regions.size(), std::size_t(1));
        const NestedRegion& r = t.plan.regions[0];
        QCOMPARE(r.instances, numbered("model.layers.", 24));
        QCOMPARE(r.parent, std::string("model.layers"));
        // More than the layer's 9 parameters; 24 layers fit in the graph with the rest.
        QVERIFY(r.nodesEach > 9 && r.nodesEach * 24 < t.graph->size());
        // The norms and the projections of equal shape are identical inside layer 0: four
        // groups, each inside the region.
        QCOMPARE(skippedCodes(t.plan), std::vector<std::string>(4, "inside_region"));
        for (const NestedSkipped& s : t.plan.skipped) {
            QCOMPARE(s.modules.size(), std::size_t(2));
            QVERIFY(s.modules[0].rfind("model.layers.0.", 0) == 0);
        }
    }

    void moduleClassFromExport()
    {
        auto read = io::readPt2(kData + "/recorded/export/gpt2_small.pt2");
        QVERIFY(read.ok());
        auto tree = recoverStructure(*read->graph);
        QVERIFY(tree.ok());
        const NestedPlan plan = planNestedRegions(*read->graph, *tree);
        QCOMPARE(plan.source, Source::ExportMetadata);
        QCOMPARE(plan.regions.size(), std::size_t(1));
        QCOMPARE(plan.regions[0].instances, numbered("blocks.", 2));
        QCOMPARE(plan.regions[0].moduleClass, std::string("__main__.Block"));
    }

    void differingClassesGiveNoClass()
    {
        auto same = exportedBlocks({"m.Block", "m.Block", "m.Block"});
        auto mixed = exportedBlocks({"m.Block", "m.Other", "m.Block"});
        NestedPlanOptions small;
        small.minNodesEach = 2; // mm, relu, sum, add per block
        auto sameTree = recoverStructure(*same);
        auto mixedTree = recoverStructure(*mixed);
        QVERIFY(sameTree.ok() && mixedTree.ok());
        QCOMPARE(sameTree->source, Source::ExportMetadata);
        const NestedPlan a = planNestedRegions(*same, *sameTree, small);
        QCOMPARE(a.regions.size(), std::size_t(1));
        QCOMPARE(a.regions[0].instances, numbered("blocks.", 3));
        QCOMPARE(a.regions[0].moduleClass, std::string("m.Block"));
        const NestedPlan b = planNestedRegions(*mixed, *mixedTree, small);
        QCOMPARE(b.regions.size(), std::size_t(1));
        QVERIFY(b.regions[0].moduleClass.empty());
        QVERIFY(b.regions[0].note.find("m.Block, m.Other") != std::string::npos);
        // With the default minimum (8 nodes each) the 4-node blocks are too small.
        const NestedPlan c = planNestedRegions(*same, *sameTree);
        QVERIFY(c.regions.empty());
        QCOMPARE(skippedCodes(c), std::vector<std::string>{"too_small"});
        QCOMPARE(c.skipped[0].modules, numbered("blocks.", 3));
    }

    void resnetDownsamplingBlocksDiffer()
    {
        const TracePlan t = planOfTrace(kData + "/recorded/traces/resnet18.log.gz");
        QVERIFY(t.graph);
        QCOMPARE(t.plan.regions.size(), std::size_t(1));
        QCOMPARE(t.plan.regions[0].instances, numbered("layer1.", 2));
        std::vector<std::vector<std::string>> differing;
        for (const NestedSkipped& s : t.plan.skipped) {
            if (s.reason == NestedSkip::NotIdentical) {
                differing.push_back(s.modules);
            }
        }
        // Block 0 of layer2-4 downsamples; the downsample Sequential's conv and bn are layers,
        // not blocks, and are not reported.
        QCOMPARE(differing, (std::vector<std::vector<std::string>>{numbered("layer2.", 2),
                                                                  numbered("layer3.", 2),
                                                                  numbered("layer4.", 2)}));
    }

    void noRepetition()
    {
        // Dynamo-named blocks of differing widths: modules, none identical.
        auto g = test::residualStack({8, 16, 32}, [](std::size_t k) {
            return "L_self_modules_blocks_modules_" + std::to_string(k) + "_parameters_w_";
        });
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Names);
        const NestedPlan plan = planNestedRegions(*g, *tree);
        QVERIFY(plan.regions.empty());
        QCOMPARE(skippedCodes(plan), (std::vector<std::string>{"no_repetition"}));
        QVERIFY(plan.skipped[0].modules.empty());
        // The small exported MLP (fc1, ln, fc2): the same.
        auto read = io::readPt2(kData + "/fixtures/export/small_mlp.pt2");
        QVERIFY(read.ok());
        auto mlpTree = recoverStructure(*read->graph);
        QVERIFY(mlpTree.ok());
        const NestedPlan mlp = planNestedRegions(*read->graph, *mlpTree);
        QVERIFY(mlp.regions.empty());
        QCOMPARE(skippedCodes(mlp), (std::vector<std::string>{"no_repetition"}));
    }

    void unnamedGraphs()
    {
        // Identical blocks without names: found by repetition, but "block N" is no module path.
        auto bare = test::residualStack({8, 8, 8}, [](std::size_t k) {
            return "arg" + std::to_string(k);
        });
        auto tree = recoverStructure(*bare);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Repetition);
        const NestedPlan plan = planNestedRegions(*bare, *tree);
        QVERIFY(plan.regions.empty());
        QCOMPARE(skippedCodes(plan), (std::vector<std::string>{"no_module_paths"}));
        QCOMPARE(plan.skipped[0].modules.size(), std::size_t(3));
        // Nothing at all: no modules.
        const NestedPlan none = planNestedRegions(*bare, ModuleTree{});
        QCOMPARE(skippedCodes(none), (std::vector<std::string>{"no_modules"}));
    }

    void planFileJson()
    {
        const TracePlan t = planOfTrace(kData + "/fixtures/traces/gpt_cold");
        QVERIFY(t.graph);
        const std::string text =
            nestedPlanJson(t.plan, *t.graph, {"gpt_cold", "0", std::string_view("abc")});
        const json j = json::parse(text, nullptr, false);
        QVERIFY(!j.is_discarded());
        QCOMPARE(j.at("format").get<std::string>(), std::string("fxscope-nested-plan"));
        QCOMPARE(j.at("version").get<int>(), 1);
        QCOMPARE(j.at("graph").at("path").get<std::string>(), std::string("gpt_cold"));
        QCOMPARE(j.at("graph").at("selector").get<std::string>(), std::string("0"));
        QCOMPARE(j.at("graph").at("sha256").get<std::string>(), // sha256("abc"), FIPS 180-2
                 std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(j.at("graph").at("nodes").get<std::size_t>(), t.graph->size());
        QCOMPARE(j.at("structure").at("source").get<std::string>(), std::string("names"));
        const json& r = j.at("regions").at(0);
        QCOMPARE(r.at("instances").get<std::vector<std::string>>(), numbered("s.blocks.", 4));
        QVERIFY(r.at("module_class").is_null());
        QCOMPARE(r.at("nodes_each").get<int>(), 23);
        QCOMPARE(j.at("skipped").at(0).at("reason").get<std::string>(),
                 std::string("inside_region"));
        const json noDigest = json::parse(nestedPlanJson(t.plan, *t.graph, {"g", "", {}}));
        QVERIFY(noDigest.at("graph").at("sha256").is_null());
        QVERIFY(noDigest.at("graph").at("selector").is_null());
    }
};

QTEST_MAIN(TestNestedPlan)
#include "tst_nested_plan.moc"

FXSCOPE_TEST_END
