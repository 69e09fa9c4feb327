// The Cache browser in the app: docks the CacheBrowserPanel ("cacheBrowserDock") and answers
// its requests against the cache database the AppContext names — list, verify and GC on
// JobTrackers (off the GUI thread; the newest reload wins), the diff and headline of selected
// entries with core/cache's explainer. Reads the database the first time the dock is shown and
// again whenever the path changes or a job wrote to the cache. Not the display.
#pragma once

#include "views/jobs/job_tracker.h"

#include <QObject>

class QAction;
class QDockWidget;

namespace fxs::cache {
struct EntryInfo;
}

namespace fxs::views {
class CacheBrowserPanel;
}

namespace fxs::app {

class AppContext;

class CacheBrowserController : public QObject {
    Q_OBJECT
public:
    explicit CacheBrowserController(AppContext* context);
    ~CacheBrowserController() override;

    views::CacheBrowserPanel* panel() const { return m_panel; }
    QDockWidget* dock() const { return m_dock; }
    // Build › Cache Browser (objectName "cacheBrowserAction"): shows and raises the dock.
    QAction* showAction() const { return m_showAction; }
    // The database is read whenever something changes from now on (as after the dock's first
    // showing).
    void setLive();

private:
    void connectPanel();
    void compare(const cache::EntryInfo& a, const cache::EntryInfo& b);
    void reload();
    void verify();
    void collect(qint64 maxBytes);

    AppContext* m_context;
    views::CacheBrowserPanel* m_panel;
    QDockWidget* m_dock;
    QAction* m_showAction;
    jobs::JobTracker m_list;        // reloads: the newest wins
    jobs::JobTracker m_maintenance; // verify and GC
    bool m_live = false;
};

} // namespace fxs::app
