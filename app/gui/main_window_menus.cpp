// MainWindow's menus and dialogs: File (open, recent, projects, export, profiles, close, quit),
// Edit (undo/redo, find), View (zoom, fit, groups, docks, comparison), Regions, Build (compile,
// cache browser, profile), Help (getting started, about), and the main toolbar. Standard shortcuts throughout. Every menu and the
// actions others look for carry an object name; the controllers' actions come from them.
#include "app/gui/cache_browser_controller.h"
#include "app/gui/compile_controller.h"
#include "app/gui/diagnosis_controller.h"
#include "app/gui/getting_started.h"
#include "app/gui/graph_area.h"
#include "app/gui/main_window.h"
#include "app/gui/profile_controller.h"
#include "app/gui/runtime_controller.h"
#include "app/gui/recent_files.h"
#include "app/gui/region_controller.h"
#include "core/about/versions.h"
#include "views/graph/graph_view.h"
#include "views/panels/diagnosis_panel.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

namespace fxs::app {

namespace {

QMenu* addMenu(QMenuBar* bar, const QString& title, const QString& objectName)
{
    QMenu* menu = bar->addMenu(title);
    menu->setObjectName(objectName);
    return menu;
}

QAction* named(QAction* action, const QString& objectName)
{
    action->setObjectName(objectName);
    return action;
}

} // namespace

void MainWindow::createMenus()
{
    createFileMenu();
    createEditMenu();
    createViewMenu();
    menuBar()->addMenu(m_regions->menu());
    createBuildMenu();
    createHelpMenu();
    createToolBar();
}

// The main actions one click away: the same QAction objects as the menus (one owner per
// shortcut).
void MainWindow::createToolBar()
{
    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setMovable(false);
    const auto withIcon = [this](QAction* action, const char* theme, QStyle::StandardPixmap fb) {
        if (action->icon().isNull()) {
            action->setIcon(QIcon::fromTheme(QLatin1String(theme), style()->standardIcon(fb)));
        }
        return action;
    };
    const auto action = [this](const char* name) {
        return findChild<QAction*>(QLatin1String(name));
    };
    bar->addAction(withIcon(action("openAction"), "document-open", QStyle::SP_DialogOpenButton));
    bar->addAction(withIcon(action("findNodeAction"), "edit-find",
                            QStyle::SP_FileDialogContentsView));
    bar->addAction(withIcon(action("fitAction"), "zoom-fit-best", QStyle::SP_TitleBarMaxButton));
    bar->addSeparator();
    bar->addAction(withIcon(m_compile->compileAction(), "system-run", QStyle::SP_MediaPlay));
    bar->addAction(withIcon(m_profile->profileAction(), "utilities-system-monitor",
                            QStyle::SP_FileDialogDetailedView));
}

void MainWindow::createFileMenu()
{
    QMenu* file = addMenu(menuBar(), tr("&File"), QStringLiteral("fileMenu"));
    named(file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog),
          QStringLiteral("openAction"));
    named(file->addAction(tr("Open &Directory…"), QKeySequence(tr("Ctrl+Shift+O")), this,
                          &MainWindow::openDirectoryDialog),
          QStringLiteral("openDirectoryAction"));
    QMenu* recent = file->addMenu(tr("Open &Recent"));
    recent->setObjectName(QStringLiteral("recentMenu"));
    m_recent = new RecentFiles(recent, this);
    connect(m_recent, &RecentFiles::openRequested, this,
            [this](const QString& path) { openPaths({path}); });
    file->addSeparator();
    m_regions->addFileActions(file);
    file->addSeparator();
    named(file->addAction(tr("Export View as &SVG…"), QKeySequence(tr("Ctrl+E")), this,
                          [this] { exportView(true); }),
          QStringLiteral("exportSvgAction"));
    named(file->addAction(tr("Export View as &PNG…"), QKeySequence(tr("Ctrl+Shift+E")), this,
                          [this] { exportView(false); }),
          QStringLiteral("exportPngAction"));
    file->addAction(m_profile->exportAction());
    file->addAction(m_profile->openAction());
    file->addAction(m_runtime->openAction());
    file->addSeparator();
    named(file->addAction(tr("Export &Report…"), this, [this] { exportReport(false); }),
          QStringLiteral("exportReportAction"));
    named(file->addAction(tr("Export Re&dacted Report…"), this, [this] { exportReport(true); }),
          QStringLiteral("exportRedactedReportAction"));
    file->addSeparator();
    named(file->addAction(tr("&Close All"), QKeySequence::Close, this, &MainWindow::closeAll),
          QStringLiteral("closeAllAction"));
    named(file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close),
          QStringLiteral("quitAction"));
}

void MainWindow::createEditMenu()
{
    QMenu* edit = addMenu(menuBar(), tr("&Edit"), QStringLiteral("editMenu"));
    named(edit->addAction(tr("&Find Node…"), QKeySequence::Find, this,
                          [this] { m_area->activeView()->showFindBar(); }),
          QStringLiteral("findNodeAction"))
        ->setIconText(tr("Find"));
    m_regions->addEditActions(edit);
}

void MainWindow::createViewMenu()
{
    QMenu* view = addMenu(menuBar(), tr("&View"), QStringLiteral("viewMenu"));
    named(view->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, this,
                          [this] { m_area->activeView()->zoomIn(); }),
          QStringLiteral("zoomInAction"));
    named(view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, this,
                          [this] { m_area->activeView()->zoomOut(); }),
          QStringLiteral("zoomOutAction"));
    named(view->addAction(tr("&Fit to Window"), QKeySequence(tr("Ctrl+0")), this,
                          [this] { m_area->activeView()->fitToView(); }),
          QStringLiteral("fitAction"))
        ->setIconText(tr("Fit"));
    auto* overview = named(view->addAction(tr("Show &Overview Map")),
                           QStringLiteral("overviewAction"));
    overview->setCheckable(true);
    overview->setChecked(m_area->primary()->isOverviewEnabled());
    connect(overview, &QAction::toggled, this, [this](bool on) {
        m_area->primary()->setOverviewEnabled(on);
        m_area->secondary()->setOverviewEnabled(on);
    });
    view->addSeparator();
    view->addAction(tr("&Expand All Groups"), this, [this] { m_area->primary()->expandAll(); });
    view->addAction(tr("&Collapse All Groups"), this, [this] { m_area->primary()->collapseAll(); });
    view->addAction(tr("Close Co&mparison"), this, [this] { m_area->closeComparison(); });
    // Back from a higher-order body (opened from the Inspector) to the graph calling it.
    m_backAction = named(view->addAction(tr("&Back to Calling Graph"), QKeySequence::Back, this,
                                         [this] {
                                             const graph::NodeId call = m_bodyCallSite;
                                             revealGraph(m_bodyCaller);
                                             if (call != graph::kNoNode) {
                                                 selectNode(call);
                                             }
                                         }),
                         QStringLiteral("backToCallerAction"));
    m_backAction->setEnabled(false);
    view->addSeparator();
    // Every dock, the controllers' included, in the order they were made.
    for (QDockWidget* dock : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
        view->addAction(dock->toggleViewAction());
    }
    named(view->addAction(tr("&Reset Layout"), this, [this] { resetLayout(); }),
          QStringLiteral("resetLayoutAction"));
    view->addSeparator();
    auto* full = named(view->addAction(tr("F&ull Screen")), QStringLiteral("fullScreenAction"));
    full->setShortcut(QKeySequence::FullScreen);
    full->setCheckable(true);
    connect(full, &QAction::toggled, this,
            [this](bool on) { on ? showFullScreen() : showNormal(); });
}

void MainWindow::createBuildMenu()
{
    QMenu* build = addMenu(menuBar(), tr("&Build"), QStringLiteral("buildMenu"));
    build->addAction(m_compile->compileAction());
    build->addAction(m_cacheBrowser->showAction());
    build->addSeparator();
    build->addAction(m_profile->profileAction());
}

void MainWindow::createHelpMenu()
{
    QMenu* help = addMenu(menuBar(), tr("&Help"), QStringLiteral("helpMenu"));
    named(help->addAction(tr("&Getting Started"), QKeySequence::HelpContents, this,
                          &MainWindow::showGettingStarted),
          QStringLiteral("gettingStartedAction"));
    help->addSeparator();
    named(help->addAction(tr("&About fxscope"), this, &MainWindow::about),
          QStringLiteral("aboutAction"));
    named(help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt),
          QStringLiteral("aboutQtAction"));
}

void MainWindow::openDialog()
{
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open Graph or TORCH_TRACE Log"), QString(),
        tr("Graphs, logs and projects (*.log *.txt *.py *.pt *.pt2 *.gz *.fxscope);;All files (*)"));
    openPaths(paths);
}

void MainWindow::openDirectoryDialog()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open TORCH_TRACE Directory"));
    if (!dir.isEmpty()) {
        openPaths({dir});
    }
}

void MainWindow::exportView(bool svg)
{
    if (!m_area->primary()->graph()) {
        statusBar()->showMessage(tr("Nothing to export: select a graph first"), 5000);
        return;
    }
    const QString filter = svg ? tr("SVG image (*.svg)") : tr("PNG image (*.png)");
    QString path = QFileDialog::getSaveFileName(this, tr("Export View"), QString(), filter);
    if (path.isEmpty()) {
        return;
    }
    const QString suffix = svg ? QStringLiteral(".svg") : QStringLiteral(".png");
    if (!path.endsWith(suffix, Qt::CaseInsensitive)) {
        path += suffix;
    }
    const bool ok = svg ? m_area->primary()->exportSvg(path) : m_area->primary()->exportPng(path);
    statusBar()->showMessage(ok ? tr("Exported %1").arg(path) : tr("Could not write %1").arg(path),
                             5000);
}

// One HTML page of the diagnosis and the shown graph (fxscope-cli report's), written in the
// background; the status line says when it is there.
void MainWindow::exportReport(bool redact)
{
    if (!m_diagnosis->panel()->diagnosis() || m_diagnosis->panel()->diagnosis()->runs.empty()) {
        statusBar()->showMessage(tr("Nothing to report yet: open a TORCH_TRACE run first"), 5000);
        return;
    }
    QString path = QFileDialog::getSaveFileName(
        this, redact ? tr("Export Redacted Report") : tr("Export Report"),
        redact ? QStringLiteral("report-redacted.html") : QStringLiteral("report.html"),
        tr("HTML page (*.html)"));
    if (path.isEmpty()) {
        return;
    }
    if (!path.endsWith(QStringLiteral(".html"), Qt::CaseInsensitive)) {
        path += QStringLiteral(".html");
    }
    m_diagnosis->exportReport(path, redact);
    statusBar()->showMessage(tr("Writing %1…").arg(path));
}

QString MainWindow::versionsText()
{
    QString qt = QStringLiteral("Qt ") + QString::fromLatin1(qVersion());
    if (QLatin1String(qVersion()) != QLatin1String(QT_VERSION_STR)) {
        qt += tr(" (built with %1)").arg(QStringLiteral(QT_VERSION_STR));
    }
    return qt + QStringLiteral(" · ") +
           QString::fromStdString(about::versionsLine(about::componentVersions()));
}

void MainWindow::showGettingStarted()
{
    auto* dialog = findChild<GettingStartedDialog*>();
    if (!dialog) {
        dialog = new GettingStartedDialog(this);
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

void MainWindow::about()
{
    QMessageBox::about(
        this, tr("About fxscope"),
        tr("<h3>fxscope %1</h3><p>A graph inspector and compiler for PyTorch programs: graphs "
           "from torch.compile, compile-cache hits and misses explained.</p><p>Built with and running on %2.</p>")
            .arg(QStringLiteral(FXSCOPE_VERSION), versionsText().toHtmlEscaped()));
}

} // namespace fxs::app
