// Structure recovery on recorded PyTorch graphs: module paths of the GPT trace's Dynamo graph
// (node counts checked against counts taken from the printed text by regex), the AOT mapping of
// its forward/backward graphs (a few parameters checked by hand against the Dynamo signature),
// repeated blocks of bare 12-layer GPT and ResNet-18 graphs.
#include "core/io/graph_code_parser.h"
#include "core/io/torch_trace_reader.h"
#include "core/structure/structure.h"
#include "core/util/file_reader.h"
#include "tests/data/run_graphs.h"
#include "tests/test_file.h"

#include <QRegularExpression>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::structure;

namespace {

const std::string kData = FXSCOPE_TEST_DATA;
const std::string kGptTrace = kData + "/fixtures/traces/gpt_cold";

using testdata::graphIndex;

graph::GraphPtr parseFile(const std::string& path)
{
    auto text = readFile(path);
    return text.ok() ? io::parseGraphCode(*text, path).graph : nullptr;
}

std::size_t countTarget(const graph::Graph& g, const std::vector<graph::NodeId>& nodes,
                        std::string_view target)
{
    std::size_t n = 0;
    for (graph::NodeId id : nodes) {
        n += g.node(id).target == target ? 1 : 0;
    }
    return n;
}

// Statements of the Dynamo GPT block k, counted in the printed text: the k-th `:72` and `:73`
// `# File:` groups of scenario.py (the block's two source lines), plus its parameters in the
// signature.
int gptBlockNodesFromText(const QString& text, int block)
{
    int statements = 0;
    int group = -1; // index of the current :72 group
    bool inBlock = false;
    for (const QString& line : text.split('\n')) {
        const QString t = line.trimmed();
        if (t.startsWith("# File:")) {
            if (t.contains("scenario.py:72 ")) {
                ++group;
            }
            inBlock = group == block && (t.contains("scenario.py:72 ") || t.contains("scenario.py:73 "));
            continue;
        }
        if (inBlock && t.contains(" = ") && !t.startsWith("return")) {
            ++statements;
        }
    }
    const QRegularExpression param(QString("\\bL_s_modules_blocks_modules_%1_\\w+:").arg(block));
    const QString signature = text.section('\n', 1, 1);
    return statements + static_cast<int>(signature.count(param));
}

} // namespace

class TestStructureFixtures : public QObject {
    Q_OBJECT

private:
    io::TraceReadResult m_gpt;

private Q_SLOTS:
    void initTestCase()
    {
        m_gpt = io::readTorchTracePath(kGptTrace);
        QVERIFY(m_gpt.readSomething);
    }

    void gptDynamoModulePaths()
    {
        const std::size_t index = graphIndex(m_gpt.run, "dynamo_output_graph");
        QVERIFY(index < m_gpt.run.graphs.size());
        auto tree = recoverRunGraphStructure(m_gpt.run, index);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Names);
        const QString text = QString::fromStdString(m_gpt.run.graphs[index].graph->text());
        const auto blocks = tree->find("s.blocks");
        QVERIFY(blocks.has_value());
        QCOMPARE(tree->module(*blocks).children.size(), std::size_t(4));
        for (int k = 0; k < 4; ++k) {
            const auto b = tree->find("s.blocks." + std::to_string(k));
            QVERIFY(b.has_value());
            QCOMPARE(int(tree->module(*b).totalNodes), gptBlockNodesFromText(text, k));
            // Blocks 1..3 are identical to block 0, and so are their attention modules.
            QCOMPARE(tree->module(*b).identicalTo, k == 0 ? kNoModule : *tree->find("s.blocks.0"));
        }
        QCOMPARE(gptBlockNodesFromText(text, 0), 23); // checked by hand: 12 parameters, 11 statements
        const auto attn3 = tree->find("s.blocks.3.attn");
        QVERIFY(attn3.has_value());
        QCOMPARE(tree->module(*attn3).identicalTo, *tree->find("s.blocks.0.attn"));
        // emb: weight + embedding; head: weight, bias + linear.
        QCOMPARE(tree->module(*tree->find("s.emb")).totalNodes, std::size_t(2));
        QCOMPARE(tree->module(*tree->find("s.head")).totalNodes, std::size_t(3));
        // The token input and the output node belong to no module.
        QCOMPARE(tree->unassigned, std::size_t(2));
        QVERIFY(tree->pathOf(*m_gpt.run.graphs[index].graph->find("l_idx_")).empty());
        QVERIFY(!tree->repeatedBlocks.empty());
        QCOMPARE(tree->repeatedBlocks.front().instances.size(), std::size_t(4));
        QCOMPARE(tree->repeatedBlocks.front().nodesEach, std::size_t(23));
    }

    // The module that holds a set of nodes (the compile results name regions by it): the
    // deepest common one; inputs in no module are left out.
    void commonModuleOfNodes()
    {
        const std::size_t index = graphIndex(m_gpt.run, "dynamo_output_graph");
        auto tree = recoverRunGraphStructure(m_gpt.run, index);
        QVERIFY(tree.ok());
        const auto attn1 = *tree->find("s.blocks.1.attn");
        const auto block1 = *tree->find("s.blocks.1");
        const auto attnNodes = tree->nodesOf(attn1);
        QVERIFY(attnNodes.size() > 2);
        QCOMPARE(tree->commonModule(attnNodes), std::optional<ModuleId>(attn1));
        const auto& g = *m_gpt.run.graphs[index].graph;
        std::vector<graph::NodeId> withInput = {attnNodes.front(), *g.find("l_idx_")};
        QCOMPARE(tree->commonModule(withInput), tree->moduleOf[attnNodes.front()]);
        // A node of block 1 outside its attention: block 1.
        std::vector<graph::NodeId> both = attnNodes;
        for (const auto n : tree->nodesOf(block1)) {
            if (!tree->isWithin(tree->moduleOf[n], attn1)) {
                both.push_back(n);
                break;
            }
        }
        QCOMPARE(tree->commonModule(both), std::optional<ModuleId>(block1));
        // Nodes of two blocks: their list.
        both.push_back(tree->nodesOf(*tree->find("s.blocks.2")).back());
        QCOMPARE(tree->commonModule(both), tree->find("s.blocks"));
        QCOMPARE(tree->commonModule({*g.find("l_idx_")}), std::optional<ModuleId>());
    }

    void gptAotForwardMapping()
    {
        const std::size_t index = graphIndex(m_gpt.run, "aot_forward_graph");
        const std::size_t dyn = graphIndex(m_gpt.run, "dynamo_output_graph");
        auto tree = recoverRunGraphStructure(m_gpt.run, index);
        auto dynamoTree = recoverRunGraphStructure(m_gpt.run, dyn);
        QVERIFY(tree.ok() && dynamoTree.ok());
        QCOMPARE(tree->source, Source::AotMapping);
        QCOMPARE(tree->strength, MatchStrength::AotTag);
        const graph::Graph& g = *m_gpt.run.graphs[index].graph;
        const graph::Graph& d = *m_gpt.run.graphs[dyn].graph;
        // Every tagged primal is mapped to the parameter its Dynamo input names.
        std::size_t mapped = 0;
        for (graph::NodeId ph : g.placeholders()) {
            const auto& tag = g.node(ph).aot;
            QVERIFY(tag && tag->kind == "PlainAOTInput");
            const InputPath* dynamoPath =
                dynamoTree->inputPath(d.placeholders().at(static_cast<std::size_t>(tag->idx)));
            const InputPath* p = tree->inputPath(ph);
            QCOMPARE(p == nullptr, dynamoPath == nullptr);
            if (p != nullptr) {
                QCOMPARE(p->path, dynamoPath->path);
                ++mapped;
            }
        }
        QCOMPARE(mapped, std::size_t(53)); // 54 inputs, one of them the token ids
        // Checked by hand against the Dynamo signature (idx 4: in_proj_bias comes before
        // in_proj_weight there; idx 10: the first MLP linear's weight; idx 52: head.weight).
        auto pathOf = [&](const char* name) { return tree->inputPath(*g.find(name))->path; };
        QCOMPARE(pathOf("primals_1"), std::string("s.emb.weight"));
        QCOMPARE(pathOf("primals_5"), std::string("s.blocks.0.attn.in_proj_bias"));
        QCOMPARE(pathOf("primals_6"), std::string("s.blocks.0.attn.in_proj_weight"));
        QCOMPARE(pathOf("primals_11"), std::string("s.blocks.0.mlp.0.weight"));
        QCOMPARE(pathOf("primals_53"), std::string("s.head.weight"));
        QVERIFY(tree->inputPath(*g.find("primals_2")) == nullptr);
        QCOMPARE(tree->module(*tree->find("s.blocks")).children.size(), std::size_t(4));
        for (int k = 1; k < 4; ++k) {
            QCOMPARE(tree->module(*tree->find("s.blocks." + std::to_string(k))).identicalTo,
                     *tree->find("s.blocks.0"));
        }
    }

    void gptAotBackwardInherits()
    {
        const std::size_t index = graphIndex(m_gpt.run, "aot_backward_graph");
        auto tree = recoverRunGraphStructure(m_gpt.run, index);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::AotMapping);
        const graph::Graph& g = *m_gpt.run.graphs[index].graph;
        // Forward parameters by name, saved tensors through the forward graph.
        QCOMPARE(tree->inputPath(*g.find("primals_6"))->path,
                 std::string("s.blocks.0.attn.in_proj_weight"));
        QCOMPARE(tree->module(*tree->find("s.blocks")).children.size(), std::size_t(4));
        QVERIFY(tree->unassigned < g.size() / 10);
    }

    void gpt12Repetition_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("forward") << "gpt12_train_fw.txt";
        QTest::newRow("backward") << "gpt12_train_bw.txt";
    }

    // A bare AOT graph of a 12-layer GPT: 12 blocks, each with one attention kernel call and
    // two layer norms (forward) or their backward kernels.
    void gpt12Repetition()
    {
        QFETCH(QString, file);
        const auto g = parseFile(kData + "/fixtures/graphs/" + file.toStdString());
        QVERIFY(g);
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Repetition);
        QVERIFY(!tree->repeatedBlocks.empty());
        const RepeatedBlock& blocks = tree->repeatedBlocks.front();
        QCOMPARE(blocks.instances.size(), std::size_t(12));
        const bool forward = file.contains("_fw");
        const std::string attention = forward ? "aten::_scaled_dot_product_efficient_attention.default"
                                              : "aten::_scaled_dot_product_efficient_attention_backward.default";
        const std::string norm = forward ? "aten::native_layer_norm.default"
                                         : "aten::native_layer_norm_backward.default";
        for (std::size_t k = 0; k < 12; ++k) {
            const ModuleId m = blocks.instances[k];
            QCOMPARE(tree->module(m).path, "block " + std::to_string(k));
            const auto nodes = tree->nodesOf(m);
            QCOMPARE(nodes.size(), blocks.nodesEach);
            QCOMPARE(countTarget(*g, nodes, attention), std::size_t(1));
            QCOMPARE(countTarget(*g, nodes, norm), std::size_t(2));
        }
    }
};

QTEST_GUILESS_MAIN(TestStructureFixtures)
#include "tst_structure_fixtures.moc"

FXSCOPE_TEST_END
