// Structural hashing and repeated blocks on graphs built in code: the hash ignores names and
// which outside values are read, and sees shapes and edges; identical blocks with Dynamo names
// become identical modules; without names, repetition finds the blocks, keeps only the
// identical ones of a partial repetition, cuts pre-norm layers where one value passes between
// them (not where fewest edges cross), keeps a first layer that reads other inputs, finds
// nothing where nothing repeats, and names that only look like module paths are not taken.
#include "core/structure/repeated_blocks.h"
#include "core/structure/structural_hash.h"
#include "core/structure/structure.h"
#include "tests/test_file.h"

#include "synthetic_graphs.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::structure;

namespace {

std::string plainName(std::size_t k)
{
    return "w" + std::to_string(k);
}

std::string dynamoName(std::size_t k)
{
    return "L_self_modules_layers_modules_" + std::to_string(k) + "_modules_fc_parameters_weight_";
}

// Layers first..end of a preNormStack are "block (k - offset)", each with its five nodes and
// its weight.
void expectLayers(const graph::Graph& g, const ModuleTree& tree, std::size_t first,
                  std::size_t end, std::size_t offset)
{
    for (std::size_t k = first; k < end; ++k) {
        const std::string block = "block " + std::to_string(k - offset);
        const std::string s = std::to_string(k);
        for (const std::string& name : {"rsqrt_" + s, "mul_" + s, "mm_" + s, "relu_" + s,
                                        "add_" + s, "w" + s}) {
            QCOMPARE(std::string(tree.pathOf(*g.find(name))), block);
        }
        QCOMPARE(tree.module(*tree.find(block)).totalNodes, std::size_t(6));
    }
}

std::vector<graph::NodeId> allNodes(const graph::Graph& g)
{
    std::vector<graph::NodeId> ids;
    for (const auto& n : g.nodes()) {
        ids.push_back(n.id);
    }
    return ids;
}

} // namespace

class TestRepeatedBlocks : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void hashIgnoresNamesOnly()
    {
        const auto a = test::residualStack({32, 32}, plainName, "a");
        const auto b = test::residualStack({32, 32}, dynamoName, "zz");
        QCOMPARE(structuralHash(*a, allNodes(*a)), structuralHash(*b, allNodes(*b)));
        // A shape changes it.
        const auto wider = test::residualStack({32, 64}, plainName);
        QVERIFY(structuralHash(*a, allNodes(*a)) != structuralHash(*wider, allNodes(*wider)));
        // So does an edge: block 1 fed from the input x instead of block 0's result.
        graph::GraphBuilder gb;
        const auto x = gb.placeholder("x", test::f32(8, 16));
        const auto w0 = gb.placeholder("w0", test::f32(16, 32));
        const auto w1 = gb.placeholder("w1", test::f32(16, 32));
        graph::NodeId prev = x;
        for (int k = 0; k < 2; ++k) {
            const auto in = k == 1 ? x : prev; // the rewired edge
            const auto mm = gb.call("mm" + std::to_string(k), "aten::mm.default",
                                    {graph::Argument::ref(in), graph::Argument::ref(k ? w1 : w0)},
                                    {}, test::f32(8, 32));
            const auto relu = gb.call("r" + std::to_string(k), "aten::relu.default",
                                      {graph::Argument::ref(mm)}, {}, test::f32(8, 32));
            const auto sum = gb.call("s" + std::to_string(k), "aten::sum.dim_IntList",
                                     {graph::Argument::ref(relu),
                                      graph::Argument::list({graph::Argument::integer(1)}),
                                      graph::Argument::boolean(true)},
                                     {}, test::f32(8, 1));
            prev = gb.call("a" + std::to_string(k), "aten::add.Tensor",
                           {graph::Argument::ref(prev), graph::Argument::ref(sum)}, {},
                           test::f32(8, 16));
        }
        gb.output({graph::Argument::tuple({graph::Argument::ref(prev)})});
        const auto rewired = *gb.build();
        QCOMPARE(rewired->size(), a->size());
        QVERIFY(structuralHash(*a, allNodes(*a)) != structuralHash(*rewired, allNodes(*rewired)));
        QCOMPARE(structuralHash(*a, {}), std::uint64_t(0));
    }

    // Outside values are hashed by their meta, not by which value they are: a layer whose add
    // reads another input than its norm hashes like one that reads the same input three times.
    void hashIsModuloOutsideValues()
    {
        test::PreNormOptions o;
        o.firstAddsOther = true;
        const auto g = test::preNormStack(o);
        auto layer = [&](int k) {
            std::vector<graph::NodeId> ids;
            for (const char* op : {"rsqrt_", "mul_", "mm_", "relu_", "add_"}) {
                ids.push_back(*g->find(op + std::to_string(k)));
            }
            return ids;
        };
        QCOMPARE(structuralHash(*g, layer(0)), structuralHash(*g, layer(1)));
        // The meta of what is read still counts: the same sum over a wider input differs.
        graph::GraphBuilder gb;
        const auto x = gb.placeholder("x", test::f32(8, 16));
        const auto x2 = gb.placeholder("x2", test::f32(8, 16));
        const auto wide = gb.placeholder("wide", test::f32(8, 32));
        std::vector<graph::NodeId> sums;
        for (const auto in : {x, x2, wide}) {
            sums.push_back(gb.call("sum_" + std::to_string(in), "aten::sum.dim_IntList",
                                   {graph::Argument::ref(in),
                                    graph::Argument::list({graph::Argument::integer(1)}),
                                    graph::Argument::boolean(true)},
                                   {}, test::f32(8, 1)));
        }
        const auto sg = *gb.build();
        auto one = [&](std::size_t k) { return structuralHash(*sg, std::span(&sums[k], 1)); };
        QCOMPARE(one(0), one(1));
        QVERIFY(one(0) != one(2));
    }

    void dynamoNamesMakeIdenticalModules()
    {
        const auto g = test::residualStack({32, 32, 32, 32}, dynamoName);
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Names);
        const auto layers = tree->find("layers");
        QVERIFY(layers);
        QCOMPARE(tree->module(*layers).children.size(), std::size_t(4));
        for (int k = 0; k < 4; ++k) {
            const ModuleId m = *tree->find("layers." + std::to_string(k));
            // weight, mm (layers.k.fc), relu, sum, residual add (layers.k).
            QCOMPARE(tree->module(m).totalNodes, std::size_t(5));
            QCOMPARE(tree->module(*tree->find("layers." + std::to_string(k) + ".fc")).totalNodes,
                     std::size_t(2));
            QCOMPARE(tree->module(m).identicalTo, k == 0 ? kNoModule : *tree->find("layers.0"));
            QCOMPARE(tree->pathOf(*g->find("add_" + std::to_string(k))),
                     "layers." + std::to_string(k));
        }
        QCOMPARE(tree->unassigned, std::size_t(2)); // x and the output
        QCOMPARE(tree->repeatedBlocks.size(), std::size_t(1));
        QCOMPARE(tree->repeatedBlocks[0].instances.size(), std::size_t(4));
        QCOMPARE(tree->inputPath(*g->find(dynamoName(2)))->path, std::string("layers.2.fc.weight"));
    }

    void repetitionWithoutNames()
    {
        const auto g = test::residualStack({32, 32, 32, 32, 32, 32}, plainName);
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Repetition);
        QCOMPARE(tree->roots.size(), std::size_t(6));
        for (std::size_t k = 0; k < 6; ++k) {
            const Module& m = tree->module(tree->roots[k]);
            QCOMPARE(m.path, "block " + std::to_string(k));
            QCOMPARE(m.totalNodes, std::size_t(5)); // the weight used only inside joins
            QCOMPARE(tree->pathOf(*g->find("mm_" + std::to_string(k))), m.path);
            QCOMPARE(tree->pathOf(*g->find(plainName(k))), m.path);
        }
        QCOMPARE(tree->repeatedBlocks.size(), std::size_t(1));
        QCOMPARE(tree->repeatedBlocks[0].nodesEach, std::size_t(5));
    }

    void partialRepetition()
    {
        // Blocks 0-2 identical, block 3 wider, block 4 like 0-2 again but alone.
        const auto g = test::residualStack({32, 32, 32, 64, 32}, plainName);
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Repetition);
        QCOMPARE(tree->roots.size(), std::size_t(3));
        QVERIFY(tree->pathOf(*g->find("mm_3")).empty());
        QVERIFY(tree->pathOf(*g->find("mm_4")).empty());
        QCOMPARE(tree->unassigned, g->size() - 15);
    }

    // Pre-norm stacks (synthetic_graphs.h) and the variations repetition must see through.
    void preNormLayers_data()
    {
        QTest::addColumn<bool>("normTail");
        QTest::addColumn<bool>("firstAddsOther");
        QTest::addColumn<bool>("firstUsesGelu");
        QTest::addColumn<bool>("returnWeights");
        // A layer reads x three times: its start is crossed by three edges but one value, a cut
        // after its matmul by two edges but two values. Every layer is cut at its start.
        QTest::newRow("stack alone") << false << false << false << false;
        // The final norm starts like a layer: the run reaches two nodes past its whole periods.
        QTest::newRow("final norm like a layer's head") << true << false << false << false;
        // Block 0 runs the same code on other arguments (its residual add reads y, not the x its
        // norm read): blocks are compared modulo the values they read from outside.
        QTest::newRow("first block reads other inputs") << false << true << false << false;
        // Block 0 computes something else (gelu): the run starts one layer later, at a layer
        // start, not at the first node whose token matches.
        QTest::newRow("first block differs") << false << false << true << false;
        // A forward graph returns weights it saves for the backward: they still join their block.
        QTest::newRow("weights returned") << false << false << false << true;
    }

    void preNormLayers()
    {
        test::PreNormOptions o;
        QFETCH(bool, normTail);
        QFETCH(bool, firstAddsOther);
        QFETCH(bool, firstUsesGelu);
        QFETCH(bool, returnWeights);
        o.normTail = normTail;
        o.firstAddsOther = firstAddsOther;
        o.firstUsesGelu = firstUsesGelu;
        o.returnWeights = returnWeights;
        const auto g = test::preNormStack(o);
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Repetition);
        const std::size_t first = firstUsesGelu ? 1 : 0;
        QCOMPARE(tree->roots.size(), o.blocks - first);
        expectLayers(*g, *tree, first, o.blocks, first);
        QCOMPARE(tree->repeatedBlocks.size(), std::size_t(1));
        QCOMPARE(tree->repeatedBlocks[0].instances.size(), o.blocks - first);
        // Nothing else joins a block: inputs only block 0 reads, the final norm, a layer unlike
        // the others.
        std::vector<std::string> outside{"x"};
        if (firstAddsOther) {
            outside.push_back("y");
        }
        if (normTail) {
            outside.insert(outside.end(), {"rsqrt_tail", "mul_tail", "sum_tail"});
        }
        if (firstUsesGelu) {
            outside.insert(outside.end(), {"rsqrt_0", "mm_0", "gelu_0", "add_0", "w0"});
        }
        for (const std::string& name : outside) {
            QVERIFY2(tree->pathOf(*g->find(name)).empty(), name.c_str());
        }
    }

    void noRepetition()
    {
        const auto g = test::residualStack({8, 16, 32, 64}, plainName);
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::None);
        QVERIFY(tree->modules.empty());
        QCOMPARE(tree->unassigned, g->size());
        QVERIFY(findBlockRuns(*g, nodeSignatures(*g), 2, 2).empty());
    }

    void namesThatLookLikeModulePaths_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::newRow("module without parameter") << "L_self_modules_layers_modules_%1_";
        QTest::newRow("export-style") << "p_layers_%1_fc_weight";
        QTest::newRow("no prefix") << "self_modules_layers_modules_%1_parameters_weight_";
        QTest::newRow("dotted placeholder") << "layers.%1.weight";
    }

    void namesThatLookLikeModulePaths()
    {
        QFETCH(QString, pattern);
        const auto g = test::residualStack({32, 32, 32}, [&](std::size_t k) {
            return pattern.arg(k).toStdString();
        });
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QVERIFY(tree->source != Source::Names);
        QVERIFY(tree->inputs.empty());
        QVERIFY(!tree->find("layers").has_value());
    }

    void cancelled()
    {
        const auto g = test::residualStack({32, 32}, plainName);
        CancelToken cancel;
        cancel.cancel();
        auto tree = recoverStructure(*g, {}, cancel);
        QVERIFY(!tree.ok());
        QCOMPARE(tree.error().code, ErrorCode::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestRepeatedBlocks)
#include "tst_repeated_blocks.moc"

FXSCOPE_TEST_END
