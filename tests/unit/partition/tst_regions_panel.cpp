// The Regions dock over a RegionDocument: rows follow edits and undo, buttons follow the
// selection, a refused split shows its reason and asks to highlight the path.
#include "tests/test_file.h"
#include "views/panels/regions_panel.h"
#include "partition_test_graphs.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using namespace fxs::partition::testing;
using fxs::views::RegionDocument;
using fxs::views::RegionsPanel;

namespace {

QPushButton* button(RegionsPanel& panel, const QString& text)
{
    for (auto* b : panel.findChildren<QPushButton*>()) {
        if (b->text() == text) {
            return b;
        }
    }
    return nullptr;
}

} // namespace

class TestRegionsPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rowsFollowEditsAndUndo()
    {
        RegionDocument doc(chainGraph());
        RegionsPanel panel;
        panel.setDocument(&doc);
        QCOMPARE(panel.rowCount(), 0);
        QVERIFY(doc.createRegion({kB}));
        QVERIFY(doc.createRegion({kC, kD}));
        QCOMPARE(panel.rowCount(), 2);
        auto* table = panel.findChild<QTableWidget*>();
        QCOMPARE(table->item(1, 1)->text(), QString("2")); // r1 holds c and d
        table->selectAll();
        QCOMPARE(panel.selectedRegionIds(), (QStringList{"r0", "r1"}));
        QVERIFY(button(panel, "Merge")->isEnabled());
        button(panel, "Merge")->click();
        QCOMPARE(panel.rowCount(), 1);
        button(panel, "Undo")->click();
        QCOMPARE(panel.rowCount(), 2);
    }

    void refusedSplitShowsReasonAndPath()
    {
        RegionDocument doc(chainGraph());
        RegionsPanel panel;
        panel.setDocument(&doc);
        QVERIFY(doc.createRegion({kB, kC, kD}));
        QSignalSpy highlight(&panel, &RegionsPanel::highlightRequested);
        panel.findChild<QTableWidget*>()->selectRow(0);
        QVERIFY(!button(panel, "Split off selection")->isEnabled());
        panel.setSelectedNodes({kC}); // c: leaves b -> c -> d with c outside
        button(panel, "Split off selection")->click();
        QCOMPARE(highlight.count(), 1);
        QCOMPARE(highlight[0][0].value<std::vector<NodeId>>(), (std::vector<NodeId>{kB, kC, kD}));
        QCOMPARE(panel.rowCount(), 1);
        const auto labels = panel.findChildren<QLabel*>();
        bool shown = false;
        for (auto* l : labels) {
            shown = shown || l->text().contains("would form a cycle");
        }
        QVERIFY(shown);
    }
};

QTEST_MAIN(TestRegionsPanel)
#include "tst_regions_panel.moc"

FXSCOPE_TEST_END
