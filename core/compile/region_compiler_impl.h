// INTERNAL to core/compile (LibTorch): the region compiler's implementation, shared by its
// files — region_compiler.cpp (preparing a region: canonical form, inputs, schedule, code, key),
// region_runs.cpp (eager runs and the timing of both sides) and region_phases.cpp (the phases:
// prepare and look up each region, build the keys that missed on the pool, then load, verify,
// time and record each region) — and RegionTask, one region on its way through the phases.
// Not for callers: region_compiler.h is the facade.
#pragma once

#include "core/compile/artifact_provider.h"
#include "core/compile/prepared_region.h"
#include "core/compile/region_build_pool.h"
#include "core/compile/region_compiler.h"
#include "core/exec/interpreter.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fxs::compile::detail {

// One region between the phases: its outcome so far and what the next phase needs.
struct RegionTask {
    explicit RegionTask(RegionSpec s) : spec(std::move(s)), clock(out.passes) {}
    RegionTask(const RegionTask&) = delete;
    RegionTask& operator=(const RegionTask&) = delete;

    RegionSpec spec;
    RegionOutcome out;
    PassClock clock; // into out.passes
    std::shared_ptr<PreparedRegion> p = std::make_shared<PreparedRegion>();
    std::vector<at::Tensor> eagerOut; // what the compiled region is verified against
    bool eagerRan = false;
    // The region falls back for this error (after eager is timed, in phase 3, when it ran).
    std::optional<Error> failed;
    bool done = false; // the outcome is final (an exception, a build-only hit)
    std::unique_ptr<ArtifactProvider> provider; // its lookup's claim on building the key
    std::optional<ArtifactProvider::Loaded> hit;
    std::shared_ptr<BuildSlot> build; // its key's build: its own or an earlier region's
    // An earlier region of this run has its key: looked up in phase 3, after that one was
    // recorded, as it would have been region after region.
    bool deferred = false;
};

// The keys of this run so far: those looked up in phase 1, and those being built (their slots).
struct RunKeys {
    std::set<std::string> lookedUp;
    std::map<std::string, std::shared_ptr<BuildSlot>> building;
};

} // namespace fxs::compile::detail

namespace fxs::compile {

struct RegionCompiler::Impl {
    using Loaded = detail::ArtifactProvider::Loaded;
    using PreparedRegion = detail::PreparedRegion;
    using RegionTask = detail::RegionTask;

    CompileOptions options;

    bool cuda() const { return options.device == TargetDevice::Cuda; }

    // Preparing (region_compiler.cpp).
    Status prepareInputs(const graph::Graph& g, const RegionSpec& r,
                         const exec::ValueStore& values, PreparedRegion& p, RegionOutcome& out);
    Status prepareFromMeta(const graph::Graph& g, const RegionSpec& r, PreparedRegion& p,
                           RegionOutcome& out);
    Status prepareKernel(PreparedRegion& p, RegionOutcome& out, detail::PassClock& clock);
    detail::KernelInput specOf(PreparedRegion& p, graph::NodeId id);
    std::vector<std::int64_t> layoutOf(const PreparedRegion& p, graph::NodeId id) const;

    // Eager runs and timing (region_runs.cpp).
    Result<exec::RunReport> runEager(PreparedRegion& p, int repeat,
                                     const std::vector<std::string>& keep);
    Status runEagerOnce(PreparedRegion& p, RegionOutcome& out, std::vector<at::Tensor>& eagerOut);
    Status timeEager(PreparedRegion& p, RegionOutcome& out, std::vector<at::Tensor>& eagerOut);
    Status timeEagerCuda(PreparedRegion& p, RegionOutcome& out,
                         std::vector<at::Tensor>& eagerOut);
    Status timeCompiled(PreparedRegion& p, const detail::GeneratedCode& code, RegionOutcome& out,
                        std::vector<at::Tensor>& compiledOut);
    bool useSavedTimings(RegionOutcome& out, const Loaded& loaded);
    Status timeBoth(PreparedRegion& p, const Loaded& loaded, RegionOutcome& out,
                    std::vector<at::Tensor>& got);
    void saveTimings(const RegionOutcome& out);
    std::vector<at::Tensor> reference64(PreparedRegion& p);

    // The phases (region_phases.cpp).
    Batch compileAll(const graph::Graph& g, const std::vector<RegionSpec>& regions,
                     const exec::ValueStore& values, const CancelToken& cancel,
                     const ProgressSink& progress);
    void begin(RegionTask& t, const graph::Graph& g, const exec::ValueStore& values,
               detail::RunKeys& keys, detail::RegionBuildPool& pool);
    Status prepare(RegionTask& t, const graph::Graph& g, const exec::ValueStore& values);
    Status lookUp(RegionTask& t, bool waitForOthers);
    void finish(RegionTask& t);
    void finishRegion(RegionTask& t);
    Result<Loaded> artifact(RegionTask& t);
    Status verifyAndTime(RegionTask& t, const Loaded& loaded);
    void fallBack(RegionTask& t, const Error& e);
};

} // namespace fxs::compile
