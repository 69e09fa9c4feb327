// Indexes a profiler trace for the kernel join: kernels by correlation to their launches, and
// each launch's CPU context on its thread (the CompiledFxGraph call around it, its outermost
// cpu_op inside that call, the outermost annotation or cpu_op otherwise), found by one sweep
// over each thread's intervals. Not the attribution itself (attribution.h).
#pragma once

#include "core/runtime/profile_trace.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fxs::runtime {

// One `## Call CompiledFxGraph <key> ##` annotation and the launches under it, in time order.
struct GraphCall {
    std::size_t annotation = 0;        // event index
    std::vector<std::size_t> launches; // event indices
};

class LaunchIndex {
public:
    explicit LaunchIndex(const ProfileTrace& trace);
    // Event indices of the trace's kernels; "kernel k" below indexes this list.
    const std::vector<std::size_t>& kernelEvents() const { return m_kernels; }
    std::optional<std::size_t> launchOfKernel(std::size_t k) const;
    // Kernels (indices into kernelEvents) that a launch started.
    std::vector<std::size_t> kernelsOf(std::size_t launch) const;
    // The outermost cpu_op inside the launch's graph call (an event index), or -1.
    std::int64_t groupOf(std::size_t launch) const;
    // Outside graph calls: the outermost user annotation around the launch, else its outermost
    // cpu_op; "" when none.
    std::string outsideLabel(std::size_t launch) const;
    const std::vector<GraphCall>& calls() const { return m_calls; }
    // CPU start times of the steps: ProfilerStep#N annotations, else the calls of the most
    // called compiled graph (from says which).
    std::vector<double> stepStarts(std::string& from) const;

private:
    struct Context {
        std::int64_t call = -1;    // index into m_calls
        std::int64_t group = -1;   // event index
        std::int64_t outside = -1; // event index
    };
    bool sameCallOpen(const std::vector<std::size_t>& stack,
                      const std::vector<std::int64_t>& callOf, std::size_t iv) const;
    void sweepThread(const std::vector<std::size_t>& intervals,
                     const std::vector<std::size_t>& launches);

    const ProfileTrace& m_trace;
    std::vector<std::size_t> m_kernels;
    std::vector<std::int64_t> m_launchOfKernel; // per kernel: event index or -1
    std::vector<std::pair<std::size_t, std::size_t>> m_kernelsOfLaunch; // (launch, kernel), sorted
    std::unordered_map<std::size_t, Context> m_context; // by launch event index
    std::vector<GraphCall> m_calls;
};

} // namespace fxs::runtime
