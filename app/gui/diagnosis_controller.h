// Answers the Diagnosis dock: runs the diagnose facade (core/diagnose) on the workspace's runs
// on a JobTracker (the newest request wins; a stale job is cancelled and its result dropped),
// raises the dock when a load brings runs (the overview a person reads first), follows the
// panel's links (a graph; a lookup, in the Cache dock, with its graph; a compile's Dynamo
// graph; a source line on the status line) through the AppContext, and marks a graph that a
// graph break separates from another with a banner (its Banner decoration layer, rewritten
// when the shown graph changes). Not the display (views/panels/diagnosis_panel).
#pragma once

#include "core/diagnose/diagnosis.h"
#include "views/jobs/job_tracker.h"
#include "views/models/workspace.h"

#include <QObject>
#include <QString>

class QDockWidget;

namespace fxs::views {
class DiagnosisPanel;
struct DiagnoseRequest;
} // namespace fxs::views

namespace fxs::app {

class AppContext;

class DiagnosisController : public QObject {
    Q_OBJECT
public:
    explicit DiagnosisController(AppContext* context);

    views::DiagnosisPanel* panel() const { return m_panel; }
    QDockWidget* dock() const { return m_dock; }
    bool isDiagnosing() const { return m_jobs.isRunning(); }
    // What the banner says about a graph: the graph breaks that separate it from
    // the graphs before or after it; empty when none (or no diagnosis yet).
    QString breakBanner(views::GraphRef ref) const;
    // File › Export Report: the diagnosis shown, with the shown graph drawn by modules, as one
    // self-contained HTML page (core/report; redact: no source text, paths or values), laid
    // out and written in the background; reportWritten when done. False (nothing started)
    // when there is no diagnosis yet.
    bool exportReport(const QString& path, bool redact);
    bool isExporting() const { return m_reportJobs.isRunning(); }

Q_SIGNALS:
    // error: empty when the page was written.
    void reportWritten(const QString& path, const QString& error);

private:
    void diagnose(const views::DiagnoseRequest& request);
    void follow(const diagnose::Link& link);
    // A finding's remedy: plan_nested_regions shows the compile's Dynamo graph and, once its
    // module structure is known, opens Regions › Plan Nested Regions for it.
    void runRemedy(const QString& action, const diagnose::Link& link);
    // The Dynamo graph of a compile of a run (any graph of it when none is logged).
    views::GraphRef compileGraph(int run, int rank, const model::CompileId& id) const;
    void updateBanner();

    AppContext* m_context;
    views::DiagnosisPanel* m_panel;
    QDockWidget* m_dock = nullptr;
    jobs::JobTracker m_jobs;
    jobs::JobTracker m_reportJobs;
};

} // namespace fxs::app
