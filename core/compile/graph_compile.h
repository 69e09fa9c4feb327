// Compiles every region of a graph: one eager run of the whole graph keeps each region's inputs,
// then the region compiler handles the regions (cache lookup, the builds in parallel, then
// verification and timing one by one) and the outcomes are totalled. The orchestration shared
// by `fxscope-cli compile`, `run --compiled` and the app's Build › Compile Regions. Not for one
// region (region_compiler.h) nor for run-time profiles (core/profile).
#pragma once

#include "core/compile/region_compiler.h"
#include "core/exec/interpreter.h"
#include "core/graph/graph.h"
#include "core/partition/region.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <optional>
#include <string_view>
#include <vector>

namespace fxs::compile {

enum class DeviceChoice : std::uint8_t { Cpu, Cuda, Auto };
// Auto: CUDA when the graph was recorded on CUDA (a node's meta says cuda) and CUDA can run
// here (cudaRunnable); else the CPU.
TargetDevice resolveDevice(const graph::Graph& graph, DeviceChoice choice);

// `--conv-layout`: "auto" (channels_last where the regions are compiled for CUDA, as Inductor's
// layout optimisation does; recorded on the CPU), "recorded" or "channels-last"
// (exec::ConvLayout). nullopt: none of these.
std::optional<exec::ConvLayout> resolveConvLayout(std::string_view choice, TargetDevice device);

// GraphCompileOptions::fuseConvolutions.
enum class ConvFusion : std::uint8_t {
    Off,
    Auto,   // on CUDA, where cuDNN's backend API is in the process
    Always, // on any device: LibTorch's operators where cuDNN cannot make the step
};

struct GraphCompileOptions {
    // compiler, target device, cache store (null: no cache), timed runs per region, build-only,
    // builds at once (jobs).
    // The eager run uses the target device (CUDA: exec::DevicePref::Cuda).
    CompileOptions compile;
    // Inputs of the eager run (seed, sizes, device, inputs file). `keep` and `perNodeTiming`
    // are set by compileGraphRegions.
    exec::RunOptions run;
    // runCompiledGraph on CUDA: time both graphs as CUDA graph replays (one run of each
    // captured, then replayed) instead of runs issued without per-node syncs. Error::Invalid
    // on the CPU.
    bool cudaGraph = false;
    // runCompiledGraph on CUDA: also sum each graph's GPU work per run with LibTorch's profiler
    // (Kineto; CompiledGraphReport::kernelMs). Error::Unsupported without Kineto.
    bool kernelTime = false;
    // runCompiledGraph: mm nodes outside the regions that share an operand run as one product
    // per group (matmul_groups.h); the eager run stays as recorded.
    bool fuseMatmuls = true;
    // With fuseMatmuls: a group's operands that are the graph's inputs (weights) are laid side
    // by side once and kept while unchanged (matmul_fusion.h); off, they are joined every run
    // (no kept copy of the grouped weights).
    bool keepMatmulOperands = true;
    // runCompiledGraph on CUDA: the compiled runs' float32 matrix products (mm nodes and the
    // groups' products) call cuBLAS directly (exec::RunOptions::directMatmuls); the eager run
    // keeps LibTorch's mm. Off: LibTorch's mm everywhere (`run --no-direct-matmuls`).
    bool directMatmuls = true;
    // runCompiledGraph on CUDA, with fuseMatmuls and directMatmuls: float32 products of one
    // shape that only the graph's outputs read (a training step's weight gradients) run as
    // one batched cuBLAS call (matmul_groups.h, MatmulGroup::shared == 3). Off: `run
    // --no-batched-matmuls`.
    bool batchMatmuls = true;
    // runCompiledGraph: a convolution and the batch norm, residual add and relu after it,
    // outside the regions, run as one step (conv_fusion.h: one cuDNN graph on CUDA). Off:
    // `run --no-conv-fusion`.
    ConvFusion fuseConvolutions = ConvFusion::Auto;
};

// The nodes an automatic proposal leaves out so that the compiled run's own steps can form:
// the adds and views that sum matrix products (with `options.fuseMatmuls`; matmul_groups.h)
// and the nodes after a convolution that its step takes (where options.fuseConvolutions
// applies on options.compile.device; conv_fusion.h). `run --compiled --auto` and the app's
// Auto-propose both leave them out, so both propose the same regions for a graph.
std::vector<std::string> autoProposalLeftOut(const graph::Graph& graph,
                                             const GraphCompileOptions& options);

struct GraphCompileReport {
    std::vector<RegionOutcome> regions; // in the order of the regions given (done ones only)
    double totalEagerMs = 0;            // sums over `regions`
    double totalCompiledMs = 0;
    bool cancelled = false; // the token fired: `regions` holds the regions finished before
};

// Runs the whole graph once on the eager engine (keeping every region input), then compiles
// and runs the regions (build-only: no eager run; each region is generated, built and cached)
// in RegionCompiler::compileAll's phases: each region prepared and looked up, the keys that
// missed built on CompileOptions::jobs threads (one build per distinct key), then each region
// loaded, verified and timed in order. Progress: the eager run, "preparing r0 (1/3)",
// "building 1/2 (2 jobs)", then "r0 (1/3)" per region. Cancellation is checked before the
// eager run, between regions and during the builds (queued ones dropped, running compilers
// killed); `regions` then holds the regions finished before, and nothing of the others is
// stored. Errors: the engine cannot run the graph (unsupported ops are named) or the eager
// run failed. Region failures are not errors: those regions fall back (state Fallback).
// Synchronous; call from a worker thread in the app. Never throws.
Result<GraphCompileReport> compileGraphRegions(const graph::Graph& graph,
                                               const std::vector<partition::Region>& regions,
                                               const GraphCompileOptions& options,
                                               const CancelToken& cancel = CancelToken::none(),
                                               const ProgressSink& progress = {});

// What compileGraphRegions does after its eager run: the regions compiled and run on `kept`,
// the values an eager run of the graph kept (every region input by node name, as
// partition::regionInputNames lists them). Cancellation as there. Never throws.
GraphCompileReport compileRegionsOn(const graph::Graph& graph,
                                    const std::vector<partition::Region>& regions,
                                    const exec::ValueStore& kept, const CompileOptions& options,
                                    const CancelToken& cancel = CancelToken::none(),
                                    const ProgressSink& progress = {});

} // namespace fxs::compile
