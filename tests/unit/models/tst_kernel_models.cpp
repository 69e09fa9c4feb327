// The Kernels dock's models on a hand-made attribution (three kernel rows, three modules; a
// device with round peaks) under QAbstractItemModelTester: the rows and their texts (GB/s and
// % of peak worked out by hand below), the sort order by numeric SortRole values, the filter to
// one node's kernels, the module rows; and the runtime heat scale: nodes with time coloured,
// darker for longer, others none, the legend from 0 to the longest.
#include "tests/test_file.h"
#include "views/models/kernel_models.h"

#include "core/graph/graph_builder.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;

namespace {

std::shared_ptr<const runtime::Attribution> sample()
{
    auto a = std::make_shared<runtime::Attribution>();
    a->peaks = runtime::DevicePeaks{"Test GPU", 1e12, 1e14, 5e14, 1e15};
    a->totalKernelUs = 100;
    runtime::KernelRow tri;
    tri.name = "triton_poi_fused_add_relu_0";
    tri.handle = "triton_poi_fused_add_relu_0:2";
    tri.graph = "fkey";
    tri.calls = 4;
    tri.launches = 4;
    tri.us = 40;
    tri.share = 0.4;
    tri.bytes = 1e6; // a call: 4e6 bytes in 40 µs = 100 GB/s = 10 % of 1e12 B/s
    tri.postNodes = {"add", "relu"};
    runtime::KernelRow mm;
    mm.name = "sm90_xmma_gemm_bf16bf16";
    mm.handle = "extern_kernels.mm:1";
    mm.graph = "fkey";
    mm.calls = 2;
    mm.launches = 2;
    mm.us = 50;
    mm.share = 0.5;
    mm.flops = 5e9; // a call: 1e10 FLOPs in 50 µs = 200 TFLOP/s = 20 % of the bf16 peak 1e15
    mm.postNodes = {"mm"};
    runtime::KernelRow opt;
    opt.name = "multi_tensor_apply_kernel";
    opt.op = "Optimizer.step#SGD.step";
    opt.calls = 1;
    opt.launches = 1;
    opt.us = 10;
    opt.share = 0.1;
    a->kernels = {tri, mm, opt}; // not in time order: the model keeps the attribution's order
    a->modules = {{"layers", 90, 0.9, {"a", "b"}},
                  {"layers.0.attn", 30, 0.3, {"b"}},
                  {"layers.0.mlp", 60, 0.6, {"a"}}};
    return a;
}

QString text(const QAbstractItemModel& m, int row, int column)
{
    return m.index(row, column).data().toString();
}

// Kernel indices of the rows of a sorted proxy, top to bottom.
std::vector<qulonglong> order(const QSortFilterProxyModel& proxy)
{
    std::vector<qulonglong> out;
    for (int r = 0; r < proxy.rowCount(); ++r) {
        out.push_back(proxy.index(r, 0).data(KernelsModel::KernelRole).toULongLong());
    }
    return out;
}

} // namespace

class TestKernelModels : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rowsAndTexts()
    {
        KernelsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setAttribution(sample());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(KernelsModel::ColumnCount));
        QCOMPARE(text(model, 0, KernelsModel::SiteColumn),
                 QStringLiteral("triton_poi_fused_add_relu_0:2"));
        QCOMPARE(text(model, 0, KernelsModel::TimeColumn), QStringLiteral("40.0"));
        QCOMPARE(text(model, 0, KernelsModel::ShareColumn), QStringLiteral("40.0 %"));
        QCOMPARE(text(model, 0, KernelsModel::GbpsColumn), QStringLiteral("100.0"));
        QCOMPARE(text(model, 0, KernelsModel::PeakColumn), QStringLiteral("10.0 (bw)"));
        QCOMPARE(text(model, 0, KernelsModel::CallsColumn), QStringLiteral("4"));
        QCOMPARE(text(model, 0, KernelsModel::NodesColumn), QStringLiteral("add, relu"));
        QCOMPARE(text(model, 1, KernelsModel::GbpsColumn), QString());
        QCOMPARE(text(model, 1, KernelsModel::PeakColumn), QStringLiteral("20.0 (bf16)"));
        QCOMPARE(text(model, 2, KernelsModel::SiteColumn),
                 QStringLiteral("outside: Optimizer.step#SGD.step"));
        QCOMPARE(text(model, 2, KernelsModel::PeakColumn), QString());
        QVERIFY(model.index(1, 0).data(Qt::ToolTipRole).toString().contains("graph fkey"));
    }

    void sortsByNumbers()
    {
        KernelsModel model;
        model.setAttribution(sample());
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(KernelsModel::SortRole);
        proxy.sort(KernelsModel::TimeColumn, Qt::DescendingOrder);
        QCOMPARE(order(proxy), (std::vector<qulonglong>{1, 0, 2})); // 50, 40, 10 µs
        proxy.sort(KernelsModel::ShareColumn, Qt::AscendingOrder);
        QCOMPARE(order(proxy), (std::vector<qulonglong>{2, 0, 1}));
        proxy.sort(KernelsModel::PeakColumn, Qt::DescendingOrder);
        QCOMPARE(order(proxy), (std::vector<qulonglong>{1, 0, 2})); // 20 %, 10 %, none
        proxy.sort(KernelsModel::GbpsColumn, Qt::DescendingOrder);
        QCOMPARE(order(proxy).front(), qulonglong(0)); // the only one that moves known bytes
        proxy.sort(KernelsModel::CallsColumn, Qt::DescendingOrder);
        QCOMPARE(order(proxy), (std::vector<qulonglong>{0, 1, 2})); // 4, 2, 1 calls
        // "100.0" and "9.0" must not sort as text: 40 µs above a 9 µs row.
        QVERIFY(model.index(0, KernelsModel::TimeColumn).data(KernelsModel::SortRole).toDouble() >
                9.0);
    }

    void filtersToOneNode()
    {
        KernelsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAttribution(sample());
        model.setFilter(std::vector<std::size_t>{2, 0, 99}); // 99: past the rows, ignored
        QVERIFY(model.isFiltered());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.kernelAt(0), std::size_t(2));
        QCOMPARE(model.kernelAt(1), std::size_t(0));
        QCOMPARE(model.rowOf(1), -1);
        QCOMPARE(model.rowOf(0), 1);
        QCOMPARE(text(model, 1, KernelsModel::TimeColumn), QStringLiteral("40.0"));
        model.setFilter(std::vector<std::size_t>{});
        QCOMPARE(model.rowCount(), 0);
        model.setFilter(std::nullopt);
        QVERIFY(!model.isFiltered());
        QCOMPARE(model.rowCount(), 3);
        model.setAttribution(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void modules()
    {
        KernelModulesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAttribution(sample());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.pathAt(2), QStringLiteral("layers.0.mlp"));
        QCOMPARE(text(model, 2, KernelModulesModel::TimeColumn), QStringLiteral("60.0"));
        QCOMPARE(text(model, 2, KernelModulesModel::ShareColumn), QStringLiteral("60.0 %"));
        QCOMPARE(text(model, 0, KernelModulesModel::KernelsColumn), QStringLiteral("2"));
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(KernelModulesModel::SortRole);
        proxy.sort(KernelModulesModel::TimeColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(1, 0).data().toString(), QStringLiteral("layers.0.mlp"));
        QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("layers.0.attn"));
        QCOMPARE(model.pathAt(7), QString());
    }

    void heatColours()
    {
        graph::GraphBuilder b;
        const auto x = b.placeholder("x");
        const auto mm = b.call("mm", "aten::mm.default", {graph::Argument::ref(x)});
        const auto add = b.call("add", "aten::add.Tensor", {graph::Argument::ref(mm)});
        const auto relu = b.call("relu", "aten::relu.default", {graph::Argument::ref(add)});
        b.output({graph::Argument::ref(relu)});
        auto g = b.build().value();
        runtime::GraphTimes t;
        t.nodes["mm"].us = 25;
        t.nodes["add"].us = 10;
        t.nodes["relu"].us = 0;       // a node the kernels name without time: neutral
        t.nodes["not_a_node"].us = 99; // a name the graph lacks: ignored, still the maximum
        const auto colors = KernelsModel::heatColors(t, *g);
        QCOMPARE(colors.size(), std::size_t(2));
        QVERIFY(!colors.count(x));
        QVERIFY(!colors.count(relu));
        QVERIFY(colors.at(mm).lightnessF() < colors.at(add).lightnessF()); // longer: darker
        QCOMPARE(colors.at(mm), KernelsModel::heatColor(25, 99));
        const auto legend = KernelsModel::heatLegend(80);
        QCOMPARE(legend.size(), std::size_t(5));
        QCOMPARE(legend.front().first, 0.0);
        QCOMPARE(legend.back().first, 80.0);
        QCOMPARE(legend.back().second, KernelsModel::heatColor(80, 80));
        for (std::size_t i = 1; i < legend.size(); ++i) {
            QVERIFY(legend[i].second.lightnessF() < legend[i - 1].second.lightnessF());
        }
    }
};

QTEST_MAIN(TestKernelModels)
#include "tst_kernel_models.moc"

FXSCOPE_TEST_END
