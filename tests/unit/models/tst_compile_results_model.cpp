// CompileResultsModel under QAbstractItemModelTester: rows from region compiler outcomes,
// displayed and numeric sort values, the state colours (three distinct ones, also the graph's
// region tints) and the build diagnostics in the headline tooltip.
#include "tests/test_file.h"
#include "views/models/compile_results_model.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSortFilterProxyModel>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::views::CompileResultsModel;

namespace {

compile::RegionOutcome outcome(const char* id, compile::RegionState state, double compiledMs)
{
    compile::RegionOutcome o;
    o.id = id;
    o.nodes = 4;
    o.externNodes = state == compile::RegionState::Hit ? 1 : 0;
    o.state = state;
    o.headline = std::string(compile::regionStateName(state)) + ": because";
    o.compileMs = 12.34;
    o.eagerMs = 2.0;
    o.compiledMs = compiledMs;
    o.maxAbsErr = 1.5e-7;
    o.source = "// kernel";
    o.buildDiagnostics = state == compile::RegionState::Fallback ? "error: x" : "";
    return o;
}

} // namespace

class TestCompileResultsModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A row is named by the module holding its region, and a region made mostly of LibTorch
    // calls says why it runs near eager's speed (the 0.94x of a 13-node, 11-extern MLP).
    void rowsNameTheirModuleAndExplainExternHeavyRegions()
    {
        CompileResultsModel model;
        auto mlp = views::compileResultRow(outcome("r0", compile::RegionState::Hit, 0.5));
        mlp.module = QStringLiteral("model.layers.0.mlp");
        mlp.nodes = 13;
        mlp.externNodes = 11;
        auto fused = views::compileResultRow(outcome("r1", compile::RegionState::Miss, 1.0));
        model.setRows({mlp, fused});
        QCOMPARE(model.index(0, CompileResultsModel::RegionColumn).data().toString(),
                 QStringLiteral("model.layers.0.mlp · r0 (13 nodes, 11 extern)"));
        const QString headline =
            model.index(0, CompileResultsModel::HeadlineColumn).data().toString();
        QVERIFY2(headline.contains(QStringLiteral("11 of 13 nodes run as LibTorch calls")),
                 qPrintable(headline));
        QVERIFY(model.index(0, CompileResultsModel::HeadlineColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("11 of 13")));
        // 1 of 4 extern: no note.
        QVERIFY(!model.index(1, CompileResultsModel::HeadlineColumn)
                     .data()
                     .toString()
                     .contains(QStringLiteral("LibTorch calls")));
    }

    void rowsFromOutcomes()
    {
        CompileResultsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<views::CompileResultRow> rows;
        rows.push_back(views::compileResultRow(outcome("r0", compile::RegionState::Hit, 0.5)));
        rows.push_back(views::compileResultRow(outcome("r1", compile::RegionState::Miss, 1.0)));
        rows.push_back(views::compileResultRow(outcome("r2", compile::RegionState::Fallback, 2.0)));
        model.setRows(rows);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 7);
        QCOMPARE(model.index(0, CompileResultsModel::RegionColumn).data().toString(),
                 QStringLiteral("r0 (4 nodes, 1 extern)"));
        QCOMPARE(model.index(1, CompileResultsModel::RegionColumn).data().toString(),
                 QStringLiteral("r1 (4 nodes)"));
        QCOMPARE(model.index(1, CompileResultsModel::StateColumn).data().toString(),
                 QStringLiteral("miss"));
        QCOMPARE(model.index(0, CompileResultsModel::CompileMsColumn).data().toString(),
                 QStringLiteral("12.3"));
        QCOMPARE(model.index(2, CompileResultsModel::CompiledMsColumn)
                     .data(CompileResultsModel::SortRole)
                     .toDouble(),
                 2.0);
        QVERIFY(model.index(2, CompileResultsModel::HeadlineColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("error: x")));
        QCOMPARE(model.rowOf(QStringLiteral("r2")), 2);
        QCOMPARE(model.rowOf(QStringLiteral("r9")), -1);
        // Timings saved with the cache entry (a verified hit not timed again) read in italics,
        // and the tooltip says where they come from; measured ones do not.
        const QModelIndex measured = model.index(0, CompileResultsModel::EagerMsColumn);
        QVERIFY(!measured.data(Qt::FontRole).isValid());
        compile::RegionOutcome saved = outcome("r3", compile::RegionState::Hit, 0.5);
        saved.timingsFromEntry = true;
        rows.push_back(views::compileResultRow(saved));
        model.setRows(rows);
        const QModelIndex fromEntry = model.index(3, CompileResultsModel::CompiledMsColumn);
        QVERIFY(fromEntry.data(Qt::FontRole).value<QFont>().italic());
        QVERIFY(fromEntry.data(Qt::ToolTipRole).toString().contains(QStringLiteral("cache entry")));
        QCOMPARE(model.rows()[0].source, QStringLiteral("// kernel"));
    }

    void stateColours()
    {
        const QColor hit = views::regionStateColor(compile::RegionState::Hit);
        const QColor miss = views::regionStateColor(compile::RegionState::Miss);
        const QColor fallback = views::regionStateColor(compile::RegionState::Fallback);
        QVERIFY(hit != miss && miss != fallback && hit != fallback);
        QVERIFY(hit.green() > hit.red());          // green
        QVERIFY(miss.red() > miss.blue());         // amber
        QCOMPARE(fallback.saturation(), 0);        // grey
        CompileResultsModel model;
        model.setRows({views::compileResultRow(outcome("r0", compile::RegionState::Miss, 1))});
        QCOMPARE(model.index(0, CompileResultsModel::StateColumn).data(Qt::DecorationRole),
                 QVariant(miss));
    }

    void sortsByTime()
    {
        CompileResultsModel model;
        model.setRows({views::compileResultRow(outcome("r0", compile::RegionState::Hit, 3.0)),
                       views::compileResultRow(outcome("r1", compile::RegionState::Hit, 0.25)),
                       views::compileResultRow(outcome("r2", compile::RegionState::Hit, 1.0))});
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(CompileResultsModel::SortRole);
        proxy.sort(CompileResultsModel::CompiledMsColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString().left(2), QStringLiteral("r1"));
        QCOMPARE(proxy.index(2, 0).data().toString().left(2), QStringLiteral("r0"));
    }
};

QTEST_MAIN(TestCompileResultsModel)
#include "tst_compile_results_model.moc"

FXSCOPE_TEST_END
