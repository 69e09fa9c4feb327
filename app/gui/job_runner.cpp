#include "app/gui/job_runner.h"

#include "core/util/file_reader.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <filesystem>

namespace fxs::app {

struct JobRunner::Request {
    int id = 0;
    QStringList paths;
    CancelToken token;
    QFutureWatcher<io::LoadResult> watcher;
    std::shared_ptr<std::atomic<int>> lastPercent = std::make_shared<std::atomic<int>>(-1);
};

JobRunner::JobRunner(QObject* parent) : JobRunner(&JobRunner::defaultLoad, parent) {}

JobRunner::JobRunner(LoadFunction load, QObject* parent)
    : QObject(parent), m_load(std::move(load))
{
}

JobRunner::~JobRunner()
{
    for (const auto& r : m_requests) {
        r->token.cancel();
    }
    for (const auto& r : m_requests) {
        r->watcher.disconnect(this);
        r->watcher.waitForFinished();
    }
}

int JobRunner::load(const QStringList& paths)
{
    cancel();
    auto request = std::make_shared<Request>();
    request->id = ++m_latest;
    request->paths = paths;
    std::vector<std::string> list;
    for (const auto& p : paths) {
        list.push_back(p.toStdString());
    }
    // Progress crosses threads as queued calls; whole percents only, so a chatty importer
    // cannot flood the event loop. The runner outlives every worker (see the destructor).
    const int id = request->id;
    auto lastPercent = request->lastPercent;
    ProgressSink sink = [this, id, lastPercent](double fraction, std::string_view phase) {
        const int percent = static_cast<int>(fraction * 100.0);
        if (lastPercent->exchange(percent) == percent) {
            return;
        }
        QMetaObject::invokeMethod(
            this,
            [this, id, fraction, text = QString::fromUtf8(phase.data(), qsizetype(phase.size()))] {
                if (id == m_latest) {
                    Q_EMIT progress(id, fraction, text);
                }
            },
            Qt::QueuedConnection);
    };
    connect(&request->watcher, &QFutureWatcherBase::finished, this,
            [this, weak = std::weak_ptr<Request>(request)] {
                if (auto r = weak.lock()) {
                    onDone(r);
                }
            });
    request->watcher.setFuture(QtConcurrent::run(
        [load = m_load, list = std::move(list), token = request->token, sink] {
            return load(list, token, sink);
        }));
    m_requests.push_back(request);
    ++m_running;
    Q_EMIT started(id, paths);
    return id;
}

void JobRunner::cancel()
{
    for (const auto& r : m_requests) {
        r->token.cancel();
    }
}

void JobRunner::onDone(const std::shared_ptr<Request>& request)
{
    std::erase(m_requests, request);
    --m_running;
    // The watcher is emitting right now: free it on a later turn of the event loop.
    QMetaObject::invokeMethod(this, [keep = request] {}, Qt::QueuedConnection);
    if (request->id != m_latest) {
        return; // a newer request superseded this one: drop its result
    }
    if (request->token.isCancelled()) {
        Q_EMIT cancelled(request->id, request->paths);
        return;
    }
    auto result = std::make_shared<io::LoadResult>(request->watcher.future().takeResult());
    Q_EMIT finished(request->id, std::move(result), request->paths);
}

std::vector<std::string> JobRunner::expandProcessDirectories(const std::vector<std::string>& paths)
{
    std::vector<std::string> out;
    for (const auto& path : paths) {
        auto files = isDirectory(path) ? listFiles(path)
                                       : Result<std::vector<std::string>>(std::vector<std::string>{});
        const bool split = files.ok() && files->size() > 1
                           && std::none_of(files->begin(), files->end(), [](const auto& f) {
                                  return std::filesystem::path(f).filename().string().find("rank")
                                         != std::string::npos;
                              });
        if (split) {
            out.insert(out.end(), files->begin(), files->end());
        } else {
            out.push_back(path);
        }
    }
    return out;
}

io::LoadResult JobRunner::defaultLoad(const std::vector<std::string>& paths,
                                      const CancelToken& cancel, const ProgressSink& progress)
{
    return io::loadPaths(expandProcessDirectories(paths), cancel, progress);
}

} // namespace fxs::app
