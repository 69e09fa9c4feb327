// Where the app's controllers put their menu entries and docks once MainWindow has built its
// menus: the Build menu (created once, before Help), an action placed after a named one, a dock
// tabbed with the Cache dock with its toggle in the View menu. Lookups are by object name or
// menu title; nothing here owns the actions.
#pragma once

#include <QString>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;
class QWidget;

namespace fxs::app {

// The menu bar's menu with this title ("&File", "&View"); null when absent.
QMenu* menuByTitle(QMainWindow* window, const QString& title);
// The Build menu (object name "buildMenu"), created before the Help menu on first use.
QMenu* buildMenu(QMainWindow* window);
// Inserts action into menu after the action whose text is afterText (else at the end).
void insertAfter(QMenu* menu, const QString& afterText, QAction* action);
// A bottom dock for panel, tabbed with the Cache dock, toggle added to the View menu's docks.
QDockWidget* addBottomDock(QMainWindow* window, QWidget* panel, const QString& title,
                           const QString& objectName);

} // namespace fxs::app
