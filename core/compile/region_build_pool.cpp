#include "core/compile/region_build_pool.h"

#include <algorithm>
#include <chrono>
#include <system_error>

namespace fxs::compile {

int buildJobs(int jobs)
{
    if (jobs > 0) {
        return jobs;
    }
    const int hw = static_cast<int>(std::thread::hardware_concurrency()); // 0: unknown
    return std::clamp(hw, 1, kMaxAutoJobs);
}

} // namespace fxs::compile

namespace fxs::compile::detail {

void runBuild(BuildSlot& slot, const CancelToken& cancel)
{
    // A build never throws (TargetCode::build returns errors); a slot the token dropped stays
    // without a result.
    if (!cancel.isCancelled()) {
        slot.result = slot.region->code->build(slot.dir->path(), slot.failed, cancel);
    }
}

RegionBuildPool::RegionBuildPool(int jobs, CancelToken cancel)
    : m_jobs(std::max(1, jobs)), m_cancel(std::move(cancel))
{
}

RegionBuildPool::~RegionBuildPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_queue.clear();
    }
    m_wake.notify_all();
    for (auto& t : m_threads) {
        t.join();
    }
}

void RegionBuildPool::submit(std::shared_ptr<BuildSlot> slot)
{
    std::lock_guard lock(m_mutex);
    m_queue.push_back(std::move(slot));
    ++m_submitted;
    if (int(m_threads.size()) < std::min(m_jobs, m_submitted)) {
        try {
            m_threads.emplace_back([this] { work(); });
        } catch (const std::system_error&) {
            // No thread to be had: the threads there are build it, or waitAll does.
        }
    }
    m_wake.notify_one();
}



void RegionBuildPool::work()
{
    for (;;) {
        std::shared_ptr<BuildSlot> slot;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
            if (m_queue.empty()) {
                return;
            }
            slot = std::move(m_queue.front());
            m_queue.pop_front();
        }
        runBuild(*slot, m_cancel);
        {
            std::lock_guard lock(m_mutex);
            ++m_finished;
        }
        m_done.notify_all();
    }
}

bool RegionBuildPool::waitAll(const std::function<void(int done, int total)>& progress)
{
    std::unique_lock lock(m_mutex);
    int reported = -1;
    while (m_finished < m_submitted) {
        if (m_cancel.isCancelled()) {
            // Queued builds never start; running ones see the token and kill their compiler.
            m_finished += int(m_queue.size());
            m_queue.clear();
            m_done.wait(lock, [this] { return m_finished >= m_submitted; });
            return false;
        }
        if (reported != m_finished && progress) {
            reported = m_finished;
            const int done = m_finished;
            const int total = m_submitted;
            lock.unlock();
            progress(done, total);
            lock.lock();
            continue;
        }
        if (m_threads.empty() && !m_queue.empty()) {
            // No worker could be started: build here, one at a time.
            auto slot = std::move(m_queue.front());
            m_queue.pop_front();
            lock.unlock();
            runBuild(*slot, m_cancel);
            lock.lock();
            ++m_finished;
            continue;
        }
        // The token has no signal of its own: look at it every 50 ms.
        m_done.wait_for(lock, std::chrono::milliseconds(50));
    }
    if (progress && reported != m_finished) {
        const int done = m_finished;
        lock.unlock();
        progress(done, done);
    }
    return !m_cancel.isCancelled();
}

int RegionBuildPool::submitted() const
{
    std::lock_guard lock(m_mutex);
    return m_submitted;
}

int RegionBuildPool::threads() const
{
    std::lock_guard lock(m_mutex);
    return std::min(m_jobs, std::max(1, m_submitted));
}

} // namespace fxs::compile::detail
