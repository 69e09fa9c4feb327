#include "views/jobs/job_tracker.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

namespace fxs::jobs {
namespace {

std::atomic<int> g_detached{0};

void stopIdleWorkers();

// The pool every tracker runs on. Not Qt's global pool: QCoreApplication's destructor waits
// for that one without a limit, so a worker blocked in a read (a FIFO with no writer) would
// keep the process alive after Quit. This pool is never deleted; its idle threads are stopped
// when the application object goes away, unless a detached worker still runs (then main()
// ends the process with quick_exit, see detachedJobs()).
QThreadPool* jobPool()
{
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;
        p->setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
        qAddPostRoutine(stopIdleWorkers);
        return p;
    }();
    return pool;
}

void stopIdleWorkers()
{
    if (g_detached.load() == 0) {
        jobPool()->waitForDone(JobTracker::kShutdownWaitMs);
    }
}

} // namespace

struct JobTracker::Job {
    int generation = 0;
    CancelToken token;
    std::function<void()> deliver; // GUI thread only
    // Guarded by Shared::mutex.
    bool returned = false; // the worker's work returned
    bool detached = false; // shutdown() gave up waiting for it
    bool released = false; // cancelled while running: its pool slot was handed back
    // Progress coalescing, touched by the worker thread only.
    int lastPercent = -1;
    std::string lastPhase;
};

// What workers share with the tracker; outlives it while a worker runs.
struct JobTracker::Shared {
    std::mutex mutex;
    std::condition_variable returned;
    JobTracker* tracker = nullptr;  // null once shut down
    std::atomic<int> latest{0};     // newest generation (progress filter on the worker)
};

JobTracker::JobTracker(QObject* parent) : QObject(parent), m_shared(std::make_shared<Shared>())
{
    m_shared->tracker = this;
}

JobTracker::~JobTracker()
{
    shutdown();
}

int JobTracker::launch(Run run, std::function<void()> deliver)
{
    if (m_shutDown) {
        return 0;
    }
    cancel(); // running jobs are stale from now on
    auto job = std::make_shared<Job>();
    job->generation = ++m_generation;
    job->deliver = std::move(deliver);
    m_shared->latest.store(job->generation);
    m_jobs.push_back(job);
    auto shared = m_shared;
    // Emitted under the mutex so that shutdown() cannot free the tracker meanwhile; direct
    // receivers run on the worker and must not call the tracker.
    ProgressSink sink = [shared, job](double fraction, std::string_view phase) {
        const int percent = static_cast<int>(fraction * 100.0);
        if (percent == job->lastPercent && phase == job->lastPhase) {
            return;
        }
        job->lastPercent = percent;
        job->lastPhase = std::string(phase);
        std::lock_guard lock(shared->mutex);
        if (shared->tracker != nullptr && shared->latest.load() == job->generation) {
            Q_EMIT shared->tracker->progress(
                job->generation, fraction,
                QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size())));
        }
    };
    setPending(true); // before the worker starts: currentToken() is this job's from here on
    jobPool()->start([shared, job, run = std::move(run), sink = std::move(sink)] {
        run(job->token, sink);
        std::lock_guard lock(shared->mutex);
        job->returned = true;
        if (job->released) {
            jobPool()->reserveThread(); // balances the releaseThread() of cancel()
        }
        if (job->detached) {
            g_detached.fetch_sub(1);
        }
        if (shared->tracker != nullptr) {
            QMetaObject::invokeMethod(
                shared->tracker, [tracker = shared->tracker, job] { tracker->finish(job); },
                Qt::QueuedConnection);
        }
        shared->returned.notify_all();
    });
    return job->generation;
}

void JobTracker::finish(const std::shared_ptr<Job>& job)
{
    std::erase(m_jobs, job);
    if (job->generation != m_generation || !m_pending) {
        return; // superseded or abandoned: the result is dropped with the job
    }
    setPending(false);
    auto deliver = std::move(job->deliver);
    if (deliver) {
        deliver();
    }
}

void JobTracker::cancel()
{
    std::lock_guard lock(m_shared->mutex);
    for (const auto& job : m_jobs) {
        job->token.cancel();
        // A cancelled worker may sit in a blocking call for long: let the pool start
        // another thread meanwhile, so that new requests are not queued behind it.
        if (!job->returned && !job->released) {
            job->released = true;
            jobPool()->releaseThread();
        }
    }
}

void JobTracker::abandon()
{
    cancel();
    ++m_generation;
    m_shared->latest.store(m_generation);
    setPending(false);
}

void JobTracker::shutdown()
{
    if (m_shutDown) {
        return;
    }
    cancel();
    m_shutDown = true;
    {
        std::unique_lock lock(m_shared->mutex);
        m_shared->returned.wait_for(lock, std::chrono::milliseconds(m_shutdownWait), [this] {
            return std::all_of(m_jobs.begin(), m_jobs.end(),
                               [](const auto& j) { return j->returned; });
        });
        m_shared->tracker = nullptr;
        for (const auto& job : m_jobs) {
            if (!job->returned) {
                job->detached = true;
                g_detached.fetch_add(1);
            }
        }
    }
    for (const auto& job : m_jobs) {
        job->deliver = nullptr; // its captures belong to this thread's objects
    }
    m_jobs.clear();
    m_pending = false;
}

CancelToken JobTracker::currentToken() const
{
    if (m_pending && !m_jobs.empty() && m_jobs.back()->generation == m_generation) {
        return m_jobs.back()->token;
    }
    return CancelToken::none();
}

int JobTracker::runningWorkers() const
{
    std::lock_guard lock(m_shared->mutex);
    return static_cast<int>(
        std::count_if(m_jobs.begin(), m_jobs.end(), [](const auto& j) { return !j->returned; }));
}

bool JobTracker::waitForWorkers(int msecs)
{
    std::unique_lock lock(m_shared->mutex);
    return m_shared->returned.wait_for(lock, std::chrono::milliseconds(msecs), [this] {
        return std::all_of(m_jobs.begin(), m_jobs.end(), [](const auto& j) { return j->returned; });
    });
}

int JobTracker::detachedJobs()
{
    return g_detached.load();
}

void JobTracker::setPending(bool pending)
{
    if (m_pending != pending) {
        m_pending = pending;
        Q_EMIT runningChanged(pending);
    }
}

} // namespace fxs::jobs
