// The region compiler: for one region of a graph and the tensors it will run on, lowers and
// prints C++ or CUDA (core/codegen), looks the artifact up in the cache (core/cache), else builds
// it (host compiler: a shared object; NVRTC: a cubin), loads it, verifies it against the eager
// engine the first time (a mismatch marks the entry bad for good) and times both (CPU: wall
// clock; CUDA: events on LibTorch's stream). Whatever fails, the region falls back to LibTorch
// and the caller's run goes on. A build-only mode generates and caches without running (no GPU
// needed for CUDA). Several regions compiled together build their keys in parallel
// (compileAll). Synchronous; never throws.
#pragma once

#include "core/compile/compile_types.h"
#include "core/exec/tensor_handle.h"
#include "core/graph/graph.h"
#include "core/util/cancel.h"

#include <memory>
#include <string>
#include <vector>

namespace fxs::compile {

class RegionCompiler {
public:
    explicit RegionCompiler(CompileOptions options);
    ~RegionCompiler();

    // values: tensors by node name holding every region input (e.g. RunReport::kept). In
    // build-only mode they are not read (the graph's meta describes the inputs).
    RegionOutcome compileAndRun(const graph::Graph& graph, const RegionSpec& region,
                                const exec::ValueStore& values);

    struct Batch {
        std::vector<RegionOutcome> regions; // the regions finished, in the order given
        bool cancelled = false;             // the token fired before every region finished
    };
    // The regions in three phases, with outcomes equal to compileAndRun's one region after the
    // other: (1) in order, each region is prepared (canonicalized, run eagerly once, scheduled,
    // printed, keyed) and looked up in the cache; the first region of each key that missed
    // queues its build; a later region of a key looked up before, or of a key another process
    // is building (never waited for here, while this one holds claims), waits for phase 3;
    // (2) the builds run on CompileOptions::jobs threads (host compiler processes, NVRTC),
    // starting while phase 1 goes on; (3) in order, on this thread, each region is loaded,
    // verified, timed and recorded in the cache — a region that waited is looked up now and
    // hits the entry an earlier region (or the other process) stored, as it would have after
    // it, or takes that region's build (or builds now) when there is none. A miss is explained
    // against the entries stored by then. No timing overlaps a build or another timing; the
    // cache store and the remote tier are used only on this thread. Cancellation: checked
    // between regions in phases 1 and 3; in phase 2 the queued builds are dropped and the
    // running host compilers killed; nothing of an unfinished region is stored (its build
    // directory is removed). Progress: "preparing r0 (1/3)", "building 1/2 (2 jobs)", then
    // "r0 (1/3)" per region.
    Batch compileAll(const graph::Graph& graph, const std::vector<RegionSpec>& regions,
                     const exec::ValueStore& values,
                     const CancelToken& cancel = CancelToken::none(),
                     const ProgressSink& progress = {});

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The LibTorch version the engine runs ("1.13.0"), a cache key component.
std::string libtorchVersion();

// True when this LibTorch has CUDA and the driver sees a GPU: CUDA regions can run here.
bool cudaRunnable();

} // namespace fxs::compile
