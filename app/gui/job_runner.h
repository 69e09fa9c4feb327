// Runs File › Open loads off the GUI thread: io::loadPaths on a JobTracker with a CancelToken
// and a ProgressSink. The newest request wins: starting a load cancels the running one and
// stale results are dropped. Cancel always answers at once, even when the reader is blocked
// (a FIFO with no writer): the load is abandoned and its worker finishes in the background.
// Not a document: the MainWindow hands finished results to the Workspace.
#pragma once

#include "core/io/loader.h"
#include "core/util/cancel.h"
#include "views/jobs/job_tracker.h"

#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

namespace fxs::app {

class JobRunner : public QObject {
    Q_OBJECT
public:
    // The work a load does (worker thread); tests substitute a slow or failing one.
    using LoadFunction = std::function<io::LoadResult(
        const std::vector<std::string>&, const CancelToken&, const ProgressSink&)>;

    explicit JobRunner(QObject* parent = nullptr);
    JobRunner(LoadFunction load, QObject* parent);
    ~JobRunner() override; // cancels; waits a bounded time (JobTracker::shutdown)

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

    // The default load: io::loadPaths, whose directories follow io::planDirectory (several logs
    // none named per rank open as one run per log; rank logs as one run). Graphs
    // of logs are counted, not parsed (io::LoadOptions::deferGraphParsing): a graph's IR is
    // built when it is first shown (StructureController).
    static io::LoadResult defaultLoad(const std::vector<std::string>& paths,
                                      const CancelToken& cancel, const ProgressSink& progress);

Q_SIGNALS:
    void started(int id, const QStringList& paths);
    // fraction in [0, 1]; only for the newest request.
    void progress(int id, double fraction, const QString& phase);
    void finished(int id, std::shared_ptr<fxs::io::LoadResult> result, const QStringList& paths);
    void cancelled(int id, const QStringList& paths);

private:
    LoadFunction m_load;
    jobs::JobTracker m_tracker;
    QStringList m_paths; // of the newest request
};

} // namespace fxs::app

Q_DECLARE_METATYPE(std::shared_ptr<fxs::io::LoadResult>)
