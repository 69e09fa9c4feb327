// JobTracker: the one way the app and the views run long core work off the GUI thread. Each
// start() is a new generation; it cancels the running one, and only the newest generation's
// result reaches its done callback (stale results are dropped). The work polls the CancelToken
// it is given and reports through the ProgressSink (hotspot's JobTracker is the model).
// Not a scheduler: one tracker per kind of request; what a cancelled result means is the job's.
#pragma once

#include "core/util/cancel.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

namespace fxs::jobs {

class JobTracker : public QObject {
    Q_OBJECT
public:
    // How long shutdown() (and the destructor) waits for cancelled workers to return.
    static constexpr int kShutdownWaitMs = 2000;

    explicit JobTracker(QObject* parent = nullptr);
    ~JobTracker() override; // shutdown()

    // Runs work(const CancelToken&, const ProgressSink&) -> T on the job pool (a worker
    // thread) and then done(T) on this tracker's thread, unless a newer start() or abandon()
    // came meanwhile. Cancels the token of every job still running (they are stale now).
    // Returns the generation. Work and done must not throw; done may start another job.
    template <typename Work, typename Done>
    int start(Work work, Done done);

    // Cancels the running jobs' tokens; the newest still delivers what its work returns.
    void cancel();
    // Cancels and drops: the running jobs' results will not be delivered. Returns at once,
    // even when a worker is blocked and never polls its token.
    void abandon();
    // Cancels every job, waits up to shutdownWait() for the workers to return, then detaches
    // the ones still running (they finish in the background and are never delivered; see
    // detachedJobs()). Afterwards nothing reaches this tracker; start() is refused (returns 0).
    void shutdown();

    // The newest generation has not delivered yet.
    bool isRunning() const { return m_pending; }
    int generation() const { return m_generation; }
    bool isCurrent(int generation) const { return generation == m_generation && m_pending; }
    // The newest job's token (a fresh, uncancelled one when idle).
    CancelToken currentToken() const;
    // Workers of this tracker that have not returned yet (stale ones included).
    int runningWorkers() const;
    // Waits (without delivering) until every worker of this tracker returned; false on timeout.
    bool waitForWorkers(int msecs);
    void setShutdownWait(int msecs) { m_shutdownWait = msecs; }
    int shutdownWait() const { return m_shutdownWait; }

    // Workers detached by shutdown() that are still running, process-wide. main() ends the
    // process with std::quick_exit when this is not 0 (see app/gui/shutdown.h).
    static int detachedJobs();

Q_SIGNALS:
    // From the worker thread (receivers with a GUI-thread context get it queued), for the
    // newest generation only, at most once per whole percent unless the phase changes.
    void progress(int generation, double fraction, const QString& phase);
    // isRunning() changed. A start() from idle emits it before the work begins, so that
    // receivers see the new job's currentToken().
    void runningChanged(bool running);

private:
    struct Job;
    struct Shared;
    using Run = std::function<void(const CancelToken&, const ProgressSink&)>;
    int launch(Run run, std::function<void()> deliver);
    void finish(const std::shared_ptr<Job>& job);
    void setPending(bool pending);

    std::shared_ptr<Shared> m_shared;
    std::vector<std::shared_ptr<Job>> m_jobs; // started, not yet finished on this thread
    int m_generation = 0;
    bool m_pending = false;
    bool m_shutDown = false;
    int m_shutdownWait = kShutdownWaitMs;
};

template <typename Work, typename Done>
int JobTracker::start(Work work, Done done)
{
    using T = std::invoke_result_t<Work&, const CancelToken&, const ProgressSink&>;
    // Shared, so that move-only captures fit std::function and the result outlives the worker.
    auto result = std::make_shared<std::optional<T>>();
    auto w = std::make_shared<Work>(std::move(work));
    auto d = std::make_shared<Done>(std::move(done));
    return launch(
        [w, result](const CancelToken& token, const ProgressSink& sink) {
            result->emplace((*w)(token, sink));
        },
        [d, result] { (*d)(std::move(**result)); });
}

} // namespace fxs::jobs
