// printGraphCode: small graphs printed exactly (checked by hand), and parse -> print -> parse
// round trips over every fixture graph and TORCH_TRACE graph payload.
#include "core/graph/graph_builder.h"
#include "core/graph/graph_printer.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"

#include "graph_code_fixtures.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

bool sameAot(const std::optional<AotTag>& a, const std::optional<AotTag>& b)
{
    return a.has_value() == b.has_value() && (!a || (a->text == b->text && a->idx == b->idx));
}

// Empty when equal, else the first difference.
std::string difference(const Graph& a, const Graph& b)
{
    if (a.size() != b.size() || a.name() != b.name()) {
        return a.name() + ": size " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
    }
    for (NodeId i = 0; i < a.size(); ++i) {
        const Node& x = a.node(i);
        const Node& y = b.node(i);
        const bool same =
            x.name == y.name && x.op == y.op && x.target == y.target && x.args == y.args &&
            x.kwargs == y.kwargs && x.meta.kind == y.meta.kind && x.meta.text == y.meta.text &&
            x.meta.tensor == y.meta.tensor && x.source.file == y.source.file &&
            x.source.line == y.source.line && x.source.function == y.source.function &&
            x.source.code == y.source.code && x.annotation.has_value() == y.annotation.has_value() &&
            (!x.annotation || (x.annotation->text == y.annotation->text &&
                               x.annotation->entries == y.annotation->entries)) &&
            sameAot(x.aot, y.aot) && x.outputAot.size() == y.outputAot.size();
        if (!same) {
            return a.name() + ": node " + x.name + " differs";
        }
        for (std::size_t k = 0; k < x.outputAot.size(); ++k) {
            if (!sameAot(x.outputAot[k], y.outputAot[k])) {
                return "output AOT tag " + std::to_string(k);
            }
        }
    }
    if (a.submodules().size() != b.submodules().size()) {
        return a.name() + ": submodule count";
    }
    for (std::size_t k = 0; k < a.submodules().size(); ++k) {
        const std::string d = difference(*a.submodules()[k], *b.submodules()[k]);
        if (!d.empty()) {
            return d;
        }
    }
    return {};
}

void roundTrip(const std::string& text, const QString& where)
{
    const auto first = io::parseGraphCode(text, "in.py");
    QVERIFY2(first.graph, qPrintable(where));
    const std::string printed = printGraphCode(*first.graph);
    const auto second = io::parseGraphCode(printed, "printed.py");
    QVERIFY2(second.graph && second.diagnostics.empty(), qPrintable(where));
    const std::string diff = difference(*first.graph, *second.graph);
    QVERIFY2(diff.empty(), qPrintable(where + ": " + QString::fromStdString(diff)));
    // Printing is a fixed point after one round.
    QCOMPARE(printGraphCode(*second.graph), printed);
}

} // namespace

class TestGraphPrinter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void printsBuiltGraph()
    {
        GraphBuilder b("Small");
        TensorMeta m{DType::Float32, {SymInt::of(4)}, std::vector<SymInt>{SymInt::of(1)}, Device{"cuda", 0}};
        const NodeId x = b.placeholder("x", m);
        const NodeId w = b.add(Node{.name = "w", .op = OpKind::GetAttr, .target = "weight"});
        Node add;
        add.name = "add";
        add.target = "aten::add.Tensor";
        add.args = {Argument::ref(x), Argument::ref(w)};
        add.kwargs = {{"alpha", Argument::real(0.5)}};
        add.source = {"/a/m.py", 7, "forward", "return x + self.weight"};
        add.annotation = Annotation{"{'compile_with_inductor': 0}", {{"compile_with_inductor", "0"}}};
        const NodeId a = b.add(add);
        const NodeId item = b.getitem("getitem", a, 0);
        Node neg;
        neg.name = "neg";
        neg.target = "operator.neg";
        neg.args = {Argument::ref(item)};
        const NodeId n = b.add(neg);
        Node rel;
        rel.name = "relu";
        rel.op = OpKind::CallMethod;
        rel.target = "relu";
        rel.args = {Argument::ref(n), Argument::string("it's\n")};
        const NodeId r = b.add(rel);
        b.output({Argument::ref(r), Argument::none()});
        auto g = b.build();
        QVERIFY(g.ok());
        const std::string expected =
            "class Small(torch.nn.Module):\n"
            "    def forward(self, x: \"f32[4][1]cuda:0\"):\n"
            "        w = self.weight\n"
            "\n"
            "        # Annotation: {'compile_with_inductor': 0} File: /a/m.py:7 in forward, code: return x + self.weight\n"
            "        add = torch.ops.aten.add.Tensor(x, w, alpha = 0.5)\n"
            "\n"
            "        # No stacktrace found for following nodes\n"
            "        getitem = add[0]\n"
            "        neg = -getitem\n"
            "        relu = neg.relu('it\\'s\\n')\n"
            "        return (relu, None)\n";
        QCOMPARE(printGraphCode(**g), expected);
        QCOMPARE(nodeExpression(**g, (*g)->node(item)), std::string("add[0]"));
        QVERIFY(nodeExpression(**g, (*g)->node(x)).empty());
        // Without metas no annotation strings are printed.
        QVERIFY(printGraphCode(**g, false).find("f32") == std::string::npos);
        roundTrip(expected, "built");
    }

    void printsAotAndAliases()
    {
        const std::string text = "class GraphModule(torch.nn.Module):\n"
                                 "    def forward(self, L_x_: \"f32[2][1]cpu\"):\n"
                                 "        l_x_ = L_x_\n"
                                 "        sin = torch.sin(l_x_)\n"
                                 "        return (sin,)\n";
        const auto r = io::parseGraphCode(text, "a.py");
        const std::string printed = printGraphCode(*r.graph);
        QVERIFY(printed.find("    def forward(self, L_x_: \"f32[2][1]cpu\"):\n        l_x_ = L_x_\n") !=
                std::string::npos);
        const auto aot = io::parseGraphCode("def forward(self, a: \"f32[2]\",  # PlainAOTInput(idx=0)\n"
                                            "):\n    return (\n        a,  # PlainAOTOutput(idx=0)\n    )\n",
                                            "b.py");
        QVERIFY(aot.graph);
        const std::string p2 = printGraphCode(*aot.graph);
        QVERIFY(p2.find("        a: \"f32[2]\",  # PlainAOTInput(idx=0)\n") != std::string::npos);
        QVERIFY(p2.find("            a,  # PlainAOTOutput(idx=0)\n") != std::string::npos);
    }

    void roundTripsEveryOperator()
    {
        const char* ops[] = {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&",
                             "|", "^", "==", "!=", "<", ">", "<=", ">="};
        std::string text = "def forward(self, a, b):\n";
        int k = 0;
        for (const char* op : ops) {
            text += "    b" + std::to_string(k++) + " = a " + op + " b\n";
        }
        text += "    n0 = -a\n    n1 = +a\n    n2 = ~a\n"
                "    m = a.view(-1, 2)\n    s = a[1:, ..., None]\n    t = self.sub(a, key = 'v')\n"
                "    w = self.layer.weight\n    sh = a.shape\n    return (b0, n2, m, s, t, w, sh)\n";
        const auto r = io::parseGraphCode(text, "ops.py");
        QVERIFY(r.graph && r.diagnostics.empty());
        k = 0;
        for (const char* op : ops) {
            const Node& n = r.graph->node(*r.graph->find("b" + std::to_string(k++)));
            bool unary = true;
            QCOMPARE(operatorToken(n.target, unary), std::string_view(op));
            QVERIFY(!unary);
            QCOMPARE(operatorTarget(op, false), std::string_view(n.target));
            QCOMPARE(nodeExpression(*r.graph, n), "a " + std::string(op) + " b");
        }
        QCOMPARE(r.graph->node(*r.graph->find("n1")).target, std::string("operator.pos"));
        QCOMPARE(nodeExpression(*r.graph, r.graph->node(*r.graph->find("s"))),
                 std::string("a[(slice(1, None, None), ..., None)]"));
        QCOMPARE(nodeExpression(*r.graph, r.graph->node(*r.graph->find("t"))),
                 std::string("self.sub(a, key = 'v')"));
        QCOMPARE(r.graph->node(*r.graph->find("w")).target, std::string("layer.weight"));
        QVERIFY(operatorTarget("@", true).empty());
        roundTrip(text, "operators");
    }

    void roundTripsFixtures()
    {
        for (const QString& f : fxs_test::graphFixtureFiles()) {
            roundTrip(fxs_test::readText(f).toStdString(), f);
        }
    }

    void roundTripsTracePayloads()
    {
        std::vector<fxs_test::Payload> graphs;
        std::vector<fxs_test::Payload> gms;
        fxs_test::tracePayloads(graphs, gms);
        QVERIFY(graphs.size() > 50);
        for (const auto* list : {&graphs, &gms}) {
            for (const auto& p : *list) {
                roundTrip(p.text, p.where);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestGraphPrinter)
#include "tst_graph_printer.moc"

FXSCOPE_TEST_END
