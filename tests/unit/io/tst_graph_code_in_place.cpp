// In-place statements of printed graph code, as FX prints operator.iadd & co and
// operator.setitem (`out_4 += x_3;  out_5: "f32[4]" = out_4`, `x[0] = v;  setitem = x`): what
// node they make, that the printer writes them back the same way, and the malformed forms.
#include "core/graph/graph_printer.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

io::GraphCodeResult parse(const std::string& text)
{
    return io::parseGraphCode(text, "inline.py");
}

const Node& nodeNamed(const Graph& g, std::string_view name)
{
    const auto id = g.find(name);
    if (!id) {
        qFatal("no node named %s", std::string(name).c_str());
    }
    return g.node(*id);
}

bool hasError(const io::GraphCodeResult& r, int line, const std::string& messagePart)
{
    for (const auto& d : r.diagnostics.items()) {
        if (d.severity == Severity::Error && d.line == line &&
            d.message.find(messagePart) != std::string::npos) {
            return true;
        }
    }
    return false;
}

// ResNet's BasicBlock in a Dynamo graph (resnet18.log, layer1.0): `out += identity`.
const std::string kResidual =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, L_x_: \"f32[2, 4][4, 1]cuda:0\", L_y_: \"f32[2, 4][4, 1]cuda:0\"):\n"
    "        l_x_ = L_x_\n"
    "        l_y_ = L_y_\n"
    "        out_4: \"f32[2, 4][4, 1]cuda:0\" = l_x_.relu()\n"
    "        # File: /x/resnet.py:102 in forward, code: out += identity\n"
    "        out_4 += l_y_;  out_5: \"f32[2, 4][4, 1]cuda:0\" = out_4;  out_4 = l_y_ = None\n"
    "        out_6: \"f32[2, 4][4, 1]cuda:0\" = torch.nn.functional.relu(out_5, inplace = True)\n"
    "        return (out_6,)\n";

} // namespace

class TestGraphCodeInPlace : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void augmentedAssignment()
    {
        const auto r = parse(kResidual);
        QVERIFY(r.diagnostics.empty());
        QVERIFY(r.graph);
        QCOMPARE(r.graph->size(), std::size_t(6)); // 2 inputs, relu, iadd, relu, output
        const Node& add = nodeNamed(*r.graph, "out_5");
        QCOMPARE(add.op, OpKind::CallFunction);
        QCOMPARE(add.target, std::string("operator.iadd"));
        QCOMPARE(add.args.size(), std::size_t(2));
        QCOMPARE(add.args[0].node, *r.graph->find("out_4"));
        QCOMPARE(add.args[1].node, *r.graph->find("l_y_"));
        QCOMPARE(add.meta.text, std::string("f32[2, 4][4, 1]cuda:0"));
        QCOMPARE(add.source.line, 102);
        QCOMPARE(add.line, 7);
        QVERIFY(!r.graph->find("out_4 += l_y_").has_value());
        QCOMPARE(nodeNamed(*r.graph, "out_6").args[0].node, add.id);
    }

    void everyInPlaceOperator_data()
    {
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("target");
        for (const char* op : {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "<<=", ">>=",
                               "&=", "|=", "^="}) {
            QTest::newRow(op) << op << QString::fromUtf8(inPlaceOperatorTarget(op).data(),
                                                        int(inPlaceOperatorTarget(op).size()));
        }
    }

    void everyInPlaceOperator()
    {
        QFETCH(QString, token);
        QFETCH(QString, target);
        QVERIFY(target.startsWith("operator.i"));
        const auto r = parse("def forward(self, a, b):\n    a " + token.toStdString() +
                             " b;  c = a\n    return c\n");
        QVERIFY(r.diagnostics.empty());
        QCOMPARE(QString::fromStdString(nodeNamed(*r.graph, "c").target), target);
        // The printer writes it back in FX's form, and that reads back to the same node.
        const std::string printed = printGraphCode(*r.graph);
        QVERIFY2(printed.find("a " + token.toStdString() + " b;  c = a") != std::string::npos,
                 printed.c_str());
        const auto again = parse(printed);
        QVERIFY(again.diagnostics.empty());
        QCOMPARE(nodeNamed(*again.graph, "c").target, nodeNamed(*r.graph, "c").target);
    }

    void setitem()
    {
        const auto r = parse("def forward(self, x, v):\n"
                             "    x[(slice(None, None, None), 0)] = v;  setitem = x;  x = v = None\n"
                             "    return setitem\n");
        QVERIFY(r.diagnostics.empty());
        const Node& s = nodeNamed(*r.graph, "setitem");
        QCOMPARE(s.target, std::string("operator.setitem"));
        QCOMPARE(s.args.size(), std::size_t(3));
        QCOMPARE(s.args[0].node, r.graph->placeholders()[0]);
        QCOMPARE(s.args[1].kind, ArgKind::Tuple);
        QCOMPARE(s.args[2].node, r.graph->placeholders()[1]);
        const auto again = parse(printGraphCode(*r.graph));
        QVERIFY(again.diagnostics.empty());
        QCOMPARE(nodeNamed(*again.graph, "setitem").target, std::string("operator.setitem"));
    }

    // Malformed in-place statements are errors at their line; the rest is read.
    void malformed_data()
    {
        QTest::addColumn<QString>("statement");
        QTest::addColumn<QString>("message");
        QTest::newRow("no result") << "a += b" << "without its result";
        QTest::newRow("result of another value") << "a += b;  c = b" << "not the updated value";
        QTest::newRow("result not a name") << "a += b;  c = a + b" << "not the updated value";
        QTest::newRow("plain expression statement") << "a + b" << "not an assignment";
        QTest::newRow("setitem without result") << "a[0] = b" << "without its result";
        QTest::newRow("augmented subscript") << "a[0] += b;  c = a" << "not an assignment";
    }

    void malformed()
    {
        QFETCH(QString, statement);
        QFETCH(QString, message);
        const auto r = parse("def forward(self, a, b):\n    " + statement.toStdString() +
                             "\n    d = b.relu()\n    return d\n");
        QVERIFY(r.graph);
        QVERIFY2(hasError(r, 2, message.toStdString()), statement.toUtf8().constData());
        QVERIFY(r.graph->find("d").has_value());
    }
};

QTEST_GUILESS_MAIN(TestGraphCodeInPlace)
#include "tst_graph_code_in_place.moc"

FXSCOPE_TEST_END
