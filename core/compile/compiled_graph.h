// Runs a whole graph with its compiled regions in place: the regions are compiled as `compile`
// does (cache, verification against eager, timing; compileGraphRegions' pipeline), then the
// graph runs on the eager engine with each region that compiled replaced by its schedule —
// generated kernels and extern LibTorch calls — and the same inputs run once more eagerly, so
// the compiled graph's time and outputs can be compared with eager. Shared by `fxscope-cli run
// --compiled`. Not for per-region timing in isolation (graph_compile.h) nor profiles.
#pragma once

#include "core/compile/graph_compile.h"
#include "core/exec/interpreter.h"

#include <optional>
#include <vector>

namespace fxs::compile {

struct CompiledGraphReport {
    // The graph on the eager engine (the reference; its inputs are the compiled run's).
    exec::RunReport eager;
    // The same inputs with the compiled regions in place: perNode lists a used region as one
    // entry (its id, target "fxscope.substitute").
    exec::RunReport compiled;
    // Every region, as compile reports it (its output tensors released).
    std::vector<RegionOutcome> regions;
    // Per region: its wall time in the compiled run (its step; a region that fell back runs
    // eagerly there and gets its nodes' times summed).
    std::vector<double> regionMs;
    int regionsUsed = 0; // regions that ran compiled
    // Kernels the compiled run launches: the generated kernels of the regions that ran
    // compiled, plus one per LibTorch step that does device work (their extern steps and the
    // nodes outside them; views, getitems, detach and the other view/reshape ops of
    // graph::categorize launch none). A LibTorch op counts once even where it launches more,
    // and the copies made for inputs laid out otherwise than a region was compiled for are
    // not counted.
    int kernels = 0;
    // Per output of the compiled run: the largest difference from the eager run over finite
    // values (infinity where NaN/Inf positions differ); nullopt for a value that is not a tensor.
    std::vector<std::optional<double>> outputMaxAbsErr;
    bool cancelled = false; // the token fired: what ran before is reported
    // CUDA: both graphs run again without per-node synchronisation (stream order, one sync at
    // the end), on the eager run's inputs: the medians of their GPU time between CUDA events
    // around the steps (deviceMs, eagerDeviceMs), and of their wall time from the first step to
    // the end of the GPU's work, which then replaces compiled.totalMs and eager.totalMs.
    // nullopt on the CPU.
    std::optional<double> deviceMs;
    std::optional<double> eagerDeviceMs;
    // CUDA: the host's part of those runs, the median time to issue their steps (or the
    // replay) without waiting for the GPU; nullopt on the CPU.
    std::optional<double> hostMs;
    std::optional<double> eagerHostMs;
    // CUDA: the timed runs were CUDA graph replays (GraphCompileOptions::cudaGraph).
    bool cudaGraph = false;
};

// options.run: the inputs (seed, sizes, file, weights, forward graph), repeat and per-node timing
// of both runs; its device and keep are set here from options.compile.device. options.compile:
// as for compileGraphRegions (buildOnly is not allowed: Error::Invalid). The order: one eager
// run (the reference; it also keeps the region inputs), the regions compiled on its values, the
// compiled run. Errors: as compileGraphRegions, and a compiled run that failed. A graph the
// engine cannot run is not an error: eager.ok is false and eager.unsupported lists why (then
// nothing else ran). Synchronous; never throws.
Result<CompiledGraphReport> runCompiledGraph(const graph::Graph& graph,
                                             const std::vector<partition::Region>& regions,
                                             const GraphCompileOptions& options,
                                             const CancelToken& cancel = CancelToken::none(),
                                             const ProgressSink& progress = {});

} // namespace fxs::compile
