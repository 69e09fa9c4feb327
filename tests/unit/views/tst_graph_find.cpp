// The graph view's find (offscreen): plain text and regular expressions over node names, op
// targets, module paths and attribute text, each match's field; an invalid expression; the n/N
// counter and Enter/Shift+Enter/F3 stepping; every match in the decorations' Search layer (and
// a collapsed group holding one drawn highlighted); from a fitted large graph a find step zooms
// in to a readable scale on the match. Counts are taken from the fixture text by hand.
#include "core/structure/structure.h"
#include "tests/test_file.h"
#include "tests/unit/views/graph_view_test_util.h"
#include "views/graph/find_bar.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_finder.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"

#include <QLineEdit>
#include <QToolButton>
#include <QtTest>

#include <algorithm>
#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using fxs::views::DecorationLayer;
using fxs::views::FindField;
using fxs::views::GraphView;

using fxs::test::loadFixture;
using fxs::test::showWhole;
using fxs::test::waitForLayout;

namespace {

// The nodes the finder matched, by name.
std::set<std::string> matchedNames(const GraphView& view)
{
    std::set<std::string> out;
    for (const auto& m : view.finder()->matches()) {
        out.insert(view.graph()->node(m.node).name);
    }
    return out;
}

bool allIn(const GraphView& view, FindField field)
{
    const auto& ms = view.finder()->matches();
    return std::all_of(ms.begin(), ms.end(), [&](const auto& m) { return m.field == field; });
}

QString status(const GraphView& view)
{
    return view.findBar()->statusText();
}

} // namespace

class TestGraphFind : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // gpt2_annotated_fw.txt: addmm, addmm_1 .. addmm_6; two aten.gelu and two aten.mm calls;
    // six clones with memory_format = torch.contiguous_format; i64 outputs: primals_2
    // (i64[4, 64]) and getitem_5, _6, _15, _16 (i64[]).
    void matchesNamesOpsAndAttributes()
    {
        GraphView view;
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        view.showFindBar();
        view.finder()->setRegex(true);
        view.setFindText(QStringLiteral("^addmm_[0-9]$"));
        QCOMPARE(matchedNames(view), (std::set<std::string>{"addmm_1", "addmm_2", "addmm_3",
                                                            "addmm_4", "addmm_5", "addmm_6"}));
        QVERIFY(allIn(view, FindField::Name));
        view.setFindText(QStringLiteral("aten::(gelu|mm)\\."));
        QCOMPARE(matchedNames(view), (std::set<std::string>{"gelu", "gelu_1", "mm", "mm_1"}));
        QVERIFY(allIn(view, FindField::Op));
        view.setFindText(QStringLiteral("^i64\\[\\]"));
        QCOMPARE(matchedNames(view), (std::set<std::string>{"getitem_5", "getitem_6",
                                                            "getitem_15", "getitem_16"}));
        QVERIFY(allIn(view, FindField::Attribute));
        // Plain text (Alt+R turns the expression mode off): attributes too, case-insensitive.
        QLineEdit* edit = view.findBar()->findChild<QLineEdit*>();
        QTest::keyClick(edit, Qt::Key_R, Qt::AltModifier);
        QVERIFY(!view.finder()->isRegex());
        view.setFindText(QStringLiteral("I64["));
        QCOMPARE(view.findMatchCount(), 5);
        QVERIFY(matchedNames(view).count("primals_2"));
        view.setFindText(QStringLiteral("contiguous_format"));
        QCOMPARE(matchedNames(view), (std::set<std::string>{"clone", "clone_1", "clone_2",
                                                            "clone_3", "clone_4", "clone_5"}));
        QVERIFY(allIn(view, FindField::Attribute));
        view.findNext();
        QVERIFY2(status(view).contains(QStringLiteral("attribute: memory_format=")),
                 qPrintable(status(view)));
    }

    // Module paths from the recovered module tree (names: s.blocks.1.fc1 holds block 1's fc1
    // weight and bias, whose node names spell the path with underscores, so only the module
    // field can match the dotted expression).
    void matchesModulePaths()
    {
        GraphView view;
        GraphPtr g = loadFixture(QStringLiteral("/recorded/graphs/nested_dynamo_graph0.txt"));
        QVERIFY(g);
        auto tree = structure::recoverStructure(*g);
        QVERIFY(tree.ok());
        auto shared = std::make_shared<const structure::ModuleTree>(std::move(tree).value());
        view.setGraph(g, true);
        view.setModules(g, shared);
        QVERIFY(waitForLayout(view));
        view.showFindBar();
        view.finder()->setRegex(true);
        view.setFindText(QStringLiteral("blocks\\.1\\.fc1(\\.|$)"));
        const std::string block = "l_s_modules_blocks_modules_1_modules_fc1_parameters_";
        QCOMPARE(matchedNames(view), (std::set<std::string>{block + "weight_", block + "bias_"}));
        QVERIFY(allIn(view, FindField::Module));
        QVERIFY(view.finder()->matches().front().text.startsWith(QStringLiteral("s.blocks.1.fc1")));
    }

    void invalidExpressionSaysWhy()
    {
        GraphView view;
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        view.showFindBar();
        view.setFindText(QStringLiteral("addmm"));
        QCOMPARE(view.decorations()->highlighted().size(), std::size_t(7));
        auto* regex = view.findBar()->findChild<QToolButton*>(QStringLiteral("findRegexButton"));
        QVERIFY(regex);
        regex->click();
        view.setFindText(QStringLiteral("addmm(["));
        QCOMPARE(view.findMatchCount(), 0);
        QVERIFY(!view.finder()->error().isEmpty());
        QVERIFY2(status(view).startsWith(QStringLiteral("invalid: ")), qPrintable(status(view)));
        QVERIFY(view.decorations()->highlighted().empty());
        view.findNext(); // nothing to go to, nothing breaks
        QVERIFY(!view.selectedNode());
    }

    void counterStepsAndHighlightsEveryMatch()
    {
        GraphView view;
        QVERIFY(showWhole(view,
                          loadFixture(QStringLiteral("/fixtures/graphs/gpt2_annotated_fw.txt"))));
        view.showFindBar();
        view.setFindText(QStringLiteral("addmm"));
        QCOMPARE(status(view), QStringLiteral("–/7"));
        std::unordered_set<NodeId> expected;
        for (const char* n : {"addmm", "addmm_1", "addmm_2", "addmm_3", "addmm_4", "addmm_5",
                              "addmm_6"}) {
            expected.insert(*view.graph()->find(n));
        }
        QCOMPARE(view.decorations()->highlighted(), expected);
        for (NodeId id : expected) {
            QVERIFY(view.scene()->nodeItem(id)->isMarkedHighlighted());
        }
        QLineEdit* edit = view.findBar()->findChild<QLineEdit*>();
        QTest::keyClick(edit, Qt::Key_Return);
        QCOMPARE(view.selectedNode(), view.graph()->find("addmm"));
        QCOMPARE(status(view), QStringLiteral("1/7 · name"));
        QTest::keyClick(edit, Qt::Key_Return);
        QCOMPARE(status(view), QStringLiteral("2/7 · name"));
        QTest::keyClick(edit, Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(view.selectedNode(), view.graph()->find("addmm"));
        QTest::keyClick(edit, Qt::Key_F3, Qt::ShiftModifier); // wraps around
        QCOMPARE(view.selectedNode(), view.graph()->find("addmm_6"));
        QCOMPARE(status(view), QStringLiteral("7/7 · name"));
        QTest::keyClick(edit, Qt::Key_F3);
        QCOMPARE(view.selectedNode(), view.graph()->find("addmm"));
        // Closing the bar takes the marks away; F3 afterwards finds the last text again.
        QTest::keyClick(edit, Qt::Key_Escape);
        QVERIFY(view.decorations()->highlighted().empty());
        view.findNext();
        QCOMPARE(view.selectedNode(), view.graph()->find("addmm_1"));
        QCOMPARE(view.decorations()->highlighted(), expected);
    }

    // gpt12_train_bw.txt opens with its blocks collapsed and fitted, far too small to read.
    void findZoomsInFromTheFittedView()
    {
        GraphView view;
        view.resize(1000, 700);
        view.setGraph(loadFixture(QStringLiteral("/fixtures/graphs/gpt12_train_bw.txt")));
        QVERIFY(waitForLayout(view));
        const NodeId add83 = *view.graph()->find("add_83");
        QVERIFY(view.scene()->nodeItem(add83) == nullptr); // inside a collapsed group
        view.fitToView();
        QVERIFY(view.canvas()->zoom() < GraphView::kReadableZoom);
        view.showFindBar();
        view.setFindText(QStringLiteral("add_83"));
        QCOMPARE(view.findMatchCount(), 1);
        // The collapsed group holding the match is drawn highlighted.
        auto* group = qgraphicsitem_cast<views::GroupItem*>(view.scene()->itemShowing(add83));
        QVERIFY(group != nullptr);
        QVERIFY(group->isHighlighted());
        view.findNext();
        QVERIFY(waitForLayout(view)); // the group opens
        QVERIFY(view.scene()->nodeItem(add83) != nullptr);
        QVERIFY2(view.canvas()->zoom() >= GraphView::kReadableZoom - 1e-6,
                 qPrintable(QString::number(view.canvas()->zoom())));
        QVERIFY(view.canvas()->visibleSceneRect().contains(
            view.scene()->nodeItem(add83)->sceneBoundingRect().center()));
        // Already readable: a further step does not zoom out or in.
        const qreal zoom = view.canvas()->zoom();
        view.findNext();
        QCOMPARE(view.canvas()->zoom(), zoom);
    }
};

QTEST_MAIN(TestGraphFind)
#include "tst_graph_find.moc"

FXSCOPE_TEST_END
