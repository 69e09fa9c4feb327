// Identical layers recognised by their code (issue #29 point 7): the real transformers BERT and
// torchvision ViT training traces (6 encoder layers each, recorded with PyTorch 2.11), where the
// compiled forward computes the attention mask's additive form once inside the first layer and
// gives every dropout its own random-seed offset; and small graphs built here showing that a
// value the first layer computes for all of them is not charged to it, while a layer's output
// read by the next one stays, and that a seed offset says where a node is, not what it does.
#include "core/io/torch_trace_reader.h"
#include "core/structure/structural_hash.h"
#include "core/structure/structure.h"
#include "tests/data/run_graphs.h"
#include "tests/test_file.h"

#include "core/graph/graph_builder.h"

#include "synthetic_graphs.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::structure;

namespace {

const std::string kRuntime = std::string(FXSCOPE_TEST_DATA) + "/runtime";

std::string layerPath(const std::string& list, int k)
{
    return list + "." + std::to_string(k);
}

// Every layer of `list` (count of them) is identical to the first, with the same node count.
void checkIdentical(const ModuleTree& tree, const std::string& list, int count)
{
    const auto first = tree.find(layerPath(list, 0));
    QVERIFY2(first.has_value(), layerPath(list, 0).c_str());
    const auto parent = tree.find(list);
    QVERIFY(parent.has_value());
    QCOMPARE(tree.module(*parent).children.size(), std::size_t(count));
    for (int k = 1; k < count; ++k) {
        const auto m = tree.find(layerPath(list, k));
        QVERIFY(m.has_value());
        QCOMPARE(tree.module(*m).totalNodes, tree.module(*first).totalNodes);
        QCOMPARE(tree.module(*m).identicalTo, *first);
    }
    const RepeatedBlock& top = tree.repeatedBlocks.front();
    QCOMPARE(top.instances.size(), std::size_t(count));
    QCOMPARE(tree.module(top.instances.front()).path, layerPath(list, 0));
}

// Dynamo-style name of a weight of module `layers.k.part` under `encoder`.
std::string weightName(int k, const char* part)
{
    return "L_self_modules_encoder_modules_layers_modules_" + std::to_string(k) + "_modules_" +
           part + "_parameters_weight_";
}

// encoder.layers.k: h = a(x) + m; x = x + b(h), for k = 0..2, where the additive mask
// m = where(mask, 0, -inf) is computed inside layer 0 (between its a and b, as a compiled
// graph computes it where it is first needed) and read by every layer.
graph::GraphPtr maskComputedInFirstLayer()
{
    using graph::Argument;
    graph::GraphBuilder b;
    graph::NodeId x = b.placeholder("x", test::f32(8, 16));
    const graph::NodeId mask = b.placeholder("mask", test::f32(8, 16));
    std::vector<graph::NodeId> wa;
    std::vector<graph::NodeId> wb;
    for (int k = 0; k < 3; ++k) {
        wa.push_back(b.placeholder(weightName(k, "a"), test::f32(16, 16)));
        wb.push_back(b.placeholder(weightName(k, "b"), test::f32(16, 16)));
    }
    auto call = [&](const std::string& name, const char* target, std::vector<Argument> args) {
        return b.call(name, target, std::move(args), {}, test::f32(8, 16));
    };
    graph::NodeId m = graph::kNoNode;
    for (int k = 0; k < 3; ++k) {
        const std::string s = std::to_string(k);
        const auto a = call("mm_a" + s, "aten::mm.default", {Argument::ref(x), Argument::ref(wa[k])});
        if (k == 0) {
            const auto ninf = b.call("full_ninf", "aten::full.default",
                                     {Argument::list({}), Argument::real(-1e30)}, {}, {});
            const auto zero = b.call("full_zero", "aten::full.default",
                                     {Argument::list({}), Argument::real(0.0)}, {}, {});
            m = call("where", "aten::where.self",
                     {Argument::ref(mask), Argument::ref(zero), Argument::ref(ninf)});
        }
        const auto h = call("h" + s, "aten::add.Tensor", {Argument::ref(a), Argument::ref(m)});
        const auto bb = call("mm_b" + s, "aten::mm.default", {Argument::ref(h), Argument::ref(wb[k])});
        x = call("out" + s, "aten::add.Tensor", {Argument::ref(x), Argument::ref(bb)});
    }
    b.output({Argument::tuple({Argument::ref(x)})});
    return *b.build();
}

} // namespace

class TestIdenticalLayers : public QObject {
    Q_OBJECT

private:
    io::TraceReadResult m_bert;
    io::TraceReadResult m_vit;

    Result<ModuleTree> treeOf(const io::TraceReadResult& t, const char* kind)
    {
        const std::size_t index = testdata::graphIndex(t.run, kind);
        if (index >= t.run.graphs.size()) {
            return makeError(ErrorCode::Invalid, std::string("no ") + kind);
        }
        return recoverRunGraphStructure(t.run, index);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_bert = io::readTorchTracePath(kRuntime +
                                        "/bert6_train/dedicated_log_torch_trace__gts3e64.log.gz");
        m_vit = io::readTorchTracePath(kRuntime +
                                       "/tvvit6_train/dedicated_log_torch_trace_jwntg8lt.log.gz");
        QVERIFY(m_bert.readSomething && m_vit.readSomething);
    }

    void bert_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("dynamo") << "dynamo_output_graph";
        QTest::newRow("aot forward") << "aot_forward_graph";
    }

    // transformers BertModel: encoder.layer.0-5 identical in the Dynamo graph and in the AOT
    // forward, where `where(mask, 0, -inf)` expanded to the heads (and the two scalars it
    // reads) is computed once in layer 0 and read by all six (checked by hand in the printed
    // graph: expand_3 feeds every _scaled_dot_product_efficient_attention), and each dropout
    // looks up its own seed offset.
    void bert()
    {
        QFETCH(QString, kind);
        auto tree = treeOf(m_bert, kind.toUtf8().constData());
        QVERIFY2(tree.ok(), tree.ok() ? "" : tree.error().toString().c_str());
        checkIdentical(*tree, "encoder.layer", 6);
        if (kind == "aot_forward_graph") {
            const graph::Graph& g =
                *m_bert.run.graphs[testdata::graphIndex(m_bert.run, "aot_forward_graph")].graph;
            for (const char* shared : {"expand_3", "where", "full_default_1", "full_default_2"}) {
                QCOMPARE(std::string(tree->pathOf(*g.find(shared))), std::string("encoder"));
            }
            // Layer 0's own attention stays its own.
            const auto sdpa = *g.find("_scaled_dot_product_efficient_attention");
            QVERIFY(tree->isWithin(tree->moduleOf[sdpa], *tree->find("encoder.layer.0")));
        }
    }

    void vit_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("dynamo") << "dynamo_output_graph";
        QTest::newRow("aot forward") << "aot_forward_graph";
    }

    // torchvision VisionTransformer: encoder.layers.encoder_layer_0-5 identical. In the AOT
    // forward, layers 1-5 first make their input contiguous (`clone(add_N, memory_format=
    // torch.contiguous_format)` before ln_1's var_mean: their residual add leaves it
    // transposed) where layer 0 reads the contiguous embeddings: one node more, the same code.
    void vit()
    {
        QFETCH(QString, kind);
        auto tree = treeOf(m_vit, kind.toUtf8().constData());
        QVERIFY2(tree.ok(), tree.ok() ? "" : tree.error().toString().c_str());
        const auto first = tree->find("encoder.layers.encoder_layer_0");
        QVERIFY(first.has_value());
        const auto& layers = tree->module(*tree->find("encoder.layers")).children;
        QCOMPARE(layers.size(), std::size_t(6));
        const std::size_t copies = kind == "aot_forward_graph" ? 1 : 0;
        for (int k = 1; k < 6; ++k) {
            const ModuleId m = layers[k];
            QCOMPARE(tree->module(m).path,
                     "encoder.layers.encoder_layer_" + std::to_string(k));
            QCOMPARE(tree->module(m).totalNodes, tree->module(*first).totalNodes + copies);
            QCOMPARE(tree->module(m).identicalTo, *first);
        }
        QCOMPARE(tree->repeatedBlocks.front().instances.size(), std::size_t(6));
    }

    // The mask computed inside layer 0 for all three layers goes to the module around the
    // list (encoder: encoder.layers holds nothing of its own), with the scalars only it reads;
    // the layers are then identical. A layer's output, read by the next layer only, stays.
    void sharedValueLeavesFirstLayer()
    {
        const auto g = maskComputedInFirstLayer();
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Names);
        for (const char* shared : {"where", "full_ninf", "full_zero"}) {
            QCOMPARE(std::string(tree->pathOf(*g->find(shared))), std::string("encoder"));
        }
        QCOMPARE(std::string(tree->pathOf(*g->find("h0"))), std::string("encoder.layers.0"));
        QCOMPARE(std::string(tree->pathOf(*g->find("out0"))), std::string("encoder.layers.0"));
        QCOMPARE(std::string(tree->pathOf(*g->find("out1"))), std::string("encoder.layers.1"));
        checkIdentical(*tree, "encoder.layers", 3);
    }

    // The k-th random stream a dropout reads is where it sits, not what it computes.
    void seedOffsetIsPositional()
    {
        using graph::Argument;
        graph::GraphBuilder b;
        const auto seeds = b.call("seeds", "prims::inductor_seeds.default",
                                  {Argument::integer(3)}, {}, {});
        const auto s1 = b.call("s1", "prims::inductor_lookup_seed.default",
                               {Argument::ref(seeds), Argument::integer(1)}, {}, {});
        const auto s2 = b.call("s2", "prims::inductor_lookup_seed.default",
                               {Argument::ref(seeds), Argument::integer(2)}, {}, {});
        const auto a1 = b.call("a1", "aten::add.Tensor", {Argument::ref(s1), Argument::integer(1)},
                               {}, {});
        const auto a2 = b.call("a2", "aten::add.Tensor", {Argument::ref(s2), Argument::integer(2)},
                               {}, {});
        b.output({Argument::tuple({Argument::ref(a1), Argument::ref(a2)})});
        const auto g = *b.build();
        QCOMPARE(nodeSignature(*g, s1), nodeSignature(*g, s2));
        QVERIFY(nodeSignature(*g, a1) != nodeSignature(*g, a2)); // other constants still count
    }
};

QTEST_GUILESS_MAIN(TestIdenticalLayers)
#include "tst_identical_layers.moc"

FXSCOPE_TEST_END
