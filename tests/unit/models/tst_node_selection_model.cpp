// NodeSelectionModel: the set and the current node change in one place, with selectionChanged
// before currentChanged/currentCleared and nothing emitted when nothing changed; ids past the
// graph are ignored; a new graph clears; toggling the current node off moves it to the last left.
#include "tests/test_file.h"
#include "views/models/node_selection_model.h"

#include "core/graph/graph_builder.h"

#include <QSignalSpy>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::graph::NodeId;
using fxs::views::NodeSelectionModel;

namespace {

// A graph of n nodes (placeholders).
graph::GraphPtr graphOf(int n)
{
    graph::GraphBuilder b("g");
    for (int i = 0; i < n; ++i) {
        b.placeholder("x" + std::to_string(i));
    }
    auto built = b.build();
    return built ? *built : nullptr;
}

} // namespace

class TestNodeSelectionModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void selectKeepsTheCurrentNodeWhenStillSelected()
    {
        NodeSelectionModel m;
        m.setGraph(graphOf(6));
        QSignalSpy set(&m, &NodeSelectionModel::selectionChanged);
        QSignalSpy current(&m, &NodeSelectionModel::currentChanged);
        QSignalSpy cleared(&m, &NodeSelectionModel::currentCleared);
        QStringList order;
        connect(&m, &NodeSelectionModel::selectionChanged, this, [&] { order << "set"; });
        connect(&m, &NodeSelectionModel::currentChanged, this, [&] { order << "current"; });
        m.select({4, 1, 9, 1}); // 9 is past the graph; duplicates once
        QCOMPARE(m.selectedNodes(), (std::vector<NodeId>{1, 4}));
        QCOMPARE(m.currentNode(), std::optional<NodeId>(1)); // the last valid id given
        QCOMPARE(order, (QStringList{"set", "current"}));
        m.select({1, 4}); // nothing changed
        QCOMPARE(set.size(), 1);
        QCOMPARE(current.size(), 1);
        m.select({1, 3});
        QCOMPARE(m.currentNode(), std::optional<NodeId>(1)); // still selected: stays
        QCOMPARE(set.size(), 2);
        QCOMPARE(current.size(), 1);
        m.clear();
        QCOMPARE(cleared.size(), 1);
        QVERIFY(m.selectedNodes().empty());
    }

    void toggleAndCurrentNode()
    {
        NodeSelectionModel m;
        m.setGraph(graphOf(6));
        m.setCurrentNode(2);
        QCOMPARE(m.selectedNodes(), (std::vector<NodeId>{2}));
        m.toggle(5);
        QCOMPARE(m.selectedNodes(), (std::vector<NodeId>{2, 5}));
        QCOMPARE(m.currentNode(), std::optional<NodeId>(5));
        QVERIFY(m.isSelected(2) && !m.isSelected(3));
        QSignalSpy current(&m, &NodeSelectionModel::currentChanged);
        m.toggle(5); // the current node off: the last one left is current
        QCOMPARE(m.selectedNodes(), (std::vector<NodeId>{2}));
        QCOMPARE(m.currentNode(), std::optional<NodeId>(2));
        QCOMPARE(current.size(), 1);
        QCOMPARE(current.first().at(0).value<NodeId>(), NodeId(2));
    }

    void aNewGraphClearsTheSelection()
    {
        NodeSelectionModel m;
        m.setGraph(graphOf(3));
        m.select({0, 2});
        QSignalSpy set(&m, &NodeSelectionModel::selectionChanged);
        QSignalSpy cleared(&m, &NodeSelectionModel::currentCleared);
        m.setGraph(graphOf(3));
        QCOMPARE(set.size(), 1);
        QVERIFY(set.first().at(0).value<std::vector<NodeId>>().empty());
        QCOMPARE(cleared.size(), 1);
        m.setGraph(nullptr);
        QCOMPARE(set.size(), 1); // nothing selected: nothing to say
        m.select({0});
        QVERIFY(m.selectedNodes().empty()); // no graph: no node
    }
};

QTEST_GUILESS_MAIN(TestNodeSelectionModel)
#include "tst_node_selection_model.moc"

FXSCOPE_TEST_END
