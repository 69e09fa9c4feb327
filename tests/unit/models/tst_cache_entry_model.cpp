// CacheEntryModel over a real cache database (entries made through CacheStore): rows and
// columns, sort values, state of bad and corrupt entries, under QAbstractItemModelTester.
#include "tests/test_file.h"
#include "tests/unit/models/cache_entries_fixture.h"
#include "views/models/cache_entry_model.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::views::CacheEntryModel;

class TestCacheEntryModel : public QObject {
    Q_OBJECT

private:
    test::CacheEntriesFixture m_fx;
    std::vector<cache::EntryInfo> m_entries;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_fx.create());
        cache::StoreOptions so;
        so.path = m_fx.path;
        auto store = cache::CacheStore::open(so);
        QVERIFY(store.ok());
        auto list = (*store)->list();
        QVERIFY(list.ok());
        m_entries = *list;
        QCOMPARE(m_entries.size(), std::size_t(3));
    }

    void rowsAndColumns()
    {
        CacheEntryModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries(m_entries);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 8);
        const int a = model.rowOf(QString::fromStdString(m_fx.keyA));
        QVERIFY(a >= 0);
        const QString shortKey = QString::fromStdString(m_fx.keyA).left(12);
        QCOMPARE(model.index(a, CacheEntryModel::KeyColumn).data().toString(), shortKey);
        QCOMPARE(model.index(a, CacheEntryModel::KeyColumn).data(Qt::ToolTipRole).toString(),
                 QString::fromStdString(m_fx.keyA));
        QCOMPARE(model.index(a, CacheEntryModel::RegionColumn).data().toString(),
                 QStringLiteral("r0 of a"));
        QCOMPARE(model.index(a, CacheEntryModel::StateColumn).data().toString(),
                 QStringLiteral("verified"));
        QCOMPARE(model.index(a, CacheEntryModel::CompileMsColumn).data().toString(),
                 QStringLiteral("100.0"));
        QCOMPARE(model.index(a, CacheEntryModel::HitsColumn).data().toString(), QStringLiteral("0"));
        QCOMPARE(model.index(a, CacheEntryModel::LastHitColumn).data().toString(),
                 QStringLiteral("never"));
        // Blob = shared object + source: 3000 + 4 bytes at least.
        QVERIFY(model.index(a, CacheEntryModel::SizeColumn).data(CacheEntryModel::SortRole)
                    .toLongLong() >= 3004);
        QVERIFY(!model.index(a, CacheEntryModel::CreatedColumn).data().toString().isEmpty());
    }

    void badAndCorruptStates()
    {
        CacheEntryModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries(m_entries);
        const int c = model.rowOf(QString::fromStdString(m_fx.keyC));
        QCOMPARE(model.index(c, CacheEntryModel::StateColumn).data().toString(),
                 QStringLiteral("bad"));
        QCOMPARE(model.index(c, CacheEntryModel::StateColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("output mismatch"));
        const int b = model.rowOf(QString::fromStdString(m_fx.keyB));
        model.setCorrupt({QString::fromStdString(m_fx.keyB)});
        QCOMPARE(model.index(b, CacheEntryModel::StateColumn).data().toString(),
                 QStringLiteral("corrupt"));
        model.setEntries(m_entries); // a reload forgets the verify
        QCOMPARE(model.index(b, CacheEntryModel::StateColumn).data().toString(),
                 QStringLiteral("verified"));
    }

    void sortsNumerically()
    {
        CacheEntryModel model;
        model.setEntries(m_entries);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(CacheEntryModel::SortRole);
        proxy.sort(CacheEntryModel::CompileMsColumn, Qt::DescendingOrder);
        QStringList order;
        for (int r = 0; r < 3; ++r) {
            order << proxy.index(r, CacheEntryModel::RegionColumn).data().toString();
        }
        QCOMPARE(order, (QStringList{"r0 of a", "r0 of b", "r1 of c"})); // 100, 50, 10 ms
        proxy.sort(CacheEntryModel::SizeColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, CacheEntryModel::RegionColumn).data().toString(),
                 QStringLiteral("r1 of c")); // 1000-byte shared object
    }
};

QTEST_MAIN(TestCacheEntryModel)
#include "tst_cache_entry_model.moc"

FXSCOPE_TEST_END
