// Graph diff: nodes matched by name and compared by op, target, args and meta; added and
// removed nodes; the bare `gm` graph code of a cache key parsed on both sides; the line-diff
// fallback when a side does not parse.
#include "core/explain/graph_diff.h"
#include "core/graph/graph_builder.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::explain;
using namespace fxs::graph;

namespace {

TensorMeta f32(std::int64_t rows, std::int64_t cols)
{
    return TensorMeta{DType::Float32, {SymInt::of(rows), SymInt::of(cols)}, std::nullopt,
                      std::nullopt};
}

// x, y -> sin(x) -> mm(sin, y) -> relu -> mul(relu, k)
GraphPtr build(const std::string& activation, std::int64_t factor, std::int64_t cols,
               bool extraNode)
{
    GraphBuilder b;
    const NodeId x = b.placeholder("x", f32(64, 64));
    const NodeId y = b.placeholder("y", f32(64, cols));
    const NodeId s = b.call("sin", "aten::sin.default", {Argument::ref(x)}, {}, f32(64, 64));
    const NodeId mm = b.call("mm", "aten::mm.default", {Argument::ref(s), Argument::ref(y)}, {},
                             f32(64, cols));
    const NodeId act = b.call("relu", activation, {Argument::ref(mm)}, {}, f32(64, cols));
    NodeId last = b.call("mul", "aten::mul.Tensor", {Argument::ref(act), Argument::integer(factor)},
                         {}, f32(64, cols));
    if (extraNode) {
        last = b.call("neg", "aten::neg.default", {Argument::ref(last)}, {}, f32(64, cols));
    }
    b.output({Argument::tuple({Argument::ref(last)})});
    return *b.build();
}

const NodeChange* find(const GraphDiff& d, const std::string& name)
{
    for (const auto& n : d.nodes) {
        if (n.name == name) {
            return &n;
        }
    }
    return nullptr;
}

// The bare form of a cache key's gm component (basic_cold's forward FX graph).
const std::string kForwardGm =
    "GraphModule()\n\n\n\n"
    "def forward(self, primals_1, primals_2):\n"
    "    sin = torch.ops.aten.sin.default(primals_1)\n"
    "    mm = torch.ops.aten.mm.default(sin, primals_2);  sin = None\n"
    "    relu = torch.ops.aten.relu.default(mm);  mm = None\n"
    "    mul = torch.ops.aten.mul.Tensor(relu, 2)\n"
    "    le = torch.ops.aten.le.Scalar(relu, 0);  relu = None\n"
    "    permute = torch.ops.aten.permute.default(primals_2, [1, 0]);  primals_2 = None\n"
    "    return (mul, primals_1, le, permute)\n"
    "    ";

std::string replaced(std::string s, const std::string& from, const std::string& to)
{
    s.replace(s.find(from), from.size(), to);
    return s;
}

} // namespace

class TestGraphDiff : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void identicalGraphs()
    {
        const auto a = build("aten::relu.default", 2, 64, false);
        const auto d = diffGraphs(a, build("aten::relu.default", 2, 64, false));
        QVERIFY(d.parsed);
        QVERIFY(d.nodes.empty());
        QCOMPARE(d.unchanged, std::size_t(7));
        QCOMPARE(d.summary(), std::string("no node changed"));
    }

    void changedTargetArgsAndMeta()
    {
        const auto a = build("aten::relu.default", 2, 64, false);
        const auto b = build("aten::gelu.default", 3, 32, true);
        const auto d = diffGraphs(a, b);
        QVERIFY(d.parsed);
        // y, mm, relu, mul change (meta, meta, target+meta, args+meta); neg is added; output
        // changes its args (returns neg instead of mul).
        const NodeChange* relu = find(d, "relu");
        QVERIFY(relu);
        QCOMPARE(relu->change, NodeChangeKind::Changed);
        QCOMPARE(relu->fields, (std::vector<std::string>{"target", "meta"}));
        QCOMPARE(relu->targetA, std::string("aten::relu.default"));
        QCOMPARE(relu->targetB, std::string("aten::gelu.default"));
        QCOMPARE(relu->opA, std::string("call_function"));
        const NodeChange* mul = find(d, "mul");
        QVERIFY(mul);
        QCOMPARE(mul->fields, (std::vector<std::string>{"args", "meta"}));
        QCOMPARE(mul->argsA, std::string("(relu, 2)"));
        QCOMPARE(mul->argsB, std::string("(relu, 3)"));
        const NodeChange* y = find(d, "y");
        QVERIFY(y);
        QCOMPARE(y->fields, std::vector<std::string>{"meta"});
        QVERIFY(!find(d, "x"));
        QVERIFY(!find(d, "sin"));
        const NodeChange* neg = find(d, "neg");
        QVERIFY(neg);
        QCOMPARE(neg->change, NodeChangeKind::Added);
        QCOMPARE(neg->idA, kNoNode);
        QCOMPARE(d.count(NodeChangeKind::Added), std::size_t(1));
        QCOMPARE(d.count(NodeChangeKind::Removed), std::size_t(0));
        QCOMPARE(d.count(NodeChangeKind::Changed), std::size_t(5)); // y, mm, relu, mul, output
        QCOMPARE(d.unchanged, std::size_t(2));                      // x, sin
        QCOMPARE(d.summary(), std::string("5 nodes changed, 1 added (of 7 \u2192 8 nodes)"));
        QCOMPARE(d.changeText(), std::string()); // six changes: counted, not listed
        QVERIFY(!d.changeText(6).empty());
    }

    void fewChangesAreNamed()
    {
        // The constant of one mul: the node, both sides, short target and arguments.
        const auto factor = diffGraphs(build("aten::relu.default", 2, 64, false),
                                       build("aten::relu.default", 3, 64, false));
        QCOMPARE(factor.changeText(), std::string("mul(relu, 2) \u2192 mul(relu, 3)"));
        // An added node and a removed one.
        const auto added = diffGraphs(build("aten::relu.default", 2, 64, false),
                                      build("aten::relu.default", 2, 64, true));
        QCOMPARE(added.changeText(), std::string("+ neg(mul)"));
        const auto removed = diffGraphs(build("aten::relu.default", 2, 64, true),
                                        build("aten::relu.default", 2, 64, false));
        QCOMPARE(removed.changeText(), std::string("\u2212 neg(mul)"));
        QCOMPARE(diffGraphs(build("aten::relu.default", 2, 64, false),
                            build("aten::relu.default", 2, 64, false))
                     .changeText(),
                 std::string());
    }

    void functionsAreNamedNotTheirModules()
    {
        // Issue 26: `gelu * 2.0` is an operator.mul node; its change reads mul(...), not
        // operator(...). Python paths and torch.ops overloads are named by their function.
        auto code = [](const std::string& factor) {
            return "GraphModule()\n\n\n\ndef forward(self, x):\n"
                   "    gelu = torch._C._nn.gelu(x);  x = None\n"
                   "    mul = gelu * " + factor + ";  gelu = None\n"
                   "    return (mul,)\n    ";
        };
        const auto d = diffGraphCode(code("2.0"), code("3.0"));
        QVERIFY(d.parsed);
        const NodeChange* mul = find(d, "mul");
        QVERIFY(mul);
        QCOMPARE(mul->targetA, std::string("operator.mul"));
        QCOMPARE(d.changeText(), std::string("mul(gelu, 2.0) \u2192 mul(gelu, 3.0)"));
        const auto gelu = diffGraphCode(
            code("2.0"),
            replaced(code("2.0"), "torch._C._nn.gelu(x)", "torch.nn.functional.silu(x)"));
        QCOMPARE(gelu.changeText(), std::string("gelu(x) \u2192 silu(x)"));
        const auto ops = diffGraphCode(
            code("2.0"),
            replaced(code("2.0"), "torch._C._nn.gelu(x)", "torch.ops.aten.cos.default(x)"));
        QCOMPARE(ops.changeText(), std::string("gelu(x) \u2192 cos(x)"));
    }

    void removedNodes()
    {
        const auto d = diffGraphs(build("aten::relu.default", 2, 64, true),
                                  build("aten::relu.default", 2, 64, false));
        const NodeChange* neg = find(d, "neg");
        QVERIFY(neg);
        QCOMPARE(neg->change, NodeChangeKind::Removed);
        QCOMPARE(neg->targetA, std::string("aten::neg.default"));
        QVERIFY(neg->targetB.empty());
        QCOMPARE(nodeChangeKindName(neg->change), std::string_view("removed"));
        QVERIFY(!diffGraphs(nullptr, build("aten::relu.default", 2, 64, false)).parsed);
    }

    void parsesBareGmCodeOnBothSides()
    {
        const std::string changed = replaced(
            replaced(kForwardGm, "torch.ops.aten.mul.Tensor(relu, 2)",
                     "torch.ops.aten.mul.Tensor(relu, 3)"),
            "relu = torch.ops.aten.relu.default(mm)", "relu = torch.ops.aten.sigmoid.default(mm)");
        const auto d = diffGraphCode(kForwardGm, changed);
        QVERIFY(d.parsed);
        QVERIFY(d.lineDiff.empty());
        QCOMPARE(d.nodesA, std::size_t(9)); // 2 placeholders, 6 calls, output
        QCOMPARE(d.nodesB, std::size_t(9));
        QCOMPARE(d.nodes.size(), std::size_t(2));
        const NodeChange* relu = find(d, "relu");
        QVERIFY(relu);
        QCOMPARE(relu->targetA, std::string("aten::relu.default"));
        QCOMPARE(relu->targetB, std::string("aten::sigmoid.default"));
        const NodeChange* mul = find(d, "mul");
        QVERIFY(mul);
        QCOMPARE(mul->fields, std::vector<std::string>{"args"});
        QCOMPARE(mul->argsB, std::string("(relu, 3)"));
        QVERIFY(d.graphA && d.graphB);
    }

    void renamedParametersAreAddedAndRemoved()
    {
        const std::string renamed =
            "GraphModule()\n\n\n\n"
            "def forward(self, p_0 : torch.Tensor, p_1 : torch.Tensor):\n"
            "    sin = p_0.sin();  p_0 = None\n"
            "    matmul = sin @ p_1;  sin = p_1 = None\n"
            "    relu = matmul.relu();  matmul = None\n"
            "    mul = relu * 2;  relu = None\n"
            "    return (mul,)\n"
            "    ";
        const auto d = diffGraphCode(kForwardGm, renamed);
        QVERIFY(d.parsed);
        QVERIFY(find(d, "p_0") && find(d, "p_0")->change == NodeChangeKind::Added);
        QVERIFY(find(d, "primals_1") &&
                find(d, "primals_1")->change == NodeChangeKind::Removed);
        QCOMPARE(find(d, "sin")->opB, std::string("call_method"));
        QCOMPARE(find(d, "sin")->opA, std::string("call_function"));
        QVERIFY(find(d, "mm")->change == NodeChangeKind::Removed);
    }

    void fallsBackToLineDiffWhenUnparsable()
    {
        const std::string broken = replaced(kForwardGm, "    le = torch.ops.aten.le.Scalar(relu, 0)",
                                            "    le = ((( this is not python");
        const auto d = diffGraphCode(kForwardGm, broken);
        QVERIFY(!d.parsed);
        QVERIFY(d.nodes.empty());
        QCOMPARE(d.lineDiff.size(), std::size_t(2));
        QCOMPARE(d.lineDiff[0].substr(0, 10), std::string("- " "    le ="));
        QCOMPARE(d.lineDiff[1], std::string("+     le = ((( this is not python;  relu = None"));
        QCOMPARE(d.summary(), std::string("graph code differs in 2 lines"));
        const auto same = diffGraphCode("not a graph\nat all", "not a graph\nat all");
        QVERIFY(!same.parsed);
        QVERIFY(same.empty());
        QCOMPARE(same.summary(), std::string("graph code identical"));
        const auto inserted = diffGraphCode("a\nb\nc\nd", "a\nx\nb\nd");
        QCOMPARE(inserted.lineDiff, (std::vector<std::string>{"+ x", "- c"}));
    }
};

QTEST_GUILESS_MAIN(TestGraphDiff)
#include "tst_graph_diff.moc"

FXSCOPE_TEST_END
