// How the app is wired: a controller works on an AppContext around a plain QMainWindow (no
// MainWindow: the compile controller refuses with a status message, then compiles the
// context's region document into the context's cache database and says it wrote to it), and
// MainWindow's menus and actions are found by object name, so a translation that renames every
// menu title (a translator installed before the window) leaves the Build menu before Help and
// the controllers' actions and docks where they belong.
#include "app/gui/app_context.h"
#include "app/gui/compile_controller.h"
#include "app/gui/main_window.h"
#include "core/io/graph_code_parser.h"
#include "core/partition/partitioner.h"
#include "tests/test_file.h"
#include "views/graph/graph_view.h"
#include "views/panels/compile_results_panel.h"
#include "views/panels/region_commands.h"

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QHash>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTranslator>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::app::AppContext;
using fxs::app::CompileController;
using fxs::app::MainWindow;

namespace {

// A stand-in for a real translation: every menu title and one File entry get other words.
class RenamingTranslator : public QTranslator {
public:
    QString translate(const char*, const char* source, const char*, int) const override
    {
        static const QHash<QString, QString> kWords{
            {"&File", "&Datei"},      {"&Edit", "&Bearbeiten"},  {"&View", "&Ansicht"},
            {"&Regions", "Re&gionen"}, {"&Build", "&Erstellen"}, {"&Help", "&Hilfe"},
            {"Export View as &PNG…", "Ansicht als &PNG exportieren…"}};
        return kWords.value(QString::fromUtf8(source));
    }
    bool isEmpty() const override { return false; }
};

QStringList menuBarNames(const QMainWindow& w)
{
    QStringList names;
    for (QAction* a : w.menuBar()->actions()) {
        names << (a->menu() != nullptr ? a->menu()->objectName() : QString());
    }
    return names;
}

QStringList actionNames(const QMenu* menu)
{
    QStringList names;
    for (const QAction* a : menu->actions()) {
        names << a->objectName();
    }
    return names;
}

} // namespace

class TestAppWiring : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_app_wiring"));
        qputenv("FXSCOPE_CACHE_DIR", (m_dir.path() + "/default").toUtf8());
    }

    void compileControllerOnAContextOfItsOwn()
    {
        QMainWindow host;
        views::Workspace workspace;
        views::GraphView view;
        AppContext context(&host, &workspace, &view);
        QCOMPARE(context.cachePath(), m_dir.path() + "/default/cache.db");
        context.setCachePath(m_dir.path() + "/own/cache.db");
        CompileController compile(&context);
        QVERIFY(context.dock(QStringLiteral("compileResultsDock")) != nullptr);
        QCOMPARE(compile.cachePath(), m_dir.path() + "/own/cache.db");

        QSignalSpy status(&context, &AppContext::statusShown);
        QVERIFY(!compile.compileRegions()); // no region document in the context
        QCOMPARE(status.count(), 1);
        QCOMPARE(status.first().at(0).toString(),
                 QStringLiteral("Nothing to compile: open a graph first"));

        QFile file(QStringLiteral(FXSCOPE_TEST_DATA "/compile/two_regions_fw.txt"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const graph::GraphPtr g =
            io::parseGraphCode(file.readAll().toStdString(), file.fileName().toStdString()).graph;
        QVERIFY(g != nullptr);
        views::RegionDocument doc(g);
        doc.resetRegions(partition::partitionByAnnotation(*g).regions);
        QCOMPARE(doc.regions().size(), std::size_t(2));
        view.setGraph(g);
        context.setCurrentDocument(&doc);

        QSignalSpy written(&context, &AppContext::cacheWritten);
        QSignalSpy done(&compile, &CompileController::finished);
        compile.setTimingRepeats(1);
        QVERIFY(compile.compileRegions());
        QVERIFY(compile.isRunning());
        QVERIFY(done.wait(120000));
        QCOMPARE(done.first().at(0).toBool(), false);
        QCOMPARE(compile.resultsPanel()->model()->rowCount(), 2);
        QCOMPARE(written.count(), 1);
        QVERIFY(QFile::exists(m_dir.path() + "/own/cache.db"));
        context.setCurrentDocument(nullptr);
    }

    void menusAndActionsAreFoundByObjectName()
    {
        RenamingTranslator translator;
        QVERIFY(QCoreApplication::installTranslator(&translator));
        {
            MainWindow w;
            auto* file = w.findChild<QMenu*>(QStringLiteral("fileMenu"));
            QVERIFY(file != nullptr);
            QCOMPARE(file->title(), QStringLiteral("&Datei")); // the translation is in use
            QCOMPARE(menuBarNames(w),
                     (QStringList{"fileMenu", "editMenu", "viewMenu", "regionsMenu", "buildMenu",
                                  "helpMenu"}));
            const QStringList build = actionNames(w.findChild<QMenu*>("buildMenu"));
            QCOMPARE(build, (QStringList{"compileRegionsAction", "cacheBrowserAction", QString(),
                                         "profileGraphAction"}));
            // Profiles are exported and opened right after the view exports, then profiler
            // traces.
            const QStringList fileActions = actionNames(file);
            const auto png = fileActions.indexOf(QStringLiteral("exportPngAction"));
            QVERIFY(png > 0);
            QCOMPARE(fileActions.mid(png + 1, 3),
                     (QStringList{"exportProfileAction", "openProfileAction",
                                  "openProfilerTraceAction"}));
            // The report of the diagnosis (plain and redacted) in a section of its own.
            const auto report = fileActions.indexOf(QStringLiteral("exportReportAction"));
            QVERIFY(report > png + 3);
            QCOMPARE(fileActions.at(report + 1), QStringLiteral("exportRedactedReportAction"));
            QCOMPARE(fileActions.last(), QStringLiteral("quitAction"));
            // Every dock the controllers made has its toggle in the View menu.
            const auto view = w.findChild<QMenu*>(QStringLiteral("viewMenu"))->actions();
            for (const char* dock : {"regionsDock", "compileResultsDock", "cacheBrowserDock",
                                     "profileDock", "kernelsDock"}) {
                auto* d = w.findChild<QDockWidget*>(QString::fromLatin1(dock));
                QVERIFY2(d != nullptr && view.contains(d->toggleViewAction()), dock);
            }
        }
        QCoreApplication::removeTranslator(&translator);
    }
};

QTEST_MAIN(TestAppWiring)
#include "tst_app_wiring.moc"

FXSCOPE_TEST_END
