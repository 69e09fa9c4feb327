// WorkspaceLoader: everything the app reads off the GUI thread to fill its Workspace. Loads
// (File › Open: io::loadPaths on a JobTracker with a CancelToken and a ProgressSink; the newest
// request wins, stale results are dropped; Cancel answers at once, even when the reader is
// blocked on a FIFO with no writer) and the deferred parses of graphs (ensureParsed: a graph
// and the graphs its structure reads, in one background job; each reported to the Workspace,
// which publishes its problems and emits graphReady). Not a document: the MainWindow hands a
// finished load to the Workspace; not the shown graph (ShownGraph asks for parses).
#pragma once

#include "core/io/loader.h"
#include "core/util/cancel.h"
#include "views/jobs/job_tracker.h"
#include "views/models/workspace.h"

#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

namespace fxs::app {

class WorkspaceLoader : public QObject {
    Q_OBJECT
public:
    // The work a load does (worker thread); tests substitute a slow or failing one.
    using LoadFunction = std::function<io::LoadResult(
        const std::vector<std::string>&, const CancelToken&, const ProgressSink&)>;

    explicit WorkspaceLoader(QObject* parent = nullptr);
    WorkspaceLoader(LoadFunction load, QObject* parent);
    ~WorkspaceLoader() override; // cancels; waits a bounded time (JobTracker::shutdown)

    // Starts loading paths; cancels the running load. Returns the request's id.
    int load(const QStringList& paths);
    // Cancels the newest load: its worker's token is cancelled and cancelled is emitted on the
    // next turn of the event loop, without waiting for the worker (whose result is dropped).
    void cancel();
    bool isRunning() const { return m_tracker.isRunning(); }
    int latest() const { return m_tracker.generation(); }
    // Replaces the load function (tests: a load that blocks).
    void setLoadFunction(LoadFunction load) { m_load = std::move(load); }
    jobs::JobTracker* tracker() { return &m_tracker; }

    // The workspace whose graphs ensureParsed parses and reports (not owned).
    void setWorkspace(views::Workspace* workspace) { m_workspace = workspace; }
    // Parses the graphs among refs whose parse is deferred, in one background job; then reports
    // every one of refs to the workspace (graphReady, problems) and emits parsed(id). Requests
    // do not cancel each other (a parse cannot stop half-way, and another request may wait for
    // the same graph): whoever asked keeps the newest id and drops older ones. Graphs parsed
    // already are reported at once. Returns the request's id, or 0 when nothing was left to
    // parse (parsed is not emitted then).
    int ensureParsed(const std::vector<views::GraphRef>& refs);
    // Parses ref on the calling thread and reports it: for a graph of a few hundred lines
    // (MainWindow's kInlineParseLines), which shows at once rather than after a message.
    void parseNow(views::GraphRef ref);
    bool isParsing() const;

    // The default load: io::loadPaths, whose directories follow core's rule (io::planDirectory,
    // the CLI's too: several logs none named per rank open as one run per log; rank logs as one
    // run). Graphs of logs are counted, not parsed (io::LoadOptions::deferGraphParsing): a
    // graph's IR is built when it is first shown (ensureParsed).
    static io::LoadResult defaultLoad(const std::vector<std::string>& paths,
                                      const CancelToken& cancel, const ProgressSink& progress);

Q_SIGNALS:
    void started(int id, const QStringList& paths);
    // fraction in [0, 1]; only for the newest request.
    void progress(int id, double fraction, const QString& phase);
    void finished(int id, std::shared_ptr<fxs::io::LoadResult> result, const QStringList& paths);
    void cancelled(int id, const QStringList& paths);
    // An ensureParsed request's graphs are parsed and reported (graph() may be null for an
    // unreadable one).
    void parsed(int id);

private:
    LoadFunction m_load;
    jobs::JobTracker m_tracker;
    QStringList m_paths; // of the newest request
    views::Workspace* m_workspace = nullptr;
    // Deferred graph parses, one tracker per request in flight (idle ones reused).
    std::vector<std::unique_ptr<jobs::JobTracker>> m_parses;
    int m_lastParse = 0;
};

} // namespace fxs::app

Q_DECLARE_METATYPE(std::shared_ptr<fxs::io::LoadResult>)
