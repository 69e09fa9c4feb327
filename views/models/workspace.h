// The app's document: every run and standalone graph file loaded so far, plus the problems
// found while loading. Holds immutable core snapshots; changed only on the GUI thread, and
// every item model and panel reads from it. Not a loader: io::loadPaths fills LoadResults.
// Graphs of runs may be parsed on first use (io::LoadOptions::deferGraphParsing): graph()
// never parses; the app's WorkspaceLoader parses them off the GUI thread (ensureParsed) and
// reports each here (reportParsed): its problems join diagnostics() like a load's, and
// graphReady is emitted once per graph.
#pragma once

#include "core/io/loader.h"
#include "core/model/run.h"
#include "core/util/diagnostics.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace fxs::views {

using RunPtr = std::shared_ptr<const model::Run>;

// Names one graph of the workspace: runs()[run].graphs[index], or graphFiles()[index] when
// run is kStandalone.
struct GraphRef {
    static constexpr int kStandalone = -1;
    int run = kStandalone;
    int index = -1;
    bool valid() const { return index >= 0; }
    bool operator==(const GraphRef&) const = default;
};

// Names one cache lookup: runs()[run].lookups[index].
struct LookupRef {
    int run = -1;
    int index = -1;
    bool valid() const { return run >= 0 && index >= 0; }
    bool operator==(const LookupRef&) const = default;
};

class Workspace : public QObject {
    Q_OBJECT
public:
    explicit Workspace(QObject* parent = nullptr);

    // Adds what one load produced. A run whose path is already loaded is replaced (reload).
    // Emits aboutToChange() then changed().
    void add(io::LoadResult result);
    void clear();
    bool isEmpty() const { return m_runs.empty() && m_graphFiles.empty(); }

    const std::vector<RunPtr>& runs() const { return m_runs; }
    const std::vector<model::GraphArtifact>& graphFiles() const { return m_graphFiles; }
    const Diagnostics& diagnostics() const { return m_diagnostics; }

    // Null / nullptr when the reference does not name a loaded graph.
    const model::GraphArtifact* artifact(GraphRef ref) const;
    // The graph when it is parsed (null while its parse is pending, or when unreadable).
    graph::GraphPtr graph(GraphRef ref) const;
    // True while the graph's parse is deferred and nobody ran it yet.
    bool parsePending(GraphRef ref) const;
    // After a deferred parse ran (on any thread): adds its problems to diagnostics() and emits
    // graphReady, once per graph; nothing when the graph's parse is still pending. Called by
    // the loader that ran the parse (app WorkspaceLoader), not by its consumers.
    void reportParsed(GraphRef ref);
    // reportParsed for every graph of the run (a job's parse may read several: a backward
    // graph's structure reads its forward graph).
    void reportParsedGraphs(int run);
    // A problem found outside a load (a project or saved profile that could not be opened):
    // joins diagnostics() like a load's, so the Problems dock keeps it.
    void reportProblem(Diagnostic problem);
    const model::CacheLookup* lookup(LookupRef ref) const;
    // "1_cold.log" for runs, the file name for standalone graphs.
    QString runName(int run) const;
    // "0/0 · AOT forward" (runs) or the file name (standalone graphs).
    QString graphTitle(GraphRef ref) const;

    // The graph a lookup keys (see graphsKeyedByLookups), invalid when none.
    GraphRef graphForLookup(LookupRef ref) const;
    // The lookups that key a graph, in log order.
    std::vector<LookupRef> lookupsForGraph(GraphRef ref) const;
    // inductor_output_code texts of the graph's compile id, in log order.
    std::vector<const model::TextArtifact*> outputCode(GraphRef ref) const;
    // The same graph kind and compile id in another run (for side-by-side comparison).
    GraphRef counterpart(GraphRef ref, int otherRun) const;

Q_SIGNALS:
    void aboutToChange();
    void changed();
    // A deferred graph is parsed and its problems are in diagnostics(); once per graph
    // (graph(ref) may still be null: unreadable). Graphs parsed at load are ready with changed().
    void graphReady(fxs::views::GraphRef ref);
    // diagnostics() grows by rows [first, last] without the rest of the workspace changing.
    void diagnosticsAboutToBeAdded(int first, int last);
    void diagnosticsAdded();

private:
    std::vector<RunPtr> m_runs;
    std::vector<std::vector<int>> m_lookupTargets; // per run: graphsKeyedByLookups
    std::vector<model::GraphArtifact> m_graphFiles;
    Diagnostics m_diagnostics;
    std::vector<std::vector<bool>> m_reported; // per run: deferred parse reported
};

} // namespace fxs::views

Q_DECLARE_METATYPE(fxs::views::GraphRef)
Q_DECLARE_METATYPE(fxs::views::LookupRef)
