// The Diagnosis dock's tables on the recorded PyTorch 2.11 runs, under QAbstractItemModelTester.
// Expected values read by hand from the logs:
//   recompile.log.gz: three findings — frame 0 first (its compile time is the largest cost),
//       then the dtype recompile 0/2 (1.05 s, record.py:71), then the size recompile 0/1;
//       one rank only: no grid.
//   ranks/: rank 0 and rank 1 both compile 0/0 and each logs an aotautograd and an fx_graph
//       lookup, both "full_miss" (cold); rank 0 describes x as [8, 16], rank 1 as [12, 16].
#include "core/io/torch_trace_reader.h"
#include "tests/test_file.h"
#include "views/models/diagnosis_models.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;

namespace {

const std::string kRecorded = FXSCOPE_TEST_DATA "/recorded/traces/";

DiagnosisPtr diagnosed(const std::string& path)
{
    static std::vector<std::unique_ptr<model::Run>> keep; // rows point into the runs
    io::TraceReadOptions options;
    options.parseGraphs = false;
    auto r = io::readTorchTracePath(path, options);
    if (!r.readSomething) {
        qFatal("%s could not be read", path.c_str());
    }
    keep.push_back(std::make_unique<model::Run>(std::move(r.run)));
    auto d = diagnose::diagnose({keep.back().get()});
    if (!d) {
        qFatal("%s", d.error().toString().c_str());
    }
    return std::make_shared<const diagnose::Diagnosis>(std::move(*d));
}

} // namespace

class TestDiagnosisModels : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void findingsByCost()
    {
        FindingsModel model;
        QAbstractItemModelTester tester(&model);
        QCOMPARE(model.rowCount(), 0);
        model.setDiagnosis(diagnosed(kRecorded + "recompile.log.gz"));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(FindingsModel::ColumnCount));
        const auto cell = [&](int row, int column) {
            return model.data(model.index(row, column)).toString();
        };
        QVERIFY(cell(0, FindingsModel::TextColumn).startsWith("Frame 0 (fn) compiled 3\u00d7"));
        QCOMPARE(cell(1, FindingsModel::SeverityColumn), QStringLiteral("warning"));
        QVERIFY(cell(1, FindingsModel::TextColumn)
                    .startsWith("Recompile 0/2: tensor 'w' dtype mismatch. expected Float, "
                                "actual Half"));
        QCOMPARE(cell(1, FindingsModel::WhereColumn), QStringLiteral("record.py:71"));
        QCOMPARE(cell(1, FindingsModel::RunColumn), QStringLiteral("recompile.log.gz"));
        QVERIFY(cell(1, FindingsModel::CostColumn).startsWith("1."));
        QVERIFY(cell(1, FindingsModel::CostColumn).endsWith(" s"));
        QVERIFY(cell(2, FindingsModel::TextColumn).startsWith("Recompile 0/1: tensor 'x' size"));
        QVERIFY(cell(2, FindingsModel::CostColumn).startsWith("8")); // 0.848 s → "848 ms"
        QVERIFY(cell(2, FindingsModel::CostColumn).endsWith(" ms"));
        // What to do, beside each finding that has a remedy (and in its tooltip).
        QVERIFY(cell(0, FindingsModel::RemedyColumn).isEmpty());
        QVERIFY(cell(1, FindingsModel::RemedyColumn).startsWith("Keep w's dtype the same"));
        QVERIFY(cell(2, FindingsModel::RemedyColumn)
                    .contains("torch._dynamo.mark_dynamic(x, 0)"));
        QVERIFY(model.data(model.index(2, FindingsModel::TextColumn), Qt::ToolTipRole)
                    .toString()
                    .endsWith("\u2192 " + cell(2, FindingsModel::RemedyColumn)));
        QCOMPARE(model.headerData(FindingsModel::RemedyColumn, Qt::Horizontal).toString(),
                 QStringLiteral("What to do"));
        QVERIFY(model.finding(3) == nullptr);
        model.setDiagnosis(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void failedCompileIsAnErrorRow()
    {
        // tests/data/trace_classes/comp_failure.log: 0/0 of fn died with BackendCompilerFailed.
        FindingsModel model;
        QAbstractItemModelTester tester(&model);
        model.setDiagnosis(diagnosed(FXSCOPE_TEST_DATA "/trace_classes/comp_failure.log"));
        QVERIFY(model.rowCount() >= 1);
        const auto cell = [&](int column) { return model.data(model.index(0, column)).toString(); };
        QCOMPARE(cell(FindingsModel::SeverityColumn), QStringLiteral("error"));
        QVERIFY(cell(FindingsModel::TextColumn)
                    .startsWith("Compile failed in fn: BackendCompilerFailed: backend="));
    }

    void oneRankHasNoGrid()
    {
        const auto d = diagnosed(kRecorded + "recompile.log.gz");
        QCOMPARE(RankGridModel::firstMultiRankRun(*d), -1);
        RankGridModel grid;
        QAbstractItemModelTester tester(&grid);
        grid.setDiagnosis(d, 0);
        QCOMPARE(grid.rowCount(), 0);
        QCOMPARE(grid.columnCount(), 0);
    }

    void rankByCompileGrid()
    {
        const auto d = diagnosed(kRecorded + "ranks");
        QCOMPARE(RankGridModel::firstMultiRankRun(*d), 0);
        RankGridModel grid;
        QAbstractItemModelTester tester(&grid);
        grid.setDiagnosis(d, 0);
        QCOMPARE(grid.ranks(), (std::vector<int>{0, 1}));
        QCOMPARE(grid.rowCount(), 1);
        QCOMPARE(grid.columnCount(), 2);
        QCOMPARE(grid.headerData(0, Qt::Horizontal).toString(), QStringLiteral("rank 0"));
        QCOMPARE(grid.headerData(1, Qt::Horizontal).toString(), QStringLiteral("rank 1"));
        QCOMPARE(grid.headerData(0, Qt::Vertical).toString(),
                 QStringLiteral("0/0 \u2260 input shapes differ"));
        QCOMPARE(grid.cellText(0, 0), QStringLiteral("compiled \u00b7 2 cold miss"));
        QCOMPARE(grid.cellText(0, 1), QStringLiteral("compiled \u00b7 2 cold miss"));
        QVERIFY(grid.divergence(0) != nullptr);
        QVERIFY(grid.data(grid.index(0, 0), Qt::BackgroundRole).value<QColor>().isValid());
        QCOMPARE(grid.data(grid.index(0, 0), Qt::ToolTipRole).toString(),
                 QStringLiteral("input shapes differ: x: [8, 16] float32"));
        QCOMPARE(grid.data(grid.index(0, 1), Qt::ToolTipRole).toString(),
                 QStringLiteral("input shapes differ: x: [12, 16] float32"));
    }

    void rankOnlyCompiledOnOneSide()
    {
        // Rank 1 recompiled 0/1, rank 0 did not: the grid says so per cell.
        diagnose::Diagnosis d;
        d.runs.push_back({"x", {0, 1}});
        diagnose::Frame f;
        f.rank = 0;
        f.compileIds = {*model::CompileId::parse("0/0")};
        d.frames.push_back(f);
        f.rank = 1;
        f.compileIds = {*model::CompileId::parse("0/0"), *model::CompileId::parse("0/1")};
        d.frames.push_back(f);
        diagnose::Recompile r;
        r.rank = 1;
        r.compileId = *model::CompileId::parse("0/1");
        d.recompiles.push_back(r);
        RankGridModel grid;
        QAbstractItemModelTester tester(&grid);
        grid.setDiagnosis(std::make_shared<const diagnose::Diagnosis>(d), 0);
        QCOMPARE(grid.rowCount(), 2);
        QCOMPARE(grid.cellText(0, 0), QStringLiteral("compiled"));
        QCOMPARE(grid.cellText(1, 0), QStringLiteral("not compiled"));
        QCOMPARE(grid.cellText(1, 1), QStringLiteral("compiled \u00b7 recompile"));
        QVERIFY(grid.divergence(1) == nullptr); // none was reported
    }
};

QTEST_MAIN(TestDiagnosisModels)
#include "tst_diagnosis_models.moc"

FXSCOPE_TEST_END
