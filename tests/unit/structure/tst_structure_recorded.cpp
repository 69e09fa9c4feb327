// Structure recovery on the round-2 recorded traces: torchvision ResNet-18 (BasicBlocks per
// stage, parameters per block counted from the Dynamo signature by regex, downsample only in
// the first block of stages 2-4) and the 24/64-layer LLaMA training runs (layers named in the
// Dynamo graph, mapped onto the AOT forward/backward graphs; a few primals checked by hand;
// bare printed AOT graphs folded by repetition, and the trace's AOT graphs folded both ways).
#include "core/io/graph_code_parser.h"
#include "core/io/torch_trace_reader.h"
#include "core/structure/structure.h"
#include "core/util/file_reader.h"
#include "tests/data/run_graphs.h"
#include "tests/test_file.h"

#include <QRegularExpression>
#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::structure;

namespace {

const std::string kRecorded = std::string(FXSCOPE_TEST_DATA) + "/recorded";

using testdata::graphIndex;

// Placeholders of the printed Dynamo graph whose name starts with prefix, counted by regex in
// its signature (the second line of the printed text), not through the graph model.
int signatureInputs(const std::string& text, const QString& prefix)
{
    const QString signature = QString::fromStdString(text).section('\n', 1, 1);
    return static_cast<int>(signature.count(QRegularExpression("\\b" + prefix + "\\w*:")));
}

// Inputs of the tree whose parameter path lies in module path.
int treeInputs(const ModuleTree& tree, const std::string& path)
{
    int n = 0;
    for (const InputPath& in : tree.inputs) {
        n += in.path.rfind(path + ".", 0) == 0 ? 1 : 0;
    }
    return n;
}

// Data rows "forward" and "backward": the AOT graph kind in column "kind".
void addAotKindRows()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("forward") << "aot_forward_graph";
    QTest::newRow("backward") << "aot_backward_graph";
}

std::string child(const std::string& path, int k)
{
    return path + "." + std::to_string(k);
}

} // namespace

class TestStructureRecorded : public QObject {
    Q_OBJECT

private:
    io::TraceReadResult m_resnet;
    io::TraceReadResult m_llama24;

private Q_SLOTS:
    void initTestCase()
    {
        m_resnet = io::readTorchTracePath(kRecorded + "/traces/resnet18.log.gz");
        m_llama24 = io::readTorchTracePath(kRecorded + "/traces/llama24.log.gz");
        QVERIFY(m_resnet.readSomething && m_llama24.readSomething);
    }

    void resnetDynamoBasicBlocks()
    {
        const std::size_t index = graphIndex(m_resnet.run, "dynamo_output_graph");
        QVERIFY(index < m_resnet.run.graphs.size());
        auto tree = recoverRunGraphStructure(m_resnet.run, index);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Names);
        const std::string text = m_resnet.run.graphs[index].graph->text();
        std::vector<std::string> roots;
        for (ModuleId r : tree->roots) {
            roots.push_back(tree->module(r).path);
        }
        const std::vector<std::string> expected{"conv1", "bn1", "layer1", "layer2",
                                                "layer3", "layer4", "fc"};
        QCOMPARE(roots, expected);
        for (int stage = 1; stage <= 4; ++stage) {
            const std::string layer = "layer" + std::to_string(stage);
            QCOMPARE(tree->module(*tree->find(layer)).children.size(), std::size_t(2));
            for (int b = 0; b < 2; ++b) {
                const std::string block = child(layer, b);
                const QString prefix = QString("L_self_modules_%1_modules_%2_")
                                           .arg(QString::fromStdString(layer)).arg(b);
                QCOMPARE(treeInputs(*tree, block), signatureInputs(text, prefix));
                const bool downsample = stage > 1 && b == 0;
                QCOMPARE(tree->find(block + ".downsample").has_value(), downsample);
                // Checked by hand in the printed graph: 12 parameters and buffers, conv, add_
                // (num_batches_tracked), batch_norm, relu, conv, add_, batch_norm, +=, relu;
                // a downsample adds its conv's weight, its norm's 5 and conv, add_, batch_norm.
                QCOMPARE(tree->module(*tree->find(block)).totalNodes,
                         std::size_t(downsample ? 30 : 21));
            }
            // The second block of a stage is identical to the first only without downsample.
            QCOMPARE(tree->module(*tree->find(child(layer, 1))).identicalTo,
                     stage == 1 ? *tree->find(child(layer, 0)) : kNoModule);
        }
        QCOMPARE(signatureInputs(text, "L_self_modules_layer1_modules_0_"), 12);
        // avgpool and flatten (no parameters) are ResNet's `_forward_impl`, not the last
        // block's `forward`: they stay at the root; the block's own `+= identity; relu` don't.
        const graph::Graph& g = *m_resnet.run.graphs[index].graph;
        auto pathOfTarget = [&](std::string_view target) {
            const auto it = std::find_if(g.nodes().begin(), g.nodes().end(),
                                         [&](const graph::Node& n) { return n.target == target; });
            return it == g.nodes().end() ? std::string("?") : std::string(tree->pathOf(it->id));
        };
        QCOMPARE(pathOfTarget("torch.nn.functional.adaptive_avg_pool2d"), std::string());
        QCOMPARE(pathOfTarget("torch.flatten"), std::string());
        const graph::NodeId fc = *g.find("x_6");
        QCOMPARE(std::string(tree->pathOf(fc)), std::string("fc"));
        QCOMPARE(std::string(tree->pathOf(g.node(g.node(g.node(fc).inputs[0]).inputs[0])
                                              .inputs[0])),
                 std::string("layer4.1"));
    }

    void resnetAotGraphsInherit_data()
    {
        addAotKindRows();
    }

    void resnetAotGraphsInherit()
    {
        QFETCH(QString, kind);
        const std::size_t index = graphIndex(m_resnet.run, kind.toStdString());
        QVERIFY(index < m_resnet.run.graphs.size());
        auto tree = recoverRunGraphStructure(m_resnet.run, index);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::AotMapping);
        for (int stage = 1; stage <= 4; ++stage) {
            const std::string layer = "layer" + std::to_string(stage);
            QCOMPARE(tree->module(*tree->find(layer)).children.size(), std::size_t(2));
            QCOMPARE(tree->find(child(layer, 0) + ".downsample").has_value(), stage > 1);
        }
        if (kind == "aot_forward_graph") {
            QCOMPARE(tree->module(*tree->find("layer1.1")).identicalTo, *tree->find("layer1.0"));
        }
        // Left unassigned: inputs without a parameter path, the output, and ResNet's own code
        // in `_forward_impl` — the stem's relu and maxpool, avgpool, flatten; in the backward
        // also their gradients and those of fc and the stem's norm, whose inputs span two root
        // modules. Nothing of a block's `forward` is left out (before the epilogue rule knew
        // functions, avgpool and flatten joined layer4.1 and the stem's backward layer1.0).
        const graph::Graph& g = *m_resnet.run.graphs[index].graph;
        for (const graph::Node& n : g.nodes()) {
            if (tree->moduleOf[n.id] == kNoModule && !n.isPlaceholder() && !n.isOutput()) {
                QCOMPARE(n.source.function, std::string("_forward_impl"));
            }
        }
        QVERIFY(tree->unassigned < g.size() / 10);
    }

    void llamaDynamoLayers()
    {
        const std::size_t index = graphIndex(m_llama24.run, "dynamo_output_graph");
        auto tree = recoverRunGraphStructure(m_llama24.run, index);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Names);
        const std::string text = m_llama24.run.graphs[index].graph->text();
        const auto layers = tree->find("model.layers");
        QVERIFY(layers.has_value());
        QCOMPARE(tree->module(*layers).children.size(), std::size_t(24));
        for (int k = 0; k < 24; ++k) {
            const std::string path = child("model.layers", k);
            const QString prefix = QString("L_self_modules_model_modules_layers_modules_%1_").arg(k);
            QCOMPARE(treeInputs(*tree, path), signatureInputs(text, prefix));
            QCOMPARE(tree->module(*tree->find(path)).identicalTo,
                     k == 0 ? kNoModule : *tree->find("model.layers.0"));
            QVERIFY(tree->find(path + ".self_attn.q_proj") && tree->find(path + ".mlp.down_proj"));
        }
        // q, k, v, o, gate, up, down weights and the two norms' weights.
        QCOMPARE(signatureInputs(text, "L_self_modules_model_modules_layers_modules_3_"), 9);
        QCOMPARE(tree->repeatedBlocks.front().instances.size(), std::size_t(24));
        QCOMPARE(tree->module(tree->repeatedBlocks.front().instances.front()).path,
                 std::string("model.layers.0"));
    }

    void llamaAotForwardMapping()
    {
        const std::size_t index = graphIndex(m_llama24.run, "aot_forward_graph");
        auto tree = recoverRunGraphStructure(m_llama24.run, index);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::AotMapping);
        QCOMPARE(tree->strength, MatchStrength::AotTag);
        const graph::Graph& g = *m_llama24.run.graphs[index].graph;
        // Checked by hand: primals_N carries `# PlainAOTInput(idx=N-1)`, and the Dynamo
        // signature's inputs 3, 4, 12, 219, 220 are these parameters; input 0 is the token ids.
        auto pathOf = [&](const char* name) { return tree->inputPath(*g.find(name))->path; };
        QCOMPARE(pathOf("primals_4"), std::string("model.layers.0.input_layernorm.weight"));
        QCOMPARE(pathOf("primals_5"), std::string("model.layers.0.self_attn.q_proj.weight"));
        QCOMPARE(pathOf("primals_13"), std::string("model.layers.1.input_layernorm.weight"));
        QCOMPARE(pathOf("primals_220"), std::string("model.norm.weight"));
        QCOMPARE(pathOf("primals_221"), std::string("lm_head.weight"));
        QVERIFY(tree->inputPath(*g.find("primals_1")) == nullptr);
        QCOMPARE(tree->module(*tree->find("model.layers")).children.size(), std::size_t(24));
        QCOMPARE(tree->repeatedBlocks.front().instances.size(), std::size_t(24));
    }

    void llamaAotBackwardInherits()
    {
        const std::size_t index = graphIndex(m_llama24.run, "aot_backward_graph");
        auto tree = recoverRunGraphStructure(m_llama24.run, index);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::AotMapping);
        QCOMPARE(tree->module(*tree->find("model.layers")).children.size(), std::size_t(24));
        QCOMPARE(tree->repeatedBlocks.front().instances.size(), std::size_t(24));
        QVERIFY(tree->unassigned < m_llama24.run.graphs[index].graph->size() / 100);
    }

    void llamaBareRepetition_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers");
        QTest::newRow("24 forward") << "llama24_train_graph0.txt.gz" << 24;
        QTest::newRow("24 backward") << "llama24_train_graph1.txt.gz" << 24;
        QTest::newRow("64 forward") << "llama64_train_graph0.txt.gz" << 64;
        QTest::newRow("64 backward") << "llama64_train_graph1.txt.gz" << 64;
    }

    // Bare printed AOT graphs (no module names): the decoder layers are found by repetition.
    void llamaBareRepetition()
    {
        QFETCH(QString, file);
        QFETCH(int, layers);
        const std::string path = kRecorded + "/graphs/" + file.toStdString();
        auto text = readFile(path); // inflated
        QVERIFY(text.ok());
        const auto g = io::parseGraphCode(*text, path).graph;
        QVERIFY(g);
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Repetition);
        QVERIFY(!tree->repeatedBlocks.empty());
        QCOMPARE(int(tree->repeatedBlocks.front().instances.size()), layers);
        QCOMPARE(tree->roots.size(), std::size_t(layers));
    }

    void llamaRepetitionMatchesNames_data()
    {
        addAotKindRows();
    }

    // The trace's AOT graphs, once with the Dynamo graph's names and once bare: forward block k
    // is decoder layer k node for node (weights and norms included); backward block k is layer
    // 23 - k but for the norm backward at each end, which the names rule gives the layer whose
    // saved output it reads and repetition gives the layer it differentiates.
    void llamaRepetitionMatchesNames()
    {
        QFETCH(QString, kind);
        const std::size_t index = graphIndex(m_llama24.run, kind.toStdString());
        const graph::Graph& g = *m_llama24.run.graphs[index].graph;
        auto named = recoverRunGraphStructure(m_llama24.run, index);
        auto bare = recoverStructure(g);
        QVERIFY(named.ok() && bare.ok());
        QCOMPARE(bare->source, Source::Repetition);
        QCOMPARE(bare->roots.size(), std::size_t(24));
        const bool forward = kind == "aot_forward_graph";
        for (int b = 0; b < 24; ++b) {
            const auto layer = *named->find(child("model.layers", forward ? b : 23 - b));
            const auto block = bare->nodesOf(bare->roots[b]);
            const std::size_t same = static_cast<std::size_t>(
                std::count_if(block.begin(), block.end(), [&](graph::NodeId id) {
                    return named->isWithin(named->moduleOf[id], layer);
                }));
            const std::size_t layerNodes = named->module(layer).totalNodes;
            if (forward) {
                QCOMPARE(same, block.size());
                QCOMPARE(layerNodes, block.size());
            } else {
                QVERIFY(same + 8 >= block.size() && same + 8 >= layerNodes);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestStructureRecorded)
#include "tst_structure_recorded.moc"

FXSCOPE_TEST_END
