// The Profile dock offscreen: the table sorts by eager time, selecting a row emits the node or
// region, selectName selects the row without echoing, the top-N chart lists the slowest nodes,
// the legend has its five stops, shown shares add up to 100 % (a region counts its nodes),
// times show their spread, chart labels fit at a normal width (a node's module path leads its
// label and gives way from the left), progress/cancel show only while busy, and the Modules tab
// nests the time by module, shows compiled time and the range of identical modules, and reports
// the module clicked. Above the table, the whole-graph line compares eager with the graph run with
// its compiled regions in place (numbers and ratio worked out by hand below), or says how to get
// the comparison.
#include "tests/test_file.h"
#include "views/panels/bar_list.h"

#include <QTabWidget>
#include "views/panels/profile_panel.h"

#include <QApplication>
#include <QFontMetrics>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTreeView>
#include <QtTest>

FXSCOPE_TEST_BEGIN

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

    // Times are not truncated beside a wide last column: the value columns fit their text and
    // the op kind takes the room left.
    void valueColumnsFitTheirText()
    {
        auto p = sample(3);
        p.nodes[0].eager = {0.25, 0.05, 0.22, 0.27};
        p.nodes[0].target = "aten::mm.default";
        ProfilePanel panel;
        panel.resize(1400, 500);
        panel.show();
        panel.setProfile(p);
        QTableView* view = panel.view();
        const QAbstractItemModel* m = view->model();
        for (const int c : {int(ProfileModel::EagerColumn), int(ProfileModel::ShareColumn)}) {
            for (int row = 0; row < m->rowCount(); ++row) {
                const QString text = m->index(row, c).data().toString();
                QVERIFY2(view->columnWidth(c) > view->fontMetrics().horizontalAdvance(text),
                         qPrintable(text));
            }
        }
        QVERIFY(view->columnWidth(ProfileModel::KindColumn) >
                view->columnWidth(ProfileModel::BoundColumn));
        QVERIFY(view->columnWidth(ProfileModel::BoundColumn) < 200);
    }

    // The legend's stops read apart when the largest share is small (2 %: not "0% 0% 1% 1% 2%").
    void legendStopsReadApart()
    {
        auto p = sample(2);
        p.nodes[0].share = 0.01;
        p.nodes[1].share = 0.02;
        ProfilePanel panel;
        panel.setProfile(p);
        QStringList labels;
        for (auto* stop : panel.findChildren<QLabel*>(QStringLiteral("legendStop"))) {
            labels << stop->text();
        }
        QCOMPARE(labels, (QStringList{"0.0%", "0.5%", "1.0%", "1.5%", "2.0%"}));
    }

    void totalTimeShowsItsSpread()
    {
        ProfilePanel panel;
        auto p = sample(2);
        p.total = {4.1, 0.4, 3.9, 4.3};
        panel.setProfile(p);
        bool found = false;
        for (auto* label : panel.findChildren<QLabel*>()) {
            found = found ||
                    label->text().contains(QString::fromUtf8("4.10 (3.90\u20134.30)"));
        }
        QVERIFY(found);
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

    void shownSharesAddUpToAHundredPercent()
    {
        // n1..n6 (i ms); n2, n3 and n5 belong to region r0 (0.5 ms timed as a whole): the region
        // counts them, and each shown share is its Eager median over the shown ones' sum,
        // 1 + 4 + 6 + 0.5 = 11.5 ms (the Share column proportional to the Eager column).
        auto p = sample(6);
        for (const char* inside : {"n2", "n3", "n5"}) {
            for (auto& n : p.nodes) {
                n.region = n.name == inside ? "r0" : n.region;
            }
        }
        p.regions[0].share = 0.9; // the profiler's own (median of sums) is not what is shown
        ProfileModel model;
        model.setProfile(p);
        double shown = 0.0;
        for (int row = 0; row < model.rowCount(); ++row) {
            shown += model.shownShare(row).value_or(0.0);
        }
        QVERIFY2(std::abs(shown - 1.0) < 1e-9, qPrintable(QString::number(shown)));
        QCOMPARE(*model.shownShare(6), 0.5 / 11.5);
        QCOMPARE(model.index(1, ProfileModel::ShareColumn).data().toString(), QString("in r0"));
        QCOMPARE(model.index(0, ProfileModel::ShareColumn).data().toString(), QString("8.7%"));
        QCOMPARE(model.index(5, ProfileModel::ShareColumn).data().toString(), QString("52.2%"));
        QCOMPARE(model.index(6, ProfileModel::ShareColumn).data().toString(), QString("4.3%"));
    }

    void timesShowTheirSpread()
    {
        auto p = sample(2);
        p.nodes[0].eager = {0.25, 0.05, 0.22, 0.27};
        ProfileModel model;
        model.setProfile(p);
        QCOMPARE(model.index(0, ProfileModel::EagerColumn).data().toString(),
                 QString::fromUtf8("0.250 (0.220\u20130.270)"));
        // Runs that agree exactly: no range.
        QCOMPARE(model.index(1, ProfileModel::EagerColumn).data().toString(), QString("2.00"));
    }

    void compiledTimesShowTheirSpread()
    {
        auto p = sample(1);
        p.regions[0].eager = {0.3, 0.0, 0.3, 0.3};
        p.regions[0].compiledMs = 0.19;
        p.regions[0].compiled = {0.2, 0.1, 0.15, 0.25};
        ProfileModel model;
        model.setProfile(p);
        const int row = 1; // n1, then the region
        QCOMPARE(model.index(row, ProfileModel::CompiledColumn).data().toString(),
                 QString::fromUtf8("0.200 (0.150\u20130.250)"));
        // 0.3 / 0.2 = 1.50; across the runs 0.3 / 0.25 = 1.20 to 0.3 / 0.15 = 2.00.
        QCOMPARE(model.index(row, ProfileModel::SpeedupColumn).data().toString(),
                 QString::fromUtf8("1.50\u00d7 (1.20\u20132.00)"));
    }

    void chartLabelsFitAtANormalWidth()
    {
        ProfilePanel panel;
        auto p = sample(3);
        p.nodes[2].name = "convolution_backward_12";
        p.nodes[1].name = "model.layers.23.self_attn.q_proj.weight_" + std::string(120, 'x') + "_end";
        panel.setProfile(p);
        panel.resize(1280, 300);
        panel.show();
        BarList* bars = panel.topChart();
        QVERIFY(bars->width() > 300);
        const QStringList labels = bars->displayedLabels();
        QCOMPARE(labels.size(), 3);
        QCOMPARE(labels[0], QString("convolution_backward_12")); // whole
        QCOMPARE(labels[2], QString("n1"));
        // Too long for the label column: elided in the middle, start and end kept.
        QVERIFY(labels[1].contains(QChar(0x2026)));
        QVERIFY(labels[1].startsWith(QStringLiteral("model.layers")));
        QVERIFY(labels[1].endsWith(QStringLiteral("_end")));
        // The tooltip detail carries the spread and the target.
        QVERIFY(bars->items()[0].detail.contains(QStringLiteral("eager")));
    }

    // LLaMA's slowest nodes read "model.layers.3.mlp.down_proj · mm_103" (not "mm…03"): whole
    // at a normal width, and at a narrow one still the layer, the module and the node.
    void chartLabelsNameTheModule()
    {
        profile::RuntimeProfile p;
        p.repeat = 3;
        profile::ModuleBreakdown modules;
        for (int i = 0; i < 12; ++i) {
            profile::NodeProfile n;
            n.name = "mm_" + std::to_string(100 + i);
            n.eager.medianMs = 10.0 + i;
            p.nodes.push_back(n);
            modules.nodePaths.push_back("model.layers." + std::to_string(i) + ".mlp.down_proj");
        }
        modules.modules = {{"model", 0, 12, 1.0, 1.0, 0, 0}};
        ProfilePanel panel;
        panel.setProfile(p);
        panel.setModuleBreakdown(modules);
        panel.resize(1280, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QString dot = BarList::pathSeparator();
        QStringList labels = panel.topChart()->displayedLabels();
        QCOMPARE(labels.size(), ProfilePanel::kTopN);
        QCOMPARE(labels[0], "model.layers.11.mlp.down_proj" + dot + "mm_111"); // whole
        QCOMPARE(labels[8], "model.layers.3.mlp.down_proj" + dot + "mm_103");
        panel.resize(700, 300);
        QTest::qWait(10);
        labels = panel.topChart()->displayedLabels();
        QVERIFY2(labels[8].endsWith("3.mlp.down_proj" + dot + "mm_103"), qPrintable(labels[8]));
        // The tooltip's first line is the whole label.
        QCOMPARE(panel.topChart()->items()[8].label,
                 "model.layers.3.mlp.down_proj" + dot + "mm_103");
    }

    void elideLabelKeepsTheTail()
    {
        const QFontMetrics fm(QApplication::font());
        const QString dot = BarList::pathSeparator();
        const QString label = "model.layers.3.mlp.down_proj" + dot + "mm_103";
        QCOMPARE(BarList::elideLabel(label, fm, fm.horizontalAdvance(label)), label);
        const QString tail = QString(QChar(0x2026)) + "mlp.down_proj" + dot + "mm_103";
        QCOMPARE(BarList::elideLabel(label, fm, fm.horizontalAdvance(tail)), tail);
        // Not even the node's module fits: the node, elided in the middle when it must be.
        QCOMPARE(BarList::elideLabel(label, fm, fm.horizontalAdvance("mm_103")), "mm_103");
        // A label without a module keeps its start and end.
        const QString plain = "convolution_backward_123456";
        const QString elided = BarList::elideLabel(plain, fm, fm.horizontalAdvance(plain) / 2);
        QVERIFY(elided.startsWith("con") && elided.endsWith("56"));
        QVERIFY(elided.contains(QChar(0x2026)));
    }

    // Identical layers read as a median and range on their parent's row, the slowest and fastest
    // layer are named; compiled regions give a module its Compiled time and speed-up.
    void modulesShowIdenticalRangeAndCompiledTime()
    {
        profile::ModuleBreakdown b;
        b.modules = {{"model", 0, 9, 9.0, 1.0, 0, 0},
                     {"model.layers", 1, 9, 9.0, 1.0, 0, 0},
                     {"model.layers.0", 2, 3, 2.0, 0.2, 0, 0},
                     {"model.layers.0.mlp", 3, 1, 1.0, 0.1, 0, 0},
                     {"model.layers.1", 2, 3, 4.0, 0.4, 0, 0},
                     {"model.layers.1.mlp", 3, 1, 3.0, 0.3, 0, 0},
                     {"model.layers.2", 2, 3, 3.0, 0.3, 0, 0},
                     {"model.layers.2.mlp", 3, 1, 2.0, 0.2, 0, 0}};
        b.modules[4].compiledRegions = 1;
        b.modules[4].compiledMs = 0.5;
        b.modules[4].compiledEagerMs = 1.5;
        b.modules[4].compiledNodes = 2;
        b.groups = {{"model.layers.0\u20132", {2, 4, 6}, {3.0, 2.0, 2.0, 4.0}, 4, 2,
                     "model.layers"},
                    {"model.layers.0\u20132.mlp", {3, 5, 7}, {2.0, 2.0, 1.0, 3.0}, 5, 3, ""}};
        b.modules[2].group = b.modules[4].group = b.modules[6].group = 0;
        b.modules[3].group = b.modules[5].group = b.modules[7].group = 1;
        ProfilePanel panel;
        panel.setModuleBreakdown(b);
        const QAbstractItemModel* m = panel.moduleView()->model();
        QCOMPARE(m->headerData(ProfilePanel::ModuleCompiledColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Compiled ms"));
        const QModelIndex layers = m->index(0, 0, m->index(0, 0));
        QCOMPARE(layers.data(Qt::UserRole).toString(), QStringLiteral("model.layers"));
        const auto cell = [&](const QModelIndex& row, int column) {
            return row.siblingAtColumn(column).data().toString();
        };
        QCOMPARE(cell(layers, ProfilePanel::ModuleIdenticalColumn),
                 QString::fromUtf8("3 \u00d7 median 3.00 ms (2.00\u20134.00)"));
        const QModelIndex l0 = m->index(0, 0, layers);
        const QModelIndex l1 = m->index(1, 0, layers);
        const QModelIndex l2 = m->index(2, 0, layers);
        QCOMPARE(cell(l1, ProfilePanel::ModuleIdenticalColumn), QStringLiteral("slowest of 3"));
        QCOMPARE(cell(l0, ProfilePanel::ModuleIdenticalColumn), QStringLiteral("fastest of 3"));
        QCOMPARE(cell(l2, ProfilePanel::ModuleIdenticalColumn), QString());
        // The mlp of each layer: no common parent, the first carries the range.
        QCOMPARE(cell(m->index(0, 0, l0), ProfilePanel::ModuleIdenticalColumn),
                 QString::fromUtf8("3 \u00d7 median 2.00 ms (1.00\u20133.00)"));
        QCOMPARE(cell(m->index(0, 0, l1), ProfilePanel::ModuleIdenticalColumn),
                 QStringLiteral("slowest of 3"));
        QCOMPARE(cell(m->index(0, 0, l2), ProfilePanel::ModuleIdenticalColumn), QString());
        // 1.5 ms of eager work compiled to 0.5 ms: 3.00×; nothing compiled: empty.
        QCOMPARE(cell(l1, ProfilePanel::ModuleCompiledColumn), QStringLiteral("0.500"));
        QCOMPARE(cell(l1, ProfilePanel::ModuleSpeedupColumn), QString::fromUtf8("3.00\u00d7"));
        QCOMPARE(cell(l0, ProfilePanel::ModuleCompiledColumn), QString());
        QCOMPARE(cell(l0, ProfilePanel::ModuleSpeedupColumn), QString());
        QCOMPARE(cell(l1, ProfilePanel::ModuleEagerColumn), QStringLiteral("4.00"));
    }

    // eager 12.3 ms, range 11.9–12.7 (±0.4); compiled 9.8, range 9.5–10.1 (±0.3);
    // 12.3 / 9.8 = 1.2551 -> "1.26×". msText: 2 decimals from 1 ms, 1 from 10, 3 below 1. The
    // eager figure is the one timed in the same rounds as compiled, not the profile's total.
    void wholeGraphComparesCompiledWithEager()
    {
        auto p = sample(3);
        p.total = {40.0, 2.0, 39.0, 41.0}; // e.g. reused from an earlier, busier profile
        p.compiledGraph = profile::CompiledGraphProfile{
            {12.3, 0.8, 11.9, 12.7}, {9.8, 0.6, 9.5, 10.1}, 61, 61, {}, {}};
        ProfilePanel panel;
        QVERIFY(panel.wholeGraphLabel()->isHidden()); // no profile yet
        panel.setProfile(p);
        QLabel* line = panel.findChild<QLabel*>(QStringLiteral("wholeGraphSummary"));
        QCOMPARE(line, panel.wholeGraphLabel());
        QVERIFY(!line->isHidden());
        QCOMPARE(line->text(), QString::fromUtf8("Whole graph \u2014 eager 12.3 ms (\u00b10.400) "
                                                 "\u00b7 compiled 9.80 ms (\u00b10.300) \u00b7 "
                                                 "1.26\u00d7 faster \u00b7 61 of 61 regions used"));
        QVERIFY(!line->accessibleName().isEmpty());
        QVERIFY(line->toolTip().contains(QString::fromUtf8("9.50\u201310.1 ms")));
        QVERIFY(line->toolTip().contains(QString::fromUtf8("11.9\u201312.7 ms")));
        QVERIFY(line->toolTip().contains(QStringLiteral("3 timed runs")));
        // Slower: 1.0 / 1.1 = 0.909 -> "0.91× (slower)"; 40 of 61 regions ran compiled.
        p.compiledGraph = profile::CompiledGraphProfile{
            {1.0, 0.0, 1.0, 1.0}, {1.1, 0.0, 1.1, 1.1}, 40, 61, {}, {}};
        panel.setProfile(p);
        QVERIFY2(line->text().endsWith(QString::fromUtf8(
                     "compiled 1.10 ms (\u00b10.0000) \u00b7 0.91\u00d7 (slower) \u00b7 "
                     "40 of 61 regions used")),
                 qPrintable(line->text()));
        // Within the spread of both (1.02 - 1.00 < 0.08 + 0.08): neither faster nor slower;
        // 1.00 / 1.02 = 0.980 -> "0.98×".
        p.compiledGraph = profile::CompiledGraphProfile{
            {1.0, 0.08, 0.96, 1.04}, {1.02, 0.08, 0.98, 1.06}, 61, 61, {}, {}};
        panel.setProfile(p);
        QVERIFY2(line->text().contains(QString::fromUtf8(
                     "\u00b7 0.98\u00d7, within the spread \u00b7 61 of 61 regions used")),
                 qPrintable(line->text()));
        // Matrix products grouped as `run --compiled` groups them: counted after the regions.
        p.compiledGraph->matmulGroups = 48;
        panel.setProfile(p);
        QVERIFY2(line->text().endsWith(QStringLiteral(
                     "61 of 61 regions used \u00b7 48 matrix-product groups")),
                 qPrintable(line->text()));
        p.compiledGraph->matmulGroups = 1;
        panel.setProfile(p);
        QVERIFY2(line->text().endsWith(QStringLiteral("\u00b7 1 matrix-product group")),
                 qPrintable(line->text()));
        p.compiledGraph->matmulGroups = 0;
        // CUDA: the GPU times of both graphs follow.
        p.compiledGraph->deviceMs = 2.0;
        p.compiledGraph->eagerDeviceMs = 3.0;
        panel.setProfile(p);
        QVERIFY2(line->text().endsWith(QStringLiteral("GPU time eager 3.00 ms, compiled 2.00 ms")),
                 qPrintable(line->text()));
    }

    void wholeGraphWithoutCompiledRegionsSaysHow()
    {
        auto p = sample(3);
        p.total = {0.25, 0.02, 0.24, 0.26};
        ProfilePanel panel;
        panel.setProfile(p);
        const QString text = panel.wholeGraphLabel()->text();
        QVERIFY2(text.startsWith(QString::fromUtf8("Whole graph \u2014 eager 0.250 ms "
                                                   "(\u00b10.0100)")),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Profile with compiled regions")));
        QVERIFY(!text.contains(QStringLiteral("faster")));
        QVERIFY(!text.contains(QStringLiteral("regions used")));
        // The table is still there, as before.
        QCOMPARE(panel.view()->model()->rowCount(), 4);
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

    void modulesTabNestsTheTime()
    {
        ProfilePanel panel;
        panel.resize(900, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QAbstractItemModel* m = panel.moduleView()->model();
        QCOMPARE(m->rowCount(), 1); // the note: modules not known
        QVERIFY(m->index(0, 0).data().toString().contains(QStringLiteral("not known")));
        profile::ModuleBreakdown b;
        b.modules = {{"model", 0, 9, 6.0, 0.75, 0, 0},
                     {"model.layers", 1, 6, 4.0, 0.5, 0, 0},
                     {"model.layers.0", 2, 3, 2.0, 0.25, 0, 0},
                     {"model.layers.1", 2, 3, 2.0, 0.25, 0, 0},
                     {"model.norm", 1, 1, 0.5, 0.0625, 0, 0},
                     {"lm_head", 0, 1, 2.0, 0.25, 0, 0}};
        b.unassignedNodes = 2;
        panel.setModuleBreakdown(b);
        QCOMPARE(m->rowCount(), 3); // model, lm_head, (no module)
        const QModelIndex model = m->index(0, 0);
        QCOMPARE(model.data().toString(), QStringLiteral("model"));
        QCOMPARE(m->rowCount(model), 2); // layers, norm
        const QModelIndex layers = m->index(0, 0, model);
        QCOMPARE(layers.data().toString(), QStringLiteral("layers"));
        QCOMPARE(m->rowCount(layers), 2);
        QCOMPARE(m->index(1, 0, layers).data().toString(), QStringLiteral("layers.1"));
        QCOMPARE(m->index(0, 2, model).data().toString(), QStringLiteral("50.0%"));
        QCOMPARE(m->index(1, 0).data().toString(), QStringLiteral("lm_head"));
        QVERIFY(m->index(2, 0).data().toString().contains(QStringLiteral("2 nodes")));
        // Clicking a row reports its whole path.
        panel.tabs()->setCurrentWidget(panel.moduleView());
        QSignalSpy picked(&panel, &ProfilePanel::moduleSelected);
        const QRect r = panel.moduleView()->visualRect(layers);
        QVERIFY(r.isValid());
        QTest::mouseClick(panel.moduleView()->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked.front().at(0).toString(), QStringLiteral("model.layers"));
    }
};

QTEST_MAIN(TestProfilePanel)
#include "tst_profile_panel.moc"

FXSCOPE_TEST_END
