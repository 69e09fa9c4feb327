// CacheLookupModel under QAbstractItemModelTester: one row per lookup of the chosen run with
// state, cache, compile id, key, cost and the "why" headlines. Values read from basic_cold.
#include "tests/test_file.h"
#include "views/models/cache_lookup_model.h"

#include <QAbstractItemModelTester>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;

class TestCacheLookupModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void showsTheRunsLookups()
    {
        Workspace ws;
        CacheLookupModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        ws.add(io::loadPaths({FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold"}));
        QCOMPARE(model.rowCount(), 0); // no run chosen yet
        model.setRun(0);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(CacheLookupModel::ColumnCount));
        auto cell = [&](int row, int col) { return model.index(row, col).data().toString(); };
        // Line 832: aotautograd full_miss, key avddz3w5f2geiueawjvndebxkxjym6xzd3menaq5e74jy3j7fwen.
        QCOMPARE(cell(0, CacheLookupModel::StateColumn), QStringLiteral("miss (full_miss)"));
        QCOMPARE(cell(0, CacheLookupModel::CacheColumn), QStringLiteral("aotautograd"));
        QCOMPARE(cell(0, CacheLookupModel::CompileIdColumn), QStringLiteral("0/0"));
        QCOMPARE(cell(0, CacheLookupModel::KeyColumn), QStringLiteral("avddz3w5f2geiuea"));
        QCOMPARE(model.index(0, CacheLookupModel::KeyColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("avddz3w5f2geiueawjvndebxkxjym6xzd3menaq5e74jy3j7fwen"));
        // Line 2832: fx_graph miss with time_taken_ns 1535050371 → 1.54 s; backward 394601212.
        QCOMPARE(cell(1, CacheLookupModel::CacheColumn), QStringLiteral("fx_graph"));
        QCOMPARE(cell(1, CacheLookupModel::CostColumn), QStringLiteral("1.54 s to compile"));
        QCOMPARE(cell(2, CacheLookupModel::CostColumn), QStringLiteral("395 ms to compile"));
        QVERIFY(!model.index(1, CacheLookupModel::StateColumn).data(Qt::DecorationRole).value<QIcon>().isNull());
        const auto ref = model.index(2, 0).data(CacheLookupModel::LookupRefRole).value<LookupRef>();
        QCOMPARE(ref, (LookupRef{0, 2}));
        QCOMPARE(model.indexOf(ref).row(), 2);
    }

    // A rank folder's lookups carry their rank (a column the Cache dock shows only then).
    void ranksHaveAColumn()
    {
        Workspace ws;
        CacheLookupModel model(&ws);
        ws.add(io::loadPaths({FXSCOPE_TEST_DATA "/recorded/traces/ranks"}));
        model.setRun(0);
        QVERIFY(model.hasRanks());
        QCOMPARE(model.headerData(CacheLookupModel::RankColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Rank"));
        QStringList ranks;
        for (int r = 0; r < model.rowCount(); ++r) {
            ranks << model.index(r, CacheLookupModel::RankColumn).data().toString();
        }
        ranks.removeDuplicates();
        QCOMPARE(ranks, (QStringList{"0", "1"}));
        Workspace single;
        CacheLookupModel one(&single);
        single.add(io::loadPaths({FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold"}));
        one.setRun(0);
        QVERIFY(!one.hasRanks());
        QCOMPARE(one.index(0, CacheLookupModel::RankColumn).data().toString(), QStringLiteral("—"));
    }

    void showsHeadlinesAndSavings()
    {
        Workspace ws;
        CacheLookupModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ws.add(io::loadPaths({FXSCOPE_TEST_DATA "/fixtures/traces/basic_warm"}));
        model.setRun(0);
        QCOMPARE(model.rowCount(), 3);
        model.setHeadlines({QStringLiteral("hit: a"), QStringLiteral("hit: b")});
        QCOMPARE(model.index(1, CacheLookupModel::WhyColumn).data().toString(), QStringLiteral("hit: b"));
        QCOMPARE(model.index(2, CacheLookupModel::WhyColumn).data().toString(), QString());
        // The warm run saves 1535050371 ns (fwd), 394601212 ns (bwd) and 2599 ms (AOT).
        QStringList costs;
        for (int r = 0; r < 3; ++r) {
            costs << model.index(r, CacheLookupModel::CostColumn).data().toString();
        }
        costs.sort();
        QCOMPARE(costs, (QStringList{QStringLiteral("1.54 s saved"), QStringLiteral("2.60 s saved"),
                                     QStringLiteral("395 ms saved")}));
        model.setRun(7);
        QCOMPARE(model.rowCount(), 0);
    }

    void followsTheWorkspace()
    {
        Workspace ws;
        CacheLookupModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ws.add(io::loadPaths({FXSCOPE_TEST_DATA "/fixtures/traces/autograd_fn_cold"}));
        model.setRun(0);
        // autograd_fn_cold: one aotautograd bypass (with a reason) and two fx_graph misses.
        int bypass = -1;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.index(r, 0).data().toString().startsWith(QLatin1String("bypass"))) {
                bypass = r;
            }
        }
        QVERIFY(bypass >= 0);
        QVERIFY(!model.index(bypass, CacheLookupModel::CostColumn).data().toString().isEmpty());
        ws.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.run(), -1);
    }
};

QTEST_MAIN(TestCacheLookupModel)
#include "tst_cache_lookup_model.moc"

FXSCOPE_TEST_END
