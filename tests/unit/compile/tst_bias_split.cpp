// compile::splitBiasEpilogues (issue 27): of three addmms (tests/data/compile/bias_split_fw.txt)
// the one read by gelu through a view that keeps the last size becomes mm, a view of it and the
// add under the view's name (an addmm read by a pointwise op: the add under the addmm's name),
// the one read through a transpose and the returned one stay; the new graph keeps every
// other node's meta and source, and runs on the eager engine to the original's outputs. An
// alpha other than 1, a bias along another dim and a reader the code generator does not lower
// keep the addmm.
#include "core/compile/bias_split.h"
#include "core/exec/interpreter.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"
#include "tests/unit/compile/eager_compare.h"

#include <QFile>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

GraphPtr parseFile(const char* path)
{
    QFile f(QString::fromUtf8(path));
    if (!f.open(QIODevice::ReadOnly)) {
        qFatal("cannot read %s", path);
    }
    return io::parseGraphCode(f.readAll().toStdString(), path).graph;
}

GraphPtr parseCode(const std::string& params, const std::string& body)
{
    return io::parseGraphCode(test::graphCode(params, body), "case.txt").graph;
}

// The names of a node's node arguments, in order.
std::vector<std::string> argNames(const Graph& g, const Node& n)
{
    std::vector<std::string> names;
    for (const auto& a : n.args) {
        a.forEachNode([&](NodeId id) { names.push_back(g.node(id).name); });
    }
    return names;
}

const Node& named(const Graph& g, const char* name)
{
    auto id = g.find(name);
    if (!id) {
        qFatal("no node %s", name);
    }
    return g.node(*id);
}

const char* kParams = R"(x: "f32[8, 16][16, 1]cpu", w: "f32[32, 16][16, 1]cpu", b: "f32[32][1]cpu")";

std::vector<std::string> returnedNames(const Graph& g)
{
    std::vector<std::string> names;
    for (NodeId id : g.returnedNodes()) {
        names.push_back(g.node(id).name);
    }
    return names;
}

// The graph of `body` split, with `expected` of its addmms split.
GraphPtr splitCode(const std::string& body, int expected)
{
    GraphPtr g = parseCode(kParams, body);
    compile::BiasSplitCounts counts;
    auto split = g ? compile::splitBiasEpilogues(*g, &counts) : Result<GraphPtr>(nullptr);
    if (!g || !split || counts.split != expected || counts.addmms != 1) {
        return nullptr;
    }
    return *split;
}


} // namespace

class TestBiasSplit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void splitsOnlyTheAddmmBeforeAKernel()
    {
        GraphPtr g = parseFile(FXSCOPE_TEST_DATA "/compile/bias_split_fw.txt");
        QVERIFY(g);
        compile::BiasSplitCounts counts;
        auto split = compile::splitBiasEpilogues(*g, &counts);
        QVERIFY2(split.ok(), split ? "" : split.error().toString().c_str());
        const Graph& s = **split;
        QCOMPARE(counts.addmms, 3);
        QCOMPARE(counts.split, 1);
        QCOMPARE(s.size(), g->size() + 1);

        // The split one: mm under a fresh name (addmm_mm is a placeholder), the view of it
        // under a fresh name, the add after it under the view's name (gelu reads it).
        QVERIFY(!s.find("addmm"));
        const Node& mm = named(s, "addmm_mm_1");
        QCOMPARE(QString::fromStdString(mm.target), QStringLiteral("aten::mm.default"));
        QCOMPARE(argNames(s, mm), (std::vector<std::string>{"x", "t"}));
        QVERIFY(mm.kwargs.empty());
        QCOMPARE(mm.meta.tensor.toString(), std::string("f32[8, 32][32, 1]cpu"));
        QCOMPARE(mm.source.line, 5);
        const Node& view = named(s, "view_mm");
        QCOMPARE(QString::fromStdString(view.target), QStringLiteral("aten::view.default"));
        QCOMPARE(argNames(s, view), (std::vector<std::string>{"addmm_mm_1"}));
        QCOMPARE(view.args[1].items.size(), std::size_t(3));
        const Node& add = named(s, "view");
        QCOMPARE(QString::fromStdString(add.target), QStringLiteral("aten::add.Tensor"));
        QCOMPARE(argNames(s, add), (std::vector<std::string>{"view_mm", "b1"}));
        QCOMPARE(add.id, view.id + 1);
        QCOMPARE(add.meta.tensor.toString(), std::string("f32[2, 4, 32][128, 32, 1]cpu"));
        QCOMPARE(argNames(s, named(s, "gelu")), (std::vector<std::string>{"view"}));
        QCOMPARE(named(s, "gelu").source.line, 5);

        // Kept: the transposed one and the returned one, their arguments renumbered.
        for (const char* name : {"addmm_1", "addmm_2"}) {
            QCOMPARE(QString::fromStdString(named(s, name).target),
                     QStringLiteral("aten::addmm.default"));
        }
        QCOMPARE(argNames(s, named(s, "addmm_1")), (std::vector<std::string>{"b2", "x", "t_1"}));
        QCOMPARE(argNames(s, named(s, "addmm_2")), (std::vector<std::string>{"b3", "x", "t_2"}));
        QCOMPARE(returnedNames(s), (std::vector<std::string>{"gelu", "relu", "addmm_2"}));
        QCOMPARE(named(s, "relu").users, std::vector<NodeId>{s.outputNode()});
    }

    // A pointwise reader of the addmm itself: the add takes the addmm's name.
    void splitsBeforeADirectReader()
    {
        GraphPtr split = splitCode(R"(    t: "f32[16, 32][1, 16]cpu" = torch.ops.aten.t.default(w)
    addmm: "f32[8, 32][32, 1]cpu" = torch.ops.aten.addmm.default(b, x, t)
    relu: "f32[8, 32][32, 1]cpu" = torch.ops.aten.relu.default(addmm)
    return (relu,)
)", 1);
        QVERIFY(split);
        const Graph& s = *split;
        QCOMPARE(QString::fromStdString(named(s, "addmm_mm").target),
                 QStringLiteral("aten::mm.default"));
        const Node& add = named(s, "addmm");
        QCOMPARE(QString::fromStdString(add.target), QStringLiteral("aten::add.Tensor"));
        QCOMPARE(argNames(s, add), (std::vector<std::string>{"addmm_mm", "b"}));
        QCOMPARE(argNames(s, named(s, "relu")), (std::vector<std::string>{"addmm"}));
    }

    // A view that is returned besides (a training forward saves gelu's input): still split,
    // the add under the view's name is what the output returns.
    void splitsBeforeAReturnedView()
    {
        GraphPtr split = splitCode(R"(    t: "f32[16, 32][1, 16]cpu" = torch.ops.aten.t.default(w)
    addmm: "f32[8, 32][32, 1]cpu" = torch.ops.aten.addmm.default(b, x, t)
    view: "f32[2, 4, 32][128, 32, 1]cpu" = torch.ops.aten.view.default(addmm, [2, 4, 32])
    gelu: "f32[2, 4, 32][128, 32, 1]cpu" = torch.ops.aten.gelu.default(view)
    return (gelu, view)
)", 1);
        QVERIFY(split);
        const Graph& s = *split;
        QCOMPARE(QString::fromStdString(named(s, "view").target),
                 QStringLiteral("aten::add.Tensor"));
        QCOMPARE(returnedNames(s), (std::vector<std::string>{"gelu", "view"}));
    }

    void splitGraphRunsToTheSameOutputs()
    {
        GraphPtr g = parseFile(FXSCOPE_TEST_DATA "/compile/bias_split_fw.txt");
        QVERIFY(g);
        auto split = compile::splitBiasEpilogues(*g);
        QVERIFY(split.ok());
        exec::RunOptions o;
        o.seed = 3;
        o.perNodeTiming = false;
        auto before = exec::Interpreter::run(*g, o);
        auto after = exec::Interpreter::run(**split, o);
        QVERIFY(before && before->ok && after && after->ok);
        QCOMPARE(after->nodesRun, before->nodesRun + 1);
        for (int i = 0; i < 3; ++i) {
            const std::string key = "output." + std::to_string(i);
            const exec::TensorHandle* want = before->kept.find(key);
            const exec::TensorHandle* got = after->kept.find(key);
            QVERIFY(want && got);
            QVERIFY(want->sizes() == got->sizes());
            QVERIFY2(test::maxDifference(*got, *want, false) <= 1e-5, key.c_str());
        }
    }

    void keepsAddmmsThatDoNotQualify_data()
    {
        QTest::addColumn<QString>("body");
        QTest::newRow("alpha 2")
            << QStringLiteral(R"(    t: "f32[16, 32][1, 16]cpu" = torch.ops.aten.t.default(w)
    addmm: "f32[8, 32][32, 1]cpu" = torch.ops.aten.addmm.default(b, x, t, alpha = 2)
    relu: "f32[8, 32][32, 1]cpu" = torch.ops.aten.relu.default(addmm)
    return (relu,)
)");
        QTest::newRow("a view that moves the last size")
            << QStringLiteral(R"(    t: "f32[16, 32][1, 16]cpu" = torch.ops.aten.t.default(w)
    addmm: "f32[8, 32][32, 1]cpu" = torch.ops.aten.addmm.default(b, x, t)
    view: "f32[8, 4, 8][32, 8, 1]cpu" = torch.ops.aten.view.default(addmm, [8, 4, 8])
    relu: "f32[8, 4, 8][32, 8, 1]cpu" = torch.ops.aten.relu.default(view)
    return (relu,)
)");
        QTest::newRow("a reader that is not lowered")
            << QStringLiteral(R"(    t: "f32[16, 32][1, 16]cpu" = torch.ops.aten.t.default(w)
    addmm: "f32[8, 32][32, 1]cpu" = torch.ops.aten.addmm.default(b, x, t)
    relu: "f32[8, 32][32, 1]cpu" = torch.ops.aten.relu.default(addmm)
    mm: "f32[8, 16][16, 1]cpu" = torch.ops.aten.mm.default(addmm, w)
    return (relu, mm)
)");
    }

    void keepsAddmmsThatDoNotQualify()
    {
        QFETCH(QString, body);
        GraphPtr split = splitCode(body.toStdString(), 0);
        QVERIFY(split);
        QCOMPARE(QString::fromStdString(named(*split, "addmm").target),
                 QStringLiteral("aten::addmm.default"));
    }
};

QTEST_GUILESS_MAIN(TestBiasSplit)
#include "tst_bias_split.moc"

FXSCOPE_TEST_END
