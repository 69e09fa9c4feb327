// INTERNAL to core/compile (LibTorch): what is known about one region while it is compiled —
// its canonical signature, input tensors and their device, schedule and runner, generated code
// for its target, cache key, pass times — and the helpers that record a failure with its
// numbered reason. Shared by the region compiler's files (region_compiler_impl.h) and
// artifact_provider.cpp (cache and builds).
#pragma once

#include "core/cache/cache_key.h"
#include "core/cache/reason.h"
#include "core/cache/region_canon.h"
#include "core/compile/compile_types.h"
#include "core/compile/region_schedule.h"
#include "core/compile/schedule_runner.h"
#include "core/compile/target_code.h"

#include <ATen/ATen.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fxs::compile::detail {

struct PreparedRegion {
    const graph::Graph* graph = nullptr;
    cache::RegionSignature sig;
    std::vector<at::Tensor> inputs;
    c10::Device device = c10::Device(c10::kCPU); // the inputs' device
    int cudaDevice = -1; // ordinal of the inputs' GPU, or the GPU a build-only run targets
    std::string unsupportedInput; // why the kernels cannot run here (eager still runs)
    std::map<graph::NodeId, KernelInput> inputSpecs; // region inputs as kernels see them
    // Strides of the region's outputs in the eager run (what their kernels store them with
    // when eager lays them out channels_last; region_schedule.h's LayoutOf).
    std::map<graph::NodeId, std::vector<std::int64_t>> eagerStrides;
    RegionSchedule schedule;
    std::unique_ptr<ScheduleRunner> runner;
    exec::ValueStore probed; // values extern steps make, from one eager run (when needed)
    bool probeRan = false;
    std::unique_ptr<TargetCode> code; // generated source and how to build and load it
    cache::KeyBuilder key;
    graph::GraphPtr regionGraph;
    std::string options;
    std::shared_ptr<GeneratedCode> loadedCode; // the artifact, once verified
};

// Records a failure's reason on the outcome and passes the error on (an Error from a pass
// means: the region falls back, for this reason).
inline Error failWith(RegionOutcome& out, cache::Reason reason, Error error)
{
    out.reason = reason;
    return error;
}

// Times passes one after the other: each mark() closes the pass running since the previous
// mark (or construction) under the given name.
class PassClock {
public:
    explicit PassClock(std::vector<PassTime>& into) : m_into(into), m_t0(Clock::now()) {}
    void mark(std::string name)
    {
        const auto now = Clock::now();
        m_into.push_back({std::move(name), std::chrono::duration<double, std::milli>(now - m_t0)
                                               .count()});
        m_t0 = now;
    }
    // A pass timed elsewhere (a build on the pool), recorded as it is.
    void add(std::string name, double ms) { m_into.push_back({std::move(name), ms}); }
    // The next pass starts now (the time since the last mark went to other regions).
    void restart() { m_t0 = Clock::now(); }

private:
    using Clock = std::chrono::steady_clock;
    std::vector<PassTime>& m_into;
    Clock::time_point m_t0;
};

} // namespace fxs::compile::detail

namespace fxs::compile {

// A verified region kept for running again (RegionOutcome::loaded): the prepared region (its
// schedule and runner; the tensors it was compiled on released) and the layout each input had.
struct LoadedRegion {
    std::shared_ptr<detail::PreparedRegion> prepared;
    std::vector<std::vector<std::int64_t>> inputSizes;   // per region input, canonical order
    std::vector<std::vector<std::int64_t>> inputStrides;
};

} // namespace fxs::compile
