// The Cache dock: the lookups of one run (state, cache, compile id, key, cost, why), a choice
// of what to compare them with (another run, earlier lookups of the same run, or one chosen
// lookup), the explainer's headline for the selected lookup and its differing key components
// side by side. Asks the app to open both graphs when the graph code (gm) changed. Runs no
// core work: it asks for explanations (explanationRequested, lookupExplanationRequested) and
// shows what the app's CacheController answers.
#pragma once

#include "core/util/result.h"
#include "views/models/cache_lookup_model.h"
#include "views/models/component_diff_model.h"

#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace fxs::explain {
struct Explanation;
struct LookupExplanation;
} // namespace fxs::explain

namespace fxs::views {

// The lookups the panel wants explained: B's against A's, or against B's own earlier lookups
// when A is null; no B: nothing to explain (drop what is on its way). Answered with
// CachePanel::setExplanation. Runs are immutable snapshots.
struct ExplainRequest {
    RunPtr a;
    RunPtr b;
};

// One lookup against one chosen partner (null: none). Answered with setLookupExplanation.
struct LookupExplainRequest {
    const model::CacheLookup* lookup = nullptr;
    const model::CacheLookup* partner = nullptr;
    std::string partnerName;
};

// Two graphs to show side by side with their changed nodes highlighted.
struct GraphComparison {
    graph::GraphPtr a;
    graph::GraphPtr b;
    std::vector<graph::NodeId> changedA; // changed and removed nodes, ids in a
    std::vector<graph::NodeId> changedB; // changed and added nodes, ids in b
    QString titleA;
    QString titleB;
    QString summary; // "2 nodes changed, 1 added (of 9 → 10)"
};

class CachePanel : public QWidget {
    Q_OBJECT
public:
    explicit CachePanel(const Workspace* workspace, QWidget* parent = nullptr);
    ~CachePanel() override;

    // Shows the lookups of a run; by default compares with the run loaded before it, or within
    // the run when it is the first. No-op when the run is already shown.
    void setRun(int run);
    int run() const { return m_lookups->run(); }
    // Compare the run with another run (B = this run, A = other); -1 compares within the run.
    void compareWithRun(int otherRun);
    // Compare the selected lookup with lookup `index` of this run.
    void compareWithLookup(int index);
    // Selects a lookup row; emits nothing (the app syncs from other panels with it).
    void selectLookup(LookupRef ref);
    LookupRef currentLookup() const;

    QString headlineText() const;
    // The answer to the newest explanationRequested; shows "Explaining…" until it comes.
    void setExplanation(Result<explain::Explanation> explanation);
    // The answer to lookupExplanationRequested.
    void setLookupExplanation(const explain::LookupExplanation& explanation);
    // An explanation was requested and has not been answered yet.
    bool isExplaining() const { return m_pending; }
    CacheLookupModel* lookupModel() const { return m_lookups; }
    ComponentDiffModel* diffModel() const { return m_diff; }
    QTableView* lookupView() const { return m_lookupView; }
    // The comparison of the selected lookup's graph change, when it has one.
    std::optional<GraphComparison> graphComparison() const;

Q_SIGNALS:
    void explanationRequested(const fxs::views::ExplainRequest& request);
    void lookupExplanationRequested(const fxs::views::LookupExplainRequest& request);
    void lookupSelected(fxs::views::LookupRef ref);
    void graphComparisonRequested(const fxs::views::GraphComparison& comparison);
    // The newest explanation was applied (also when it ran synchronously).
    void explanationReady();

private:
    void rebuildRunCombo();
    void rebuildCompareCombo();
    void recompute();
    void showExplanation(const explain::LookupExplanation* ex);
    void onCurrentLookupChanged();
    void onCompareChoice(int comboIndex);
    void selectMostTelling();
    QString sideName(bool a) const;

    const Workspace* m_workspace;
    CacheLookupModel* m_lookups;
    ComponentDiffModel* m_diff;
    QComboBox* m_runCombo;
    QComboBox* m_compareCombo;
    QTableView* m_lookupView;
    QLabel* m_headline;
    QTableView* m_diffView;
    QLabel* m_graphSummary;
    QPushButton* m_openGraphs;

    enum class Mode { Within, Run, Lookup };
    Mode m_mode = Mode::Within;
    int m_other = -1; // other run (Mode::Run) or partner lookup (Mode::Lookup)
    // Held by pointer so that moc and the panel's users need not parse the explain headers.
    std::unique_ptr<explain::Explanation> m_explanation;
    std::unique_ptr<explain::LookupExplanation> m_shown;
    QString m_error;
    bool m_quiet = false;
    bool m_pending = false; // the newest explanation request is not answered yet
};

} // namespace fxs::views
