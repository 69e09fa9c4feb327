// INTERNAL to core/compile (LibTorch): the builds of several regions run at once. A BuildSlot is
// one distinct cache key to build (the region whose code it is, the directory the build goes
// to, and afterwards its result); the pool runs each slot's TargetCode::build on one of `jobs`
// worker threads, the only work it does off the calling thread. Not the cache (the calling
// thread looks up and stores: the SQLite store and the remote tier are never touched here), not
// loading, verifying or timing (region_phases.cpp does them after every build finished).
#pragma once

#include "core/cache/cache_paths.h"
#include "core/compile/prepared_region.h"
#include "core/util/cancel.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace fxs::compile::detail {

// One build of one key, shared by the regions of this run with that key.
struct BuildSlot {
    // The region whose generated code is built; kept alive while a worker builds it, which
    // reads only its code (const).
    std::shared_ptr<const PreparedRegion> region;
    std::optional<cache::ScratchDir> dir; // where the build goes (removed with the slot)
    std::optional<Error> dirError;        // the directory could not be made: nothing was built
    // Set by the pool once the build ran (empty: never ran, e.g. dropped on cancel); read by the
    // calling thread after waitAll.
    std::optional<Result<BuiltArtifact>> result;
    BuiltArtifact failed; // a failed build: command, diagnostics, time
};

// Runs the slot's build on this thread (unless `cancel` fired already), setting its result.
void runBuild(BuildSlot& slot, const CancelToken& cancel);

class RegionBuildPool {
public:
    // jobs: threads at most (started as builds arrive). cancel: queued builds are dropped and
    // running host compilers killed when it fires.
    RegionBuildPool(int jobs, CancelToken cancel);
    // Drops the builds still queued and waits for the running ones.
    ~RegionBuildPool();
    RegionBuildPool(const RegionBuildPool&) = delete;
    RegionBuildPool& operator=(const RegionBuildPool&) = delete;

    // Queues a slot with a directory (it starts at once when a thread is free; should no thread
    // start at all, waitAll builds the queue itself).
    void submit(std::shared_ptr<BuildSlot> slot);
    // Waits until every submitted build finished, calling `progress(done, total)` on this thread
    // whenever the count changed. False when the token fired: the queued builds were dropped and
    // the running ones waited for (killed).
    bool waitAll(const std::function<void(int done, int total)>& progress);
    int submitted() const;
    // Threads that build at once: jobs, or fewer when there are fewer builds.
    int threads() const;

private:
    void work();

    const int m_jobs;
    CancelToken m_cancel;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake; // a slot was queued, or the pool stops
    std::condition_variable m_done; // a build finished (or was dropped)
    std::deque<std::shared_ptr<BuildSlot>> m_queue;
    std::vector<std::thread> m_threads;
    int m_submitted = 0;
    int m_finished = 0;
    bool m_stop = false;
};

} // namespace fxs::compile::detail
