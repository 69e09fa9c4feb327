// Undo/redo of each region command (create, rename, delete, merge, split, grow) on the
// RegionDocument, and refusals that push nothing and report the path to highlight.
#include "tests/test_file.h"
#include "views/panels/region_commands.h"
#include "partition_test_graphs.h"

#include <QSignalSpy>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using namespace fxs::partition::testing;
using fxs::views::RegionDocument;

namespace {

std::vector<std::vector<NodeId>> nodeSets(const RegionDocument& doc)
{
    std::vector<std::vector<NodeId>> out;
    for (const auto& r : doc.regions()) {
        out.push_back(r.nodes);
    }
    return out;
}

using Sets = std::vector<std::vector<NodeId>>;

} // namespace

class TestRegionCommands : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void createUndoRedo()
    {
        RegionDocument doc(chainGraph());
        QSignalSpy changed(&doc, &RegionDocument::regionsChanged);
        QVERIFY(doc.createRegion({kC, kD}, "tail"));
        QCOMPARE(nodeSets(doc), (Sets{{kC, kD}}));
        QCOMPARE(doc.regions()[0].label(), std::string("tail"));
        doc.undoStack()->undo();
        QVERIFY(doc.regions().empty());
        doc.undoStack()->redo();
        QCOMPARE(nodeSets(doc), (Sets{{kC, kD}}));
        QCOMPARE(changed.count(), 3);
    }

    void renameUndoRedo()
    {
        RegionDocument doc(chainGraph());
        QVERIFY(doc.createRegion({kC}));
        QVERIFY(doc.renameRegion("r0", "relu"));
        QCOMPARE(doc.regions()[0].label(), std::string("relu"));
        doc.undoStack()->undo();
        QCOMPARE(doc.regions()[0].label(), std::string("r0"));
        doc.undoStack()->redo();
        QCOMPARE(doc.regions()[0].label(), std::string("relu"));
    }

    void deleteUndoRedo()
    {
        RegionDocument doc(chainGraph());
        QVERIFY(doc.createRegion({kC}));
        QVERIFY(doc.createRegion({kA}));
        QVERIFY(doc.deleteRegion("r0"));
        QCOMPARE(nodeSets(doc), (Sets{{kA}}));
        doc.undoStack()->undo();
        QCOMPARE(nodeSets(doc), (Sets{{kC}, {kA}}));
        doc.undoStack()->redo();
        QCOMPARE(nodeSets(doc), (Sets{{kA}}));
    }

    void mergeUndoRedo()
    {
        RegionDocument doc(chainGraph());
        QVERIFY(doc.createRegion({kB}));
        QVERIFY(doc.createRegion({kC, kD}));
        QVERIFY(doc.mergeRegions("r0", "r1"));
        QCOMPARE(nodeSets(doc), (Sets{{kB, kC, kD}}));
        doc.undoStack()->undo();
        QCOMPARE(nodeSets(doc), (Sets{{kB}, {kC, kD}}));
        doc.undoStack()->redo();
        QCOMPARE(nodeSets(doc), (Sets{{kB, kC, kD}}));
    }

    void splitUndoRedo()
    {
        RegionDocument doc(chainGraph());
        QVERIFY(doc.createRegion({kB, kC, kD}));
        QVERIFY(doc.splitRegion("r0", {kD}));
        QCOMPARE(nodeSets(doc), (Sets{{kB, kC}, {kD}}));
        doc.undoStack()->undo();
        QCOMPARE(nodeSets(doc), (Sets{{kB, kC, kD}}));
        doc.undoStack()->redo();
        QCOMPARE(nodeSets(doc), (Sets{{kB, kC}, {kD}}));
    }

    void growUndoRedo()
    {
        RegionDocument doc(chainGraph());
        QVERIFY(doc.growToRegion(kC));
        QCOMPARE(nodeSets(doc), (Sets{{kB, kC, kD}}));
        doc.undoStack()->undo();
        QVERIFY(doc.regions().empty());
        doc.undoStack()->redo();
        QCOMPARE(nodeSets(doc), (Sets{{kB, kC, kD}}));
    }

    void refusalPushesNothingAndHighlightsPath()
    {
        RegionDocument doc(chainGraph());
        QSignalSpy refused(&doc, &RegionDocument::editRefused);
        QVERIFY(!doc.createRegion({kA, kB}));
        QCOMPARE(doc.undoStack()->count(), 0);
        QCOMPARE(refused.count(), 1);
        QVERIFY(refused[0][0].toString().contains("would form a cycle"));
        QCOMPARE(refused[0][1].value<std::vector<NodeId>>(), (std::vector<NodeId>{kA, kX, kB}));
        QVERIFY(!doc.growToRegion(kX));
        QCOMPARE(refused.count(), 2);
        QCOMPARE(doc.undoStack()->count(), 0);
    }
};

QTEST_GUILESS_MAIN(TestRegionCommands)
#include "tst_region_commands.moc"

FXSCOPE_TEST_END
