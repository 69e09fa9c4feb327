// Compiles every region of a graph: one eager run of the whole graph keeps each region's inputs,
// then the region compiler handles the regions one by one (cache lookup or build, verification,
// timing) and the outcomes are totalled. The orchestration shared by `fxscope-cli compile` and
// the app's Build › Compile Regions. Not for one region (region_compiler.h) nor for run-time
// profiles (core/profile).
#pragma once

#include "core/compile/region_compiler.h"
#include "core/exec/interpreter.h"
#include "core/graph/graph.h"
#include "core/partition/region.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <vector>

namespace fxs::compile {

enum class DeviceChoice : std::uint8_t { Cpu, Cuda, Auto };
// Auto: CUDA when the graph was recorded on CUDA (a node's meta says cuda) and CUDA can run
// here (cudaRunnable); else the CPU.
TargetDevice resolveDevice(const graph::Graph& graph, DeviceChoice choice);

struct GraphCompileOptions {
    // compiler, target device, cache store (null: no cache), timed runs per region, build-only.
    // The eager run uses the target device (CUDA: exec::DevicePref::Cuda).
    CompileOptions compile;
    // Inputs of the eager run (seed, sizes, device, inputs file). `keep` and `perNodeTiming`
    // are set by compileGraphRegions.
    exec::RunOptions run;
    // runCompiledGraph on CUDA: time both graphs as CUDA graph replays (one run of each
    // captured, then replayed) instead of runs issued without per-node syncs. Error::Invalid
    // on the CPU.
    bool cudaGraph = false;
};

struct GraphCompileReport {
    std::vector<RegionOutcome> regions; // in the order of the regions given (done ones only)
    double totalEagerMs = 0;            // sums over `regions`
    double totalCompiledMs = 0;
    bool cancelled = false; // the token fired: `regions` holds the regions finished before
};

// Runs the whole graph once on the eager engine (keeping every region input), then compiles
// and runs each region (build-only: no eager run; each region is generated, built and cached). Progress: the eager run, then one step per region ("r0 (1/3)").
// Cancellation is checked before the eager run and between regions (a region being compiled
// finishes). Errors: the engine cannot run the graph (unsupported ops are named) or the eager
// run failed. Region failures are not errors: those regions fall back (state Fallback).
// Synchronous; call from a worker thread in the app. Never throws.
Result<GraphCompileReport> compileGraphRegions(const graph::Graph& graph,
                                               const std::vector<partition::Region>& regions,
                                               const GraphCompileOptions& options,
                                               const CancelToken& cancel = CancelToken::none(),
                                               const ProgressSink& progress = {});

// What compileGraphRegions does after its eager run: each region compiled and run on `kept`,
// the values an eager run of the graph kept (every region input by node name, as
// partition::regionInputNames lists them). Cancellation between regions. Never throws.
GraphCompileReport compileRegionsOn(const graph::Graph& graph,
                                    const std::vector<partition::Region>& regions,
                                    const exec::ValueStore& kept, const CompileOptions& options,
                                    const CancelToken& cancel = CancelToken::none(),
                                    const ProgressSink& progress = {});

} // namespace fxs::compile
