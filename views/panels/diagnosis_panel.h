// The Diagnosis dock: why start-up was slow, for the runs of the workspace. A summary line, the
// findings ranked by cost, the selected finding's details (the failed guard and source line of
// a recompile, the compiles a graph break separates, a lookup's headline) with links to the
// graph, the lookup, the compile or the source line, and the rank × compile grid when a run has
// several ranks. Runs no core work: it asks for a diagnosis (diagnosisRequested, whenever the
// workspace changes) and shows what the app's DiagnosisController answers (setDiagnosis);
// following a link is a request too (linkActivated).
#pragma once

#include "core/diagnose/diagnosis.h"
#include "core/util/result.h"
#include "views/models/diagnosis_models.h"
#include "views/models/workspace.h"

#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QTableView;
class QTextBrowser;

namespace fxs::views {

// The runs to diagnose together, in workspace order (Link::run indexes them). Answered with
// DiagnosisPanel::setDiagnosis. Runs are immutable snapshots.
struct DiagnoseRequest {
    std::vector<RunPtr> runs;
};

class DiagnosisPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiagnosisPanel(const Workspace* workspace, QWidget* parent = nullptr);

    // Asks for a diagnosis of the workspace's runs (also done on every Workspace::changed); an
    // empty workspace clears the panel without asking.
    void refresh();
    // The answer to the newest diagnosisRequested.
    void setDiagnosis(Result<diagnose::Diagnosis> diagnosis);
    bool isDiagnosing() const { return m_pending; }
    DiagnosisPtr diagnosis() const { return m_diagnosis; }

    // "3 findings · 6.2 s compiling in 1 frame · 2 recompiles · 1 graph break"; the error when
    // diagnosing failed.
    QString summaryText() const;
    // The details of the current finding, as plain text, and the links they offer, each
    // "KIND:RUN:INDEX:RANK:COMPILE_ID" (KIND graph, lookup, guard, compile or source).
    QString detailText() const;
    QStringList detailLinks() const { return m_links; }
    // Follows one of detailLinks() (emits linkActivated); false when it names nothing.
    bool followLink(const QString& link);
    // Makes a finding the current one (its details show); -1 clears.
    void selectFinding(int row);
    // Follows the current finding's own link (what double-click and Enter do).
    void activateFinding(int row);

    FindingsModel* findingsModel() const { return m_findings; }
    RankGridModel* rankGrid() const { return m_grid; }
    QTableView* findingsView() const { return m_findingsView; }
    QTableView* gridView() const { return m_gridView; }

Q_SIGNALS:
    void diagnosisRequested(const fxs::views::DiagnoseRequest& request);
    // A link to follow: a graph (Graph), a cache lookup (Lookup), a compile's graph (Compile,
    // Guard: the compile whose guard failed) or a user source line (Source).
    void linkActivated(const fxs::diagnose::Link& link);
    // A finding's remedy was asked for (its action, e.g. "plan_nested_regions"), with the
    // finding's own link (the compile it is about).
    void remedyActivated(const QString& action, const fxs::diagnose::Link& link);
    // The newest diagnosis was applied.
    void diagnosisReady();

private:
    void showDetails(int row);
    void addGraphLinks(const diagnose::Finding& f, QStringList& html);
    QString anchor(const diagnose::Link& link, const QString& text);
    // The link of the remedy shown in the details ("remedy:<action>"), when it has an action
    // the app runs; empty otherwise.
    QString remedyAnchor(const diagnose::Finding& f);

    const Workspace* m_workspace;
    std::optional<diagnose::Finding> m_remedy; // the finding whose remedy link is shown
    FindingsModel* m_findings;
    RankGridModel* m_grid;
    QLabel* m_summary;
    QTableView* m_findingsView;
    QTextBrowser* m_details;
    QLabel* m_gridTitle;
    QTableView* m_gridView;
    DiagnosisPtr m_diagnosis;
    std::vector<diagnose::Link> m_linkTargets; // m_links[i] → m_linkTargets[i]
    QStringList m_links;
    QString m_error;
    bool m_pending = false;
};

} // namespace fxs::views
