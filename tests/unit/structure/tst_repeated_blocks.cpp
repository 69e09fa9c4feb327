// Structural hashing and repeated blocks on graphs built in code: the hash ignores names and
// sees shapes and edges; identical blocks with Dynamo names become identical modules; without
// names, repetition finds the blocks, keeps only the identical ones of a partial repetition,
// finds nothing where nothing repeats, and names that only look like module paths are not
// taken for them.
#include "core/structure/repeated_blocks.h"
#include "core/structure/structural_hash.h"
#include "core/structure/structure.h"

#include "synthetic_graphs.h"

#include <QtTest>

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
