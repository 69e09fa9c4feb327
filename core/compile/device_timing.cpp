#include "core/compile/device_timing.h"

#include "core/compile/cuda_stream.h"
#include "core/cuda/module.h"
#include "core/util/elapsed.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#if defined(FXSCOPE_TORCH_CUDA)
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace fxs::compile::detail {
namespace {

using Clock = std::chrono::steady_clock;

// Warm-up before the timed runs: runs until this much time has passed (at least one run, at
// most kWarmUpRuns), as benchmark harnesses warm up: the figures describe a program running its
// steps over and over, as a training loop does, not its first few. (It did not remove a
// difference seen on an H200's host, README "Whole models": a GPT-12 backward's host time read
// 4.2-4.4 ms as the median of 5 timed runs and 3.0-3.1 of 20 or 50, with this warm-up or not.)
constexpr double kWarmUpMs = 250.0;
constexpr int kWarmUpRuns = 200;

// `repeats` timed runs after the warm-up (whose times are dropped): the medians of each figure.
Result<StreamTimes> mediansOf(int repeats, const std::function<Result<StreamTimes>()>& once)
{
    const auto began = Clock::now();
    for (int i = 0; i == 0 || (i < kWarmUpRuns && msSince(began) < kWarmUpMs); ++i) {
        if (auto t = once(); !t) {
            return t.error();
        }
    }
    std::vector<double> wall, gpu, host;
    for (int i = 0; i < std::max(1, repeats); ++i) {
        auto t = once();
        if (!t) {
            return t.error();
        }
        wall.push_back(t->wallMs);
        gpu.push_back(t->deviceMs);
        host.push_back(t->hostMs);
    }
    return StreamTimes{medianOf(wall), medianOf(gpu), medianOf(host)};
}

// Measure::Kernels: `once` untimed, then `repeats` times under the profiler.
Result<StreamTimes> kernelsOf(int device, int repeats, const std::function<Status()>& once)
{
    if (Status warm = once(); !warm) {
        return warm.error();
    }
    auto k = profileKernels(device, repeats, once);
    if (!k) {
        return k.error();
    }
    StreamTimes t;
    t.kernels = *k;
    return t;
}

} // namespace

Result<StreamTimes> timeWithoutSyncs(const graph::Graph& graph, exec::RunOptions ro, int device,
                                     int repeats, Measure measure, const CancelToken& cancel)
{
    ro.perNodeTiming = false;
    ro.summarizeOutputs = false; // the report is dropped; the profiler must not see its copies
    ro.repeat = 1;
    if (measure == Measure::Kernels) { // no events, no synchronisation: the profiler times
        return kernelsOf(device, repeats, [&]() -> Status {
            auto run = exec::Interpreter::run(graph, ro, cancel);
            return run ? Status() : Status(run.error());
        });
    }
    auto timer = cuda::EventTimer::create(device);
    if (!timer) {
        return timer.error();
    }
    void* stream = currentCudaStream(device);
    Clock::time_point begun;
    double wall = 0, host = 0;
    Status hook;
    ro.onSteps = [&](bool first) {
        if (first) {
            begun = Clock::now();
            hook = (*timer)->start(stream);
            return;
        }
        host = msSince(begun);
        if (hook) {
            hook = (*timer)->stop(stream);
        }
        if (hook) {
            hook = cuda::synchronize(device, stream);
        }
        wall = msSince(begun);
    };
    return mediansOf(repeats, [&]() -> Result<StreamTimes> {
        auto run = exec::Interpreter::run(graph, ro, cancel);
        if (!run) {
            return run.error();
        }
        if (!hook) {
            return hook.error();
        }
        auto ms = (*timer)->elapsedMs();
        if (!ms) {
            return ms.error();
        }
        return StreamTimes{wall, *ms, host, std::nullopt};
    });
}

#if defined(FXSCOPE_TORCH_CUDA)

namespace {

// Runs the graph once on the current stream; `capture` brackets its steps (not the making of
// its inputs, nor the summaries of its outputs, which read them on the host).
Result<exec::RunReport> runOnce(const graph::Graph& graph, exec::RunOptions ro,
                                const CancelToken& cancel, at::cuda::CUDAGraph* capture)
{
    ro.perNodeTiming = false;
    ro.repeat = 1;
    bool capturing = false;
    if (capture) {
        ro.onSteps = [&](bool first) {
            if (first) {
                capture->capture_begin();
                capturing = true;
            } else {
                capturing = false;
                capture->capture_end();
            }
        };
    }
    auto run = exec::Interpreter::run(graph, ro, cancel);
    if (capturing) { // a step failed: end the capture, which has failed too
        try {
            capture->capture_end();
        } catch (const std::exception&) {
        }
    }
    if (run && !run->ok) {
        return makeError(ErrorCode::Unsupported, "the graph did not run on the engine");
    }
    return run;
}

// Before a replay: the captured run reused the kept channels_last copies of the convolution
// weights instead of converting them, and the matrix-product groups' weights kept side by side
// instead of joining them (the capture holds no such copy), so a weight changed in place since
// is converted or joined again into its copy's memory here, outside the graph.
Status refreshWeights(const exec::RunOptions& ro)
{
    if (ro.convWeights) {
        if (auto r = ro.convWeights->refreshChanged(); !r) {
            return r.error();
        }
    }
    for (const auto& sub : ro.substitutes) {
        if (sub.beforeReplay) {
            if (Status s = sub.beforeReplay(); !s) {
                return s;
            }
        }
    }
    return {};
}

Result<StreamTimes> replay(at::cuda::CUDAGraph& captured, const exec::RunOptions& ro,
                           int device, int repeats)
{
    auto timer = cuda::EventTimer::create(device);
    if (!timer) {
        return timer.error();
    }
    void* stream = currentCudaStream(device);
    return mediansOf(repeats, [&]() -> Result<StreamTimes> {
        if (Status w = refreshWeights(ro); !w) {
            return w.error();
        }
        const auto begun = Clock::now();
        Status st = (*timer)->start(stream);
        captured.replay();
        const double host = msSince(begun);
        if (st) {
            st = (*timer)->stop(stream);
        }
        if (st) {
            st = cuda::synchronize(device, stream);
        }
        const double wall = msSince(begun);
        auto ms = st ? (*timer)->elapsedMs() : Result<double>(st.error());
        if (!ms) {
            return ms.error();
        }
        return StreamTimes{wall, *ms, host, std::nullopt};
    });
}

} // namespace

Result<StreamTimes> timeReplays(const graph::Graph& graph, exec::RunOptions ro, int device,
                                int repeats, Measure measure, const CancelToken& cancel)
{
    // A capture needs a stream other than the default one; the warm-up run on it first makes
    // what a first run makes (cuBLAS workspaces, the allocator's blocks) outside the capture.
    c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device);
    side.synchronize();
    c10::cuda::CUDAStreamGuard onSide(side);
    ro.shareConvWeights(); // the warm-up converts the weights, the capture reuses them
    at::cuda::CUDAGraph captured;
    try {
        auto warm = runOnce(graph, ro, cancel, nullptr);
        if (!warm) {
            return warm.error();
        }
        side.synchronize();
        // The captured run's outputs live in the graph's memory pool; its report holds them
        // while the graph replays into them.
        auto run = runOnce(graph, ro, cancel, &captured);
        if (!run) {
            return run.error();
        }
        if (measure == Measure::Times) {
            return replay(captured, ro, device, repeats);
        }
        return kernelsOf(device, repeats, [&]() -> Status {
            if (Status w = refreshWeights(ro); !w) {
                return w;
            }
            captured.replay();
            return {};
        });
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Runtime,
                         std::string("capturing the graph as a CUDA graph: ") + e.what());
    }
}

#else

Result<StreamTimes> timeReplays(const graph::Graph&, exec::RunOptions, int, int, Measure,
                                const CancelToken&)
{
    return makeError(ErrorCode::Unsupported,
                     "CUDA graphs need a LibTorch with CUDA (a PyTorch wheel); this one has none");
}

#endif

} // namespace fxs::compile::detail
