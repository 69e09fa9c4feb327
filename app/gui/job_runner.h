// Runs File › Open loads off the GUI thread: io::loadPaths on QtConcurrent with a CancelToken
// and a ProgressSink, results back on the GUI thread through a QFutureWatcher. The newest
// request wins: starting a load cancels the running one and stale results are dropped.
// Not a document: the MainWindow hands finished results to the Workspace.
#pragma once

#include "core/io/loader.h"
#include "core/util/cancel.h"

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
    ~JobRunner() override; // cancels and waits for running work

    // Starts loading paths; cancels the running load. Returns the request's id.
    int load(const QStringList& paths);
    // Cancels the newest load (emits cancelled when its worker returns).
    void cancel();
    bool isRunning() const { return m_running > 0; }
    int latest() const { return m_latest; }

    // The default load: directories of separately run processes (several logs, none named
    // per rank) open as one run per log; everything else goes to io::loadPaths as given.
    static io::LoadResult defaultLoad(const std::vector<std::string>& paths,
                                      const CancelToken& cancel, const ProgressSink& progress);
    static std::vector<std::string> expandProcessDirectories(const std::vector<std::string>& paths);

Q_SIGNALS:
    void started(int id, const QStringList& paths);
    // fraction in [0, 1]; only for the newest request.
    void progress(int id, double fraction, const QString& phase);
    void finished(int id, std::shared_ptr<fxs::io::LoadResult> result, const QStringList& paths);
    void cancelled(int id, const QStringList& paths);

private:
    struct Request;
    void onDone(const std::shared_ptr<Request>& request);

    LoadFunction m_load;
    std::vector<std::shared_ptr<Request>> m_requests; // running ones
    int m_latest = 0;
    int m_running = 0;
};

} // namespace fxs::app

Q_DECLARE_METATYPE(std::shared_ptr<fxs::io::LoadResult>)
