// The Cache browser over a real database (three entries made through CacheStore), wired as in
// the app but without a MainWindow: a CacheBrowserController on an AppContext around a plain
// QMainWindow. Loads off the GUI thread, search filters, two selected entries show their
// component diff and the explainer's headline, Verify reports, GC evicts down to the cap, and
// the path typed in the panel becomes the context's cache path.
#include "app/gui/app_context.h"
#include "app/gui/cache_browser_controller.h"
#include "tests/test_file.h"
#include "tests/unit/models/cache_entries_fixture.h"
#include "views/models/component_diff_model.h"
#include "views/panels/cache_browser_panel.h"

#include <QDockWidget>
#include <QLineEdit>
#include <QMainWindow>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::app::AppContext;
using fxs::app::CacheBrowserController;
using fxs::views::CacheBrowserPanel;
using fxs::views::CacheEntryModel;

namespace {

// The browser as the app wires it, on a context of its own.
struct Browser {
    QMainWindow host;
    views::Workspace workspace;
    AppContext context{&host, &workspace, nullptr};
    CacheBrowserController controller{&context};
    CacheBrowserPanel& panel = *controller.panel();
};

bool load(Browser& b, const std::string& path)
{
    QSignalSpy loaded(&b.panel, &CacheBrowserPanel::loaded);
    b.context.setCachePath(QString::fromStdString(path));
    b.controller.setLive();
    return loaded.wait(10000);
}

} // namespace

class TestCacheBrowserPanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_defaultDir;

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("FXSCOPE_CACHE_DIR", m_defaultDir.path().toUtf8()); // the default database
    }

    void loadsAndSearches()
    {
        test::CacheEntriesFixture fx;
        QVERIFY(fx.create());
        Browser b;
        CacheBrowserPanel& panel = b.panel;
        QVERIFY(load(b, fx.path));
        QCOMPARE(panel.model()->rowCount(), 3);
        QCOMPARE(panel.databasePath(), QString::fromStdString(fx.path));
        panel.setSearchText(QStringLiteral("r0 of"));
        QCOMPARE(panel.proxy()->rowCount(), 2);
        panel.setSearchText(QStringLiteral("R1 OF C")); // case-insensitive
        QCOMPARE(panel.proxy()->rowCount(), 1);
        panel.setSearchText(QString::fromStdString(fx.keyB).left(10)); // a key prefix
        QCOMPARE(panel.proxy()->rowCount(), 1);
        QCOMPARE(panel.proxy()->index(0, CacheEntryModel::RegionColumn).data().toString(),
                 QStringLiteral("r0 of b"));
        panel.setSearchText({});
        QCOMPARE(panel.proxy()->rowCount(), 3);
    }

    void twoEntriesShowTheirDiff()
    {
        test::CacheEntriesFixture fx;
        QVERIFY(fx.create());
        Browser b;
        CacheBrowserPanel& panel = b.panel;
        QVERIFY(load(b, fx.path));
        panel.selectKeys({QString::fromStdString(fx.keyA), QString::fromStdString(fx.keyB)});
        // A and B differ only in input[0]'s dtype field.
        QCOMPARE(panel.diffModel()->rowCount(), 1);
        const auto& row = panel.diffModel()->rows().front();
        QCOMPARE(row.component, QStringLiteral("input[0]"));
        QCOMPARE(row.family, QStringLiteral("dtype"));
        QCOMPARE(row.a, QStringLiteral("float32"));
        QCOMPARE(row.b, QStringLiteral("float16"));
        QVERIFY2(panel.headline().contains(QStringLiteral("input 0 dtype float32 → float16")),
                 qPrintable(panel.headline()));
        // A and C: another region, the region component changes too.
        panel.selectKeys({QString::fromStdString(fx.keyA), QString::fromStdString(fx.keyC)});
        QCOMPARE(panel.diffModel()->rowCount(), 1);
        QCOMPARE(panel.diffModel()->rows().front().component, QStringLiteral("region"));
        // One entry: its components and the hit headline.
        panel.selectKeys({QString::fromStdString(fx.keyC)});
        QCOMPARE(panel.diffModel()->rowCount(), 2);
        QVERIFY(panel.headline().contains(QStringLiteral("bad")));
    }

    void verifyAndGc()
    {
        test::CacheEntriesFixture fx;
        QVERIFY(fx.create());
        Browser b;
        CacheBrowserPanel& panel = b.panel;
        QVERIFY(load(b, fx.path));
        QSignalSpy verified(&panel, &CacheBrowserPanel::verified);
        panel.verify();
        QVERIFY(verified.wait(10000));
        QCOMPARE(verified.first().at(0).toInt(), 3);
        QCOMPARE(verified.first().at(1).toInt(), 0);
        QVERIFY(panel.statusText().contains(QStringLiteral("integrity ok")));
        // A cap one byte below what the cache occupies (database pages and files): the least
        // recently hit go first; none was hit, so the oldest (A, inserted first) goes and the
        // rest fits.
        qint64 cap = 0;
        {
            cache::StoreOptions so;
            so.path = fx.path;
            auto store = cache::CacheStore::open(so);
            QVERIFY(store);
            cap = *(*store)->totalBytes() - 1;
        }
        QSignalSpy collected(&panel, &CacheBrowserPanel::collected);
        QSignalSpy loaded(&panel, &CacheBrowserPanel::loaded);
        panel.collectGarbage(cap);
        QVERIFY(collected.wait(10000));
        QCOMPARE(collected.first().at(0).toInt(), 1);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(panel.model()->rowCount(), 2);
        QCOMPARE(panel.model()->rowOf(QString::fromStdString(fx.keyA)), -1);
    }

    void editedPathIsTheContextsAndReloads()
    {
        test::CacheEntriesFixture fx;
        QVERIFY(fx.create());
        Browser b;
        QVERIFY(b.context.findChild<CacheBrowserController*>() == &b.controller);
        QVERIFY(b.context.dock(QStringLiteral("cacheBrowserDock")) != nullptr);
        QCOMPARE(b.panel.databasePath(), m_defaultDir.path() + "/cache.db");
        QSignalSpy loaded(&b.panel, &CacheBrowserPanel::loaded);
        b.controller.setLive();
        QVERIFY(loaded.wait(10000));
        QCOMPARE(b.panel.model()->rowCount(), 0); // a fresh default database
        loaded.clear();
        auto* edit = b.panel.findChild<QLineEdit*>();
        QVERIFY(edit != nullptr);
        edit->setText(QString::fromStdString(fx.path));
        edit->setModified(true);
        Q_EMIT edit->editingFinished();
        QCOMPARE(b.context.cachePath(), QString::fromStdString(fx.path));
        QVERIFY(loaded.wait(10000));
        QCOMPARE(b.panel.model()->rowCount(), 3);
        // A compile wrote to the cache: the browser reads it again.
        b.context.notifyCacheWritten();
        QVERIFY(loaded.wait(10000));
    }

    void panelAloneOpensNothing()
    {
        CacheBrowserPanel panel;
        QSignalSpy asked(&panel, &CacheBrowserPanel::reloadRequested);
        QSignalSpy loaded(&panel, &CacheBrowserPanel::loaded);
        panel.showDatabasePath(QStringLiteral("/nonexistent/cache.db"));
        panel.reload();
        QCOMPARE(asked.count(), 1);
        QTest::qWait(50);
        QCOMPARE(loaded.count(), 0);
    }
};

QTEST_MAIN(TestCacheBrowserPanel)
#include "tst_cache_browser_panel.moc"

FXSCOPE_TEST_END
