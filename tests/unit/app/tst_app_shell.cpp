// The main window's shell (offscreen): a drop of file URLs loads them, File › Open Recent lists
// what was opened and keeps it in QSettings for the next window, the Regions menu and the
// Undo/Redo entries are where users look for them, and a dark palette reaches the graph view.
#include "tests/test_file.h"
#include "tests/unit/app/main_window_waits.h"

#include "app/gui/main_window.h"
#include "app/gui/region_controller.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"

#include <QDropEvent>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QUrl>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::app::MainWindow;
using fxs::test::openAndWait;

namespace {

const QString kMlp =
    QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/export/small_mlp_export_graph.txt");
const QString kGpt2 = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/gpt2_annotated_fw.txt");

QMenu* menuNamed(QWidget* root, const QString& title)
{
    for (QMenu* m : root->findChildren<QMenu*>()) {
        if (m->title().remove(QLatin1Char('&')) == title) {
            return m;
        }
    }
    return nullptr;
}

QStringList actionTexts(const QMenu* menu)
{
    QStringList texts;
    for (const QAction* a : menu->actions()) {
        if (!a->isSeparator()) {
            texts << a->text().remove(QLatin1Char('&'));
        }
    }
    return texts;
}

} // namespace

class TestAppShell : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_app_shell"));
        QSettings().clear();
    }

    void droppingFilesLoadsThem()
    {
        MainWindow w;
        QVERIFY(w.acceptDrops());
        auto* mime = new QMimeData;
        mime->setUrls({QUrl::fromLocalFile(kMlp), QUrl::fromLocalFile(kGpt2)});
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, mime, Qt::LeftButton, {});
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QSignalSpy done(&w, &MainWindow::loadFinished);
        QDropEvent drop(QPointF(50, 50), Qt::CopyAction, mime, Qt::LeftButton, {});
        QCoreApplication::sendEvent(&w, &drop);
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().at(0).toBool(), false);
        QCOMPARE(w.workspace()->graphFiles().size(), std::size_t(2));
        QVERIFY(w.graphView()->graph() != nullptr);
        delete mime;
    }

    void dropWithoutLocalFilesIsRefused()
    {
        MainWindow w;
        QMimeData mime;
        mime.setUrls({QUrl(QStringLiteral("https://example.com/graph.txt"))});
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, {});
        enter.setAccepted(false);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(!enter.isAccepted());
    }

    void recentFilesAreListedAndPersisted()
    {
        QSettings().clear();
        {
            MainWindow w;
            QVERIFY(openAndWait(w, {kMlp}));
            QVERIFY(openAndWait(w, {kGpt2}));
            QMenu* recent = menuNamed(&w, QStringLiteral("Open Recent"));
            QVERIFY(recent != nullptr);
            const QString joined = actionTexts(recent).join(QLatin1Char('\n'));
            // Newest first.
            QVERIFY2(joined.indexOf(QStringLiteral("gpt2_annotated_fw.txt")) >= 0 &&
                         joined.indexOf(QStringLiteral("gpt2_annotated_fw.txt")) <
                             joined.indexOf(QStringLiteral("small_mlp_export_graph.txt")),
                     qPrintable(joined));
        }
        // A new window (next start of the app) lists them from QSettings, and picking one
        // opens it.
        MainWindow w2;
        QMenu* recent = menuNamed(&w2, QStringLiteral("Open Recent"));
        QVERIFY(recent != nullptr);
        QAction* mlp = nullptr;
        for (QAction* a : recent->actions()) {
            mlp = a->text().contains(QStringLiteral("small_mlp_export_graph.txt")) ? a : mlp;
        }
        QVERIFY(mlp != nullptr);
        QSignalSpy done(&w2, &MainWindow::loadFinished);
        mlp->trigger();
        QVERIFY(done.wait(60000));
        QCOMPARE(w2.workspace()->graphFiles().size(), std::size_t(1));
        QVERIFY(w2.workspace()->graphFiles().front().file.find("small_mlp_export_graph.txt") !=
                std::string::npos);
    }

    void regionsMenuAndUndoAreInTheMenus()
    {
        MainWindow w;
        QMenu* regions = menuNamed(&w, QStringLiteral("Regions"));
        QVERIFY(regions != nullptr);
        const QStringList texts = actionTexts(regions);
        for (const char* t : {"Create Region from Selection", "Grow to Region", "Merge Regions",
                              "Split off Selection", "Delete Region", "Auto-propose Regions"}) {
            QVERIFY2(texts.contains(QLatin1String(t)), t);
        }
        QMenu* edit = menuNamed(&w, QStringLiteral("Edit"));
        QVERIFY(edit != nullptr);
        QCOMPARE(edit->actions().at(0)->shortcut(), QKeySequence(QKeySequence::Undo));
        QCOMPARE(edit->actions().at(1)->shortcut(), QKeySequence(QKeySequence::Redo));
        QVERIFY(!edit->actions().at(0)->isEnabled()); // nothing to undo yet
        QMenu* file = menuNamed(&w, QStringLiteral("File"));
        QVERIFY(actionTexts(file).contains(QStringLiteral("Save Project")));
        QVERIFY(actionTexts(file).contains(QStringLiteral("Save Project As…")));
        QVERIFY(actionTexts(file).contains(QStringLiteral("Open Project…")));
        // The Regions menu sits before Help in the menu bar.
        const auto bar = w.menuBar()->actions();
        QVERIFY(bar.indexOf(regions->menuAction()) >= 0);
        QVERIFY(bar.indexOf(regions->menuAction()) <
                bar.indexOf(menuNamed(&w, QStringLiteral("Help"))->menuAction()));
    }

    void darkPaletteReachesTheGraphView()
    {
        MainWindow w;
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x25, 0x25, 0x28));
        dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
        dark.setColor(QPalette::Base, QColor(0x1b, 0x1b, 0x1e));
        dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        w.setPalette(dark);
        const auto& style = w.graphView()->scene()->style();
        QCOMPARE(style.background, QColor(0x1b, 0x1b, 0x1e));
        QVERIFY(style.text.lightnessF() > 0.8);
    }
};

QTEST_MAIN(TestAppShell)
#include "tst_app_shell.moc"

FXSCOPE_TEST_END
