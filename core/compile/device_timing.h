// INTERNAL to core/compile (LibTorch): times a whole graph on the GPU as the engine runs it,
// for runCompiledGraph (compiled_graph.h). Two ways: runs issued without per-node
// synchronisation (stream order, one sync at the end), or one run captured as a CUDA graph
// (LibTorch's at::cuda::CUDAGraph, on a stream of LibTorch's pool) and replayed. Not for
// timing one region (cuda_target.h: timeOnStream).
#pragma once

#include "core/compile/kernel_profile.h"
#include "core/exec/interpreter.h"
#include "core/util/result.h"

#include <optional>

namespace fxs::compile::detail {

// What a call measures. Times: wall, GPU events and host, as medians. Kernels: in runs of
// their own (one untimed first), `repeats` runs (or replays) under LibTorch's profiler, the GPU
// work's durations summed per run (kernel_profile.h), the times left 0. Callers take every
// graph's Times before any Kernels: once the profiler (CUPTI) has run in the process, every
// later launch costs the host more.
enum class Measure { Times, Kernels };

struct StreamTimes {
    double wallMs = 0;   // host: the first step issued to the end of the GPU's work
    double deviceMs = 0; // between CUDA events recorded before the first step, after the last
    double hostMs = 0;   // host: issuing the steps (or the replay), without waiting for them
    std::optional<KernelTime> kernels; // Measure::Kernels
};

// The graph run `repeats` times after a warm-up, with no per-node synchronisation; medians.
Result<StreamTimes> timeWithoutSyncs(const graph::Graph& graph, exec::RunOptions ro, int device,
                                     int repeats, Measure measure, const CancelToken& cancel);

// One run of the graph's steps captured as a CUDA graph (after an uncaptured warm-up on the
// capturing stream) and replayed `repeats` times after a warm-up replay; medians. The inputs
// (ro.inputs) must stay alive and unchanged while it runs. Errors: a LibTorch without CUDA
// (Unsupported), a step that cannot be captured (a host read, a copy from pageable memory:
// Runtime, with PyTorch's message).
Result<StreamTimes> timeReplays(const graph::Graph& graph, exec::RunOptions ro, int device,
                                int repeats, Measure measure, const CancelToken& cancel);

} // namespace fxs::compile::detail
