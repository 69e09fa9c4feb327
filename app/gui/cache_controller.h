// Answers the Cache dock's requests: runs the explain facade (core/explain) on the runs the
// panel shows — on the GUI thread for small runs, on a JobTracker above a size threshold (the
// newest request wins; a stale job is cancelled and its result dropped) — and explains one
// lookup against a chosen partner. Not the display (views/panels/cache_panel).
#pragma once

#include "views/jobs/job_tracker.h"

#include <QObject>
#include <QPointer>

namespace fxs::views {
class CachePanel;
struct ExplainRequest;
struct LookupExplainRequest;
} // namespace fxs::views

namespace fxs::app {

class CacheController : public QObject {
    Q_OBJECT
public:
    // Answers panel's requests from now on (the panel outlives the controller or not: both fine).
    explicit CacheController(views::CachePanel* panel, QObject* parent = nullptr);

    // Explanations with more lookups (both runs together) than this run in the background;
    // 0 sends every explanation there (tests). Default kBackgroundLookups.
    static constexpr int kBackgroundLookups = 200;
    void setBackgroundThreshold(int lookups) { m_threshold = lookups; }
    bool isExplaining() const { return m_jobs.isRunning(); }

private:
    void explain(const views::ExplainRequest& request);
    void explainLookup(const views::LookupExplainRequest& request);

    QPointer<views::CachePanel> m_panel;
    jobs::JobTracker m_jobs;
    int m_threshold = kBackgroundLookups;
};

} // namespace fxs::app
