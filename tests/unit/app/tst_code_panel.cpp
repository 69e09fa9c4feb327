// CodePanel: graph code with the selected node's line highlighted (relative to the graph's
// first line), output code sources, Inductor's node comments found by name.
#include "core/io/graph_code_parser.h"
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
