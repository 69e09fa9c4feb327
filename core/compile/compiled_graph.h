// Runs a whole graph with its compiled regions in place: the regions are compiled as `compile`
// does (cache, verification against eager, timing; compileGraphRegions' pipeline), then the
// graph runs on the eager engine with each region that compiled replaced by its schedule —
// generated kernels and extern LibTorch calls — and the same inputs run once more eagerly, so
// the compiled graph's time and outputs can be compared with eager. Shared by `fxscope-cli run
// --compiled`; its pieces (compiledSubstitutes, timeTotalsOnDevice) by the run-time profile.
// Not for per-region timing in isolation (graph_compile.h).
#pragma once

#include "core/compile/graph_compile.h"
#include "core/compile/matmul_groups.h"
#include "core/exec/interpreter.h"

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace fxs::compile {

// The target of a matrix-product group's step in CompiledGraphReport::compiled.perNode (a
// region's is "fxscope.substitute").
inline constexpr const char* kMatmulGroupTarget = "fxscope.mm_group";
// A convolution with its epilogue (conv_fusion.h).
inline constexpr const char* kConvEpilogueTarget = "fxscope.conv_epilogue";

// A group of matrix products the compiled run made as one (matmul_groups.h).
struct MatmulGroupReport {
    std::string id;                 // its step's name in compiled.perNode ("mm0")
    std::vector<std::string> nodes; // the mm nodes
    int shared = 0;                 // 0: the left operand (column blocks), 1: the right (rows),
                                    // 2: none, the products summed, 3: none, one batched
                                    // call (MatmulGroup::shared)
    long fusedRuns = 0;             // runs of the compiled run that made one product (or call)
    long separateRuns = 0;          // runs whose shared operand was not one tensor
    long keptRuns = 0; // fused runs that reused the operands laid side by side in an earlier one
    int keptSides = 0; // the operand sides it keeps (their cats are not launched when reused)
};

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
    // Per output: why it is not compared ("" when it is): a value PyTorch leaves undefined
    // (undefinedOutput); its outputMaxAbsErr is nullopt.
    std::vector<std::string> outputNotCompared;
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
    // CUDA with GraphCompileOptions::kernelTime: each graph's GPU work per run, from LibTorch's
    // profiler (DeviceTotals); nullopt otherwise.
    std::optional<double> kernelMs;
    std::optional<double> eagerKernelMs;
    double kernelEvents = 0;
    double eagerKernelEvents = 0;
    std::vector<std::tuple<std::string, double, double>> topKernels; // DeviceTotals's
    // The matrix products run as one per group (GraphCompileOptions::fuseMatmuls), and why
    // none were when grouping was asked for but could not be used ("" otherwise).
    std::vector<MatmulGroupReport> matmulGroups;
    std::string matmulNote;
    // Matrix products one compiled run made by calling cuBLAS directly
    // (GraphCompileOptions::directMatmuls): mm nodes and the groups' products; 0 on the CPU.
    long directMatmuls = 0;
    // Of the addmm nodes, those one compiled run made as one cuBLASLt call with the bias in its
    // epilogue, called directly (exec direct_calls.h); 0 on the CPU or without directMatmuls.
    long directAddmms = 0;
    // Convolutions run with their epilogue as one step (GraphCompileOptions::fuseConvolutions):
    // the steps, and how many of one compiled run's steps cuDNN made as one graph (the others
    // ran LibTorch's operators).
    int convEpilogues = 0;
    long cudnnConvs = 0;
};

// Why the value of node `id` is undefined by PyTorch, or nullopt when it is defined: the philox
// seed and offset (or RNG state) that CUDA's fused attention returns for its backward are not
// written when dropout_p is 0 (_scaled_dot_product_efficient_attention outputs 2 and 3,
// _scaled_dot_product_flash_attention and _scaled_dot_product_cudnn_attention outputs 6 and 7),
// so two runs of the same graph differ there by whatever the memory held.
std::optional<std::string> undefinedOutput(const graph::Graph& graph, graph::NodeId id);

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

// Pieces of runCompiledGraph for a caller that compiled the regions itself (compileRegionsOn
// with CompileOptions::keepLoaded; the run-time profile, core/profile) and runs the graph with
// them in place. The engine's substitutes that run each region of `regions` that compiled
// (RegionOutcome::loaded) instead of its nodes; a region that fell back is left out (its nodes
// run eagerly). Put them in RunOptions::substitutes.
std::vector<exec::Substitute> compiledSubstitutes(const std::vector<RegionOutcome>& regions);

// The matrix-product groups runCompiledGraph makes (GraphCompileOptions::fuseMatmuls, weights
// kept), for such a caller: the groups outside `regions`, their substitutes (put them in
// RunOptions::substitutes after the regions'), and the values of one run of the graph on the
// eager run's inputs (`eagerKept`, which holds the graph's placeholders) with the groups in
// place, keeping the region inputs: what the regions compile on (a region reading a column
// block is built for its strides). The groups' products call cuBLAS directly when
// `ro.directMatmuls` (the caller's compiled runs on CUDA). Empty when no group forms (or the
// graph writes in place); empty with a note when that run failed. Errors: cancelled. Never
// throws.
struct MatmulFusionRun {
    std::vector<MatmulGroup> groups;
    std::vector<exec::Substitute> substitutes;
    exec::ValueStore values;
    std::string note;
};
Result<MatmulFusionRun> fuseMatmulsFor(const graph::Graph& graph,
                                       const std::vector<partition::Region>& regions,
                                       const exec::RunOptions& ro,
                                       const exec::ValueStore& eagerKept,
                                       const CancelToken& cancel = CancelToken::none());

struct DeviceTotals {
    double eagerWallMs = 0;    // host: the first step issued to the end of the GPU's work
    double compiledWallMs = 0;
    double eagerDeviceMs = 0;  // between CUDA events around the steps
    double compiledDeviceMs = 0;
    double eagerHostMs = 0;    // host: issuing the steps (or the replay)
    double compiledHostMs = 0;
    // With kernel times asked: the GPU work's durations summed per run by LibTorch's profiler
    // (Kineto), and how many device events (kernels, copies, memsets) a run has.
    std::optional<double> eagerKernelMs;
    std::optional<double> compiledKernelMs;
    double eagerKernelEvents = 0;
    double compiledKernelEvents = 0;
    // The compiled graph's kernels by name, the longest first (at most 15): name, ms, count
    // per run.
    std::vector<std::tuple<std::string, double, double>> compiledTopKernels;
};

// The graph's inputs as a run kept them (its placeholders found in `kept`, by name): what
// timeTotalsOnDevice runs on, so that no input is made while the graphs are timed.
std::shared_ptr<const exec::ValueStore> graphInputsOf(const graph::Graph& graph,
                                                      const exec::ValueStore& kept);

// CUDA: the eager graph and the graph with `regions` (and the substitutes `fused`, the
// matrix-product groups of fuseMatmulsFor) in place, both run on `inputs` (the
// graph's placeholders by name, on the GPU) max(5, ro.repeat) times without per-node
// synchronisation (cudaGraph: as CUDA graph replays); medians (CompiledGraphReport's deviceMs).
// ro: the runs' options (seed, sizes); its keep, inputs file and forward graph are not used;
// its directMatmuls applies to the compiled graph's runs only (the eager graph's use mm).
// kernels: then as many runs of each again under LibTorch's profiler, for their kernel times.
// Errors: cancelled, a LibTorch without CUDA, a step that cannot be captured, kernels asked of
// a LibTorch without Kineto. Never throws.
Result<DeviceTotals> timeTotalsOnDevice(const graph::Graph& graph, exec::RunOptions ro,
                                        std::shared_ptr<const exec::ValueStore> inputs,
                                        const std::vector<RegionOutcome>& regions,
                                        const std::vector<exec::Substitute>& fused,
                                        bool cudaGraph, bool kernels,
                                        const CancelToken& cancel = CancelToken::none());

} // namespace fxs::compile
