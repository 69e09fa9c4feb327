#include "app/gui/workspace_loader.h"

#include "core/util/file_reader.h"

#include <algorithm>
#include <filesystem>
#include <iterator>

namespace fxs::app {
namespace {

// A load's outcome: the result, or that it was cancelled (its partial result is dropped).
struct Loaded {
    io::LoadResult result;
    bool cancelled = false;
};

} // namespace

WorkspaceLoader::WorkspaceLoader(QObject* parent)
    : WorkspaceLoader(&WorkspaceLoader::defaultLoad, parent)
{
}

WorkspaceLoader::WorkspaceLoader(LoadFunction load, QObject* parent)
    : QObject(parent), m_load(std::move(load))
{
    connect(&m_tracker, &jobs::JobTracker::progress, this,
            [this](int id, double fraction, const QString& phase) {
                if (m_tracker.isCurrent(id)) {
                    Q_EMIT progress(id, fraction, phase);
                }
            });
}

WorkspaceLoader::~WorkspaceLoader() = default;

int WorkspaceLoader::load(const QStringList& paths)
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

void WorkspaceLoader::cancel()
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

io::LoadResult WorkspaceLoader::defaultLoad(const std::vector<std::string>& paths,
                                      const CancelToken& cancel, const ProgressSink& progress)
{
    io::LoadOptions options;
    options.deferGraphParsing = true; // a graph's IR is built when it is first shown
    return io::loadPaths(paths, options, cancel, progress); // directories: io::planDirectory
}

// ---- Deferred graph parses ------------------------------------------------------------------

int WorkspaceLoader::ensureParsed(const std::vector<views::GraphRef>& refs)
{
    if (m_workspace == nullptr) {
        return 0;
    }
    struct Pending {
        views::GraphRef ref;
        std::shared_ptr<const model::DeferredGraph> parse;
    };
    std::vector<Pending> pending;
    for (const views::GraphRef ref : refs) {
        if (m_workspace->parsePending(ref)) {
            pending.push_back({ref, m_workspace->artifact(ref)->deferred});
        } else {
            m_workspace->reportParsed(ref); // parsed already (by an earlier, abandoned job)
        }
    }
    if (pending.empty()) {
        return 0;
    }
    auto idle = std::find_if(m_parses.begin(), m_parses.end(),
                             [](const auto& t) { return !t->isRunning(); });
    if (idle == m_parses.end()) {
        m_parses.push_back(std::make_unique<jobs::JobTracker>());
        idle = std::prev(m_parses.end());
    }
    const int id = ++m_lastParse;
    // The job holds the parses themselves (shared with the workspace's runs); a reload that
    // replaces a run while it parses leaves it parsing a graph nobody reports.
    (*idle)->start(
        [pending](const CancelToken& cancel, const ProgressSink& progress) {
            for (std::size_t i = 0; i < pending.size() && !cancel.isCancelled(); ++i) {
                reportProgress(progress, double(i) / double(pending.size()),
                               "Reading the graph code…");
                pending[i].parse->get();
            }
            return true;
        },
        [this, refs, id](bool) {
            for (const views::GraphRef ref : refs) {
                m_workspace->reportParsed(ref);
            }
            Q_EMIT parsed(id);
        });
    return id;
}

bool WorkspaceLoader::isParsing() const
{
    return std::any_of(m_parses.begin(), m_parses.end(),
                       [](const auto& t) { return t->isRunning(); });
}

void WorkspaceLoader::parseNow(views::GraphRef ref)
{
    if (m_workspace == nullptr || !m_workspace->parsePending(ref)) {
        return;
    }
    m_workspace->artifact(ref)->deferred->get();
    m_workspace->reportParsed(ref);
}

} // namespace fxs::app
