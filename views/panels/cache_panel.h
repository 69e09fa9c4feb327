// The Cache dock: the lookups of one run (state, cache, compile id, key, cost, why), a choice
// of what to compare them with (another run, earlier lookups of the same run, or one chosen
// lookup), the explainer's headline for the selected lookup and its differing key components
// side by side. Asks the app to open both graphs when the graph code (gm) changed. Runs the
// explain facade on the GUI thread for small runs and on QtConcurrent above a size threshold
// (newest request wins; a stale job is cancelled and its result dropped).
#pragma once

#include "core/util/cancel.h"
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
    // Run explanations with more lookups (both runs together) than this in the background;
    // 0 sends every explanation there (tests). Default kBackgroundLookups.
    static constexpr int kBackgroundLookups = 200;
    void setBackgroundThreshold(int lookups) { m_backgroundThreshold = lookups; }
    bool isExplaining() const { return m_pending; }
    CacheLookupModel* lookupModel() const { return m_lookups; }
    ComponentDiffModel* diffModel() const { return m_diff; }
    QTableView* lookupView() const { return m_lookupView; }
    // The comparison of the selected lookup's graph change, when it has one.
    std::optional<GraphComparison> graphComparison() const;

Q_SIGNALS:
    void lookupSelected(fxs::views::LookupRef ref);
    void graphComparisonRequested(const fxs::views::GraphComparison& comparison);
    // The newest explanation was applied (also when it ran synchronously).
    void explanationReady();

private:
    void rebuildRunCombo();
    void rebuildCompareCombo();
    void recompute();
    void applyExplanation(Result<explain::Explanation> result);
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
    bool m_pending = false;          // a background explanation is running
    int m_generation = 0;            // of the newest explanation request
    CancelToken m_cancel;            // of the running background job
    int m_backgroundThreshold = kBackgroundLookups;
};

} // namespace fxs::views
