// The Profile dock offscreen: the table sorts by eager time, selecting a row emits the node or
// region, selectName selects the row without echoing, the top-N chart lists the slowest nodes,
// the legend has its five stops, and progress/cancel show only while busy.
#include "views/panels/profile_panel.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

using namespace fxs;
using namespace fxs::views;

namespace {

profile::RuntimeProfile sample(int nodes)
{
    profile::RuntimeProfile p;
    p.repeat = 3;
    double sum = nodes * (nodes + 1) / 2.0;
    for (int i = 1; i <= nodes; ++i) {
        profile::NodeProfile n;
        n.name = "n" + std::to_string(i);
        n.eager.medianMs = i;
        n.share = i / sum;
        p.nodes.push_back(n);
    }
    profile::RegionProfile r;
    r.id = "r0";
    r.eager.medianMs = 0.5;
    p.regions = {r};
    return p;
}

} // namespace

class TestProfilePanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tableChartAndLegend()
    {
        ProfilePanel panel;
        panel.setProfile(sample(12));
        QCOMPARE(panel.view()->model()->rowCount(), 13);
        // Sorted by eager, descending: n12 first, the region (0.5 ms) last.
        QCOMPARE(panel.view()->model()->index(0, 0).data().toString(), QString("n12"));
        QCOMPARE(panel.view()->model()->index(12, 0).data().toString(), QString("r0"));
        QCOMPARE(panel.topNames().size(), qsizetype(ProfilePanel::kTopN));
        QCOMPARE(panel.topNames().front(), QString("n12"));
        QCOMPARE(panel.topNames().back(), QString("n3"));
        QCOMPARE(panel.legendStops(), 5);
    }

    void selectionBothWays()
    {
        ProfilePanel panel;
        panel.setProfile(sample(4));
        QSignalSpy nodes(&panel, &ProfilePanel::nodeSelected);
        QSignalSpy regions(&panel, &ProfilePanel::regionSelected);
        panel.selectName("n2"); // from the graph: no echo
        QCOMPARE(nodes.count(), 0);
        const auto current = panel.view()->currentIndex();
        QCOMPARE(current.sibling(current.row(), 0).data().toString(), QString("n2"));
        const auto* m = panel.view()->model();
        panel.view()->setCurrentIndex(m->index(0, 0)); // n4 (largest)
        QCOMPARE(nodes.count(), 1);
        QCOMPARE(nodes.takeFirst().at(0).toString(), QString("n4"));
        panel.view()->setCurrentIndex(m->index(4, 0)); // r0
        QCOMPARE(regions.count(), 1);
        QCOMPARE(regions.takeFirst().at(0).toString(), QString("r0"));
    }

    void busyShowsProgressAndCancel()
    {
        ProfilePanel panel;
        panel.show();
        QSignalSpy cancel(&panel, &ProfilePanel::cancelRequested);
        auto buttons = panel.findChildren<QPushButton*>();
        QPushButton* cancelButton = nullptr;
        for (auto* b : buttons) {
            cancelButton = b->text() == "Cancel" ? b : cancelButton;
        }
        QVERIFY(cancelButton);
        QVERIFY(!cancelButton->isVisible());
        panel.setBusy(true);
        panel.setProgress(0.5, "timed run");
        QVERIFY(cancelButton->isVisible());
        cancelButton->click();
        QCOMPARE(cancel.count(), 1);
        panel.setBusy(false);
        QVERIFY(!cancelButton->isVisible());
    }
};

QTEST_MAIN(TestProfilePanel)
#include "tst_profile_panel.moc"
