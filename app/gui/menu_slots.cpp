#include "app/gui/menu_slots.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>

namespace fxs::app {

QMenu* menuByTitle(QMainWindow* window, const QString& title)
{
    for (QAction* a : window->menuBar()->actions()) {
        if (a->menu() != nullptr && a->text() == title) {
            return a->menu();
        }
    }
    return nullptr;
}

QMenu* buildMenu(QMainWindow* window)
{
    if (auto* existing = window->menuBar()->findChild<QMenu*>(QStringLiteral("buildMenu"))) {
        return existing;
    }
    auto* menu = new QMenu(QObject::tr("&Build"), window->menuBar());
    menu->setObjectName(QStringLiteral("buildMenu"));
    QMenu* help = menuByTitle(window, QObject::tr("&Help"));
    if (help != nullptr) {
        window->menuBar()->insertMenu(help->menuAction(), menu);
    } else {
        window->menuBar()->addMenu(menu);
    }
    return menu;
}

void insertAfter(QMenu* menu, const QString& afterText, QAction* action)
{
    const auto actions = menu->actions();
    for (qsizetype i = 0; i < actions.size(); ++i) {
        if (actions[i]->text() == afterText) {
            menu->insertAction(i + 1 < actions.size() ? actions[i + 1] : nullptr, action);
            return;
        }
    }
    menu->addAction(action);
}

QDockWidget* addBottomDock(QMainWindow* window, QWidget* panel, const QString& title,
                           const QString& objectName)
{
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(objectName);
    dock->setWidget(panel);
    window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    if (auto* cache = window->findChild<QDockWidget*>(QStringLiteral("cacheDock"))) {
        window->tabifyDockWidget(cache, dock);
        cache->raise(); // tabifying shows the new tab; the Cache tab stays in front
    }
    // View menu: after the last dock toggle already there (they precede Full Screen).
    if (QMenu* view = menuByTitle(window, QObject::tr("&View"))) {
        QAction* lastToggle = nullptr;
        for (QAction* a : view->actions()) {
            for (auto* other : window->findChildren<QDockWidget*>()) {
                lastToggle = other != dock && a == other->toggleViewAction() ? a : lastToggle;
            }
        }
        insertAfter(view, lastToggle ? lastToggle->text() : QString(), dock->toggleViewAction());
    }
    return dock;
}

} // namespace fxs::app
