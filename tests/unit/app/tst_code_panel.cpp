// CodePanel: graph code with the selected node's line highlighted (relative to the graph's
// first line), output code sources, Inductor's node comments found by name.
#include "core/io/graph_code_parser.h"
#include "core/io/pt2_reader.h"
#include "tests/test_file.h"
#include "views/panels/code_panel.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;

class TestCodePanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void highlightsTheNodesLine()
    {
        const std::string text = "class GraphModule(torch.nn.Module):\n"
                                 "    def forward(self, x: \"f32[4]\"):\n"
                                 "        sin: \"f32[4]\" = torch.ops.aten.sin.default(x)\n"
                                 "        cos: \"f32[4]\" = torch.ops.aten.cos.default(sin)\n"
                                 "        return (cos,)\n";
        // The text sits at line 40 of its file: cos is on file line 43, panel line 4.
        auto parsed = io::parseGraphCode(text, "g.txt", 40);
        QVERIFY(parsed.graph);
        CodePanel panel;
        panel.setGraph(parsed.graph, {{QStringLiteral("out"), QStringLiteral("# a\n# b\n")}});
        QCOMPARE(panel.sourceCount(), 2);
        QCOMPARE(panel.currentText(), QString::fromStdString(text));
        panel.showNode(*parsed.graph->find("cos"));
        QCOMPARE(panel.highlightedLine(), 4);
        panel.setCurrentSource(1);
        QCOMPARE(panel.currentText(), QStringLiteral("# a\n# b\n"));
        QCOMPARE(panel.highlightedLine(), 0); // the output code does not name cos
        panel.clear();
        QCOMPARE(panel.currentText(), QString());
    }

    // A graph without text of its own (a torch.export program) is shown printed as graph code:
    // the source says so, the selected node's statement is highlighted; a placeholder (in the
    // signature) highlights nothing.
    void printsGraphsWithoutCode()
    {
        auto read = io::readPt2(FXSCOPE_TEST_DATA "/recorded/export/cnn_bn.pt2");
        QVERIFY(read.ok() && read->graph);
        QVERIFY(read->graph->text().empty());
        CodePanel panel;
        panel.setGraph(read->graph);
        QCOMPARE(panel.sourceCount(), 1);
        const QString code = panel.currentText();
        QVERIFY(code.contains(QStringLiteral("def forward(")));
        const auto conv = read->graph->find("conv2d");
        QVERIFY(conv);
        panel.showNode(*conv);
        QVERIFY(panel.highlightedLine() > 0);
        const QString line = code.split(QLatin1Char('\n')).at(panel.highlightedLine() - 1);
        QVERIFY2(line.trimmed().startsWith(QStringLiteral("conv2d")) &&
                     line.contains(QStringLiteral("torch.ops.aten.conv2d")),
                 qPrintable(line));
        panel.showNode(*read->graph->find("x"));
        QCOMPARE(panel.highlightedLine(), 0);
        // By hand: a statement with and without its meta; a longer name is not the node.
        const QString printed = QStringLiteral("    def forward(self, x):\n"
                                               "        relu_1 = torch.ops.aten.relu.default(x)\n"
                                               "        relu: \"f32[4]\" = x.relu()\n"
                                               "        return (relu == relu_1,)\n");
        QCOMPARE(CodePanel::findStatement(printed, QStringLiteral("relu")), 2);
        QCOMPARE(CodePanel::findStatement(printed, QStringLiteral("relu_1")), 1);
        QCOMPARE(CodePanel::findStatement(printed, QStringLiteral("x")), -1);
    }

    void findsNodesInOutputCode()
    {
        const QString code = QStringLiteral(
            "# Topologically Sorted Source Nodes: [relu, mul, le], Original ATen: [aten.relu]\n"
            "# Source node to ATen node mapping:\n"
            "#   %mul_1 : Tensor \"f32[64]\"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%t, 2))\n"
            "#   %mul : Tensor \"f32[64]\"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%relu, 2))\n");
        QCOMPARE(CodePanel::findNodeInOutputCode(code, QStringLiteral("mul")), 3);
        QCOMPARE(CodePanel::findNodeInOutputCode(code, QStringLiteral("le")), 0);
        QCOMPARE(CodePanel::findNodeInOutputCode(code, QStringLiteral("mul_1")), 2);
        QCOMPARE(CodePanel::findNodeInOutputCode(code, QStringLiteral("l")), -1);
        QCOMPARE(CodePanel::findNodeInOutputCode(code, QString()), -1);
    }
};

QTEST_MAIN(TestCodePanel)
#include "tst_code_panel.moc"

FXSCOPE_TEST_END
