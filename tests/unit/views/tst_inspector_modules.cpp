// The Inspector with a module tree: a node of the graph shows its module path and, for an input
// naming a parameter, the parameter's path; a node in no module shows none; a tree of another
// graph is not used; setModules redraws the node shown; each prefix of the module path is a
// link that reports that module.
#include "core/structure/structure.h"
#include "tests/test_file.h"
#include "views/panels/inspector_panel.h"

#include "tests/unit/structure/synthetic_graphs.h"

#include <QSignalSpy>
#include <QTextBlock>
#include <QTextBrowser>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

std::string dynamoName(std::size_t k)
{
    return "L_self_modules_layers_modules_" + std::to_string(k) + "_modules_fc_parameters_weight_";
}

} // namespace

class TestInspectorModules : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void showsModuleAndParameter()
    {
        const auto g = test::residualStack({32, 32}, dynamoName);
        auto tree = structure::recoverStructure(*g);
        QVERIFY(tree.ok());
        auto shared = std::make_shared<const structure::ModuleTree>(std::move(*tree));
        views::InspectorPanel panel;
        panel.setNode(g, *g->find("relu_1"));
        QVERIFY(!panel.plainText().contains(QStringLiteral("Module")));
        panel.setModules(g, shared); // redraws the node shown
        QVERIFY2(panel.plainText().contains(QStringLiteral("Module\nlayers.1\n")),
                 qPrintable(panel.plainText()));
        QVERIFY(!panel.plainText().contains(QStringLiteral("layers.1.fc")));
        panel.setNode(g, *g->find("mm_0"));
        QVERIFY(panel.plainText().contains(QStringLiteral("layers.0.fc")));
        panel.setNode(g, *g->find(dynamoName(1)));
        QVERIFY(panel.plainText().contains(QStringLiteral("Parameter")));
        QVERIFY(panel.plainText().contains(QStringLiteral("layers.1.fc.weight")));
        // The graph input x belongs to no module.
        panel.setNode(g, *g->find("x"));
        QVERIFY(!panel.plainText().contains(QStringLiteral("Module")));
        QVERIFY(!panel.plainText().contains(QStringLiteral("Parameter")));
    }

    void modulePathLinks()
    {
        const auto g = test::residualStack({32, 32}, dynamoName);
        auto tree = structure::recoverStructure(*g);
        QVERIFY(tree.ok());
        views::InspectorPanel panel;
        panel.setModules(g, std::make_shared<const structure::ModuleTree>(std::move(*tree)));
        panel.setNode(g, *g->find("mm_0"));
        auto* browser = panel.findChild<QTextBrowser*>();
        QVERIFY(browser);
        QStringList links;
        for (QTextBlock b = browser->document()->begin(); b.isValid(); b = b.next()) {
            for (auto it = b.begin(); !it.atEnd(); ++it) {
                const QString href = it.fragment().charFormat().anchorHref();
                if (href.startsWith(QStringLiteral("module:"))) {
                    links << href;
                }
            }
        }
        QCOMPARE(links, (QStringList{QStringLiteral("module:layers"),
                                     QStringLiteral("module:layers.0"),
                                     QStringLiteral("module:layers.0.fc")}));
        QVERIFY(panel.plainText().contains(QStringLiteral("Module\nlayers.0.fc\n")));
        QSignalSpy picked(&panel, &views::InspectorPanel::moduleLinkActivated);
        Q_EMIT browser->anchorClicked(QUrl(QStringLiteral("module:layers.1")));
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked.front().at(0).toString(), QStringLiteral("layers.1"));
    }

    void otherGraphsTreeIsNotUsed()
    {
        const auto g = test::residualStack({32, 32}, dynamoName);
        const auto other = test::residualStack({32, 32}, dynamoName);
        auto tree = structure::recoverStructure(*other);
        QVERIFY(tree.ok());
        views::InspectorPanel panel;
        panel.setModules(other, std::make_shared<const structure::ModuleTree>(std::move(*tree)));
        panel.setNode(g, *g->find("relu_1"));
        QVERIFY(!panel.plainText().contains(QStringLiteral("Module")));
        panel.setNode(other, *other->find("relu_1"));
        QVERIFY(panel.plainText().contains(QStringLiteral("layers.1")));
        panel.setModules(other, nullptr);
        QVERIFY(!panel.plainText().contains(QStringLiteral("Module")));
    }
};

QTEST_MAIN(TestInspectorModules)
#include "tst_inspector_modules.moc"

FXSCOPE_TEST_END
