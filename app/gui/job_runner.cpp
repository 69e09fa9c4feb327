#include "app/gui/job_runner.h"

namespace fxs::app {
namespace {

// A load's outcome: the result, or that it was cancelled (its partial result is dropped).
struct Loaded {
    io::LoadResult result;
    bool cancelled = false;
};

} // namespace

JobRunner::JobRunner(QObject* parent) : JobRunner(&JobRunner::defaultLoad, parent) {}

JobRunner::JobRunner(LoadFunction load, QObject* parent)
    : QObject(parent), m_load(std::move(load))
{
    connect(&m_tracker, &jobs::JobTracker::progress, this,
            [this](int id, double fraction, const QString& phase) {
                if (m_tracker.isCurrent(id)) {
                    Q_EMIT progress(id, fraction, phase);
                }
            });
}

JobRunner::~JobRunner() = default;

int JobRunner::load(const QStringList& paths)
{
    std::vector<std::string> list;
    for (const auto& p : paths) {
        list.push_back(p.toStdString());
    }
    m_paths = paths;
    const int id = m_tracker.start(
        [load = m_load, list = std::move(list)](const CancelToken& cancel,
                                                const ProgressSink& progress) {
            Loaded loaded{load(list, cancel, progress), false};
            loaded.cancelled = cancel.isCancelled();
            return loaded;
        },
        [this, paths](Loaded loaded) {
            const int done = m_tracker.generation();
            if (loaded.cancelled) {
                Q_EMIT cancelled(done, paths);
                return;
            }
            Q_EMIT finished(done, std::make_shared<io::LoadResult>(std::move(loaded.result)),
                            paths);
        });
    Q_EMIT started(id, paths);
    return id;
}

void JobRunner::cancel()
{
    if (!m_tracker.isRunning()) {
        return;
    }
    const int id = m_tracker.generation();
    m_tracker.abandon();
    // Queued: callers (and tests) see the signal after cancel() returned, as when it came
    // from the worker.
    QMetaObject::invokeMethod(
        this, [this, id, paths = m_paths] { Q_EMIT cancelled(id, paths); }, Qt::QueuedConnection);
}

io::LoadResult JobRunner::defaultLoad(const std::vector<std::string>& paths,
                                      const CancelToken& cancel, const ProgressSink& progress)
{
    io::LoadOptions options;
    options.deferGraphParsing = true; // a graph's IR is built when it is first shown
    return io::loadPaths(paths, options, cancel, progress); // directories: io::planDirectory
}

} // namespace fxs::app
