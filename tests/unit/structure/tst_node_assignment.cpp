// The epilogue rule of node_assignment.h on a small named graph: two numbered blocks whose fc
// is called by name from the block's `forward`, then the caller's parameter-free pooling and
// flatten before its `head`. Known functions keep the caller's code out of the last block;
// without `# File:` lines, or where the block's code is not known, the graph-order rule stands.
#include "core/structure/structure.h"
#include "tests/test_file.h"

#include "core/graph/graph_builder.h"

#include "synthetic_graphs.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::structure;

namespace {

std::string blockWeight(int k)
{
    return "L_self_modules_blocks_modules_" + std::to_string(k) + "_modules_fc_parameters_weight_";
}

graph::SourceLoc at(int line, const QString& function, const char* code)
{
    return {"model.py", line, function.toStdString(), code};
}

// blocks.k: h = self.fc(x); h = relu(h); x + h. Then the caller: pool, flatten, self.head.
// tailFunction: the function of the pool and flatten statements ("" for no sources at all);
// fcCode: how the block's statement calls its fc.
graph::GraphPtr blocksThenHead(const QString& tailFunction, const char* fcCode)
{
    using graph::Argument;
    graph::GraphBuilder b;
    graph::NodeId x = b.placeholder("x", test::f32(8, 16));
    const graph::NodeId w0 = b.placeholder(blockWeight(0), test::f32(16, 16));
    const graph::NodeId w1 = b.placeholder(blockWeight(1), test::f32(16, 16));
    const graph::NodeId wh = b.placeholder("L_self_modules_head_parameters_weight_",
                                           test::f32(16, 4));
    const bool sources = !tailFunction.isEmpty();
    auto call = [&](const std::string& name, const char* target, std::vector<Argument> args,
                    const graph::SourceLoc& loc) {
        const graph::NodeId id = b.call(name, target, std::move(args), {}, test::f32(8, 16));
        if (sources) {
            b.node(id).source = loc;
        }
        return id;
    };
    for (int k = 0; k < 2; ++k) {
        const std::string s = std::to_string(k);
        const auto mm = call("mm_" + s, "aten::mm.default",
                             {Argument::ref(x), Argument::ref(k == 0 ? w0 : w1)},
                             at(10, "forward", fcCode));
        const auto relu = call("relu_" + s, "aten::relu.default", {Argument::ref(mm)},
                               at(11, "forward", "h = torch.relu(h)"));
        x = call("add_" + s, "aten::add.Tensor", {Argument::ref(x), Argument::ref(relu)},
                 at(12, "forward", "return x + h"));
    }
    const auto pool = call("pool", "aten::neg.default", {Argument::ref(x)},
                           at(30, tailFunction, "x = self.pool(x)"));
    const auto flat = call("flat", "aten::view.default", {Argument::ref(pool)},
                           at(31, tailFunction, "x = torch.flatten(x, 1)"));
    const auto head = call("head", "aten::mm.default", {Argument::ref(flat), Argument::ref(wh)},
                           at(32, "_forward_impl", "x = self.head(x)"));
    b.output({Argument::tuple({Argument::ref(head)})});
    return *b.build();
}

} // namespace

class TestNodeAssignment : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void epilogueStopsAtTheCallersCode_data()
    {
        QTest::addColumn<QString>("tailFunction");
        QTest::addColumn<QString>("fcCode");
        QTest::addColumn<QString>("tailModule");
        QTest::newRow("caller's function") << "_forward_impl" << "h = self.fc(x)" << "";
        // Nothing tells the block's code from the caller's: the graph-order rule stands.
        QTest::newRow("no sources") << "" << "h = self.fc(x)" << "blocks.1";
        QTest::newRow("block's own function") << "forward" << "h = self.fc(x)" << "blocks.1";
        QTest::newRow("fc never called by name") << "_forward_impl" << "h = x @ self.w"
                                                 << "blocks.1";
    }

    void epilogueStopsAtTheCallersCode()
    {
        QFETCH(QString, tailFunction);
        QFETCH(QString, fcCode);
        QFETCH(QString, tailModule);
        const auto g = blocksThenHead(tailFunction, fcCode.toStdString().c_str());
        auto tree = recoverStructure(*g);
        QVERIFY(tree.ok());
        QCOMPARE(tree->source, Source::Names);
        auto pathOf = [&](const char* name) {
            return QString::fromStdString(std::string(tree->pathOf(*g->find(name))));
        };
        for (int k = 0; k < 2; ++k) {
            const QString block = QString("blocks.%1").arg(k);
            QCOMPARE(pathOf(k == 0 ? "mm_0" : "mm_1"), block + ".fc");
            QCOMPARE(pathOf(k == 0 ? "relu_0" : "relu_1"), block);
            QCOMPARE(pathOf(k == 0 ? "add_0" : "add_1"), block); // the block's own epilogue
        }
        QCOMPARE(pathOf("pool"), tailModule);
        QCOMPARE(pathOf("flat"), tailModule);
        QCOMPARE(pathOf("head"), QString("head"));
    }
};

QTEST_GUILESS_MAIN(TestNodeAssignment)
#include "tst_node_assignment.moc"

FXSCOPE_TEST_END
