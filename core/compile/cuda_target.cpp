#include "core/compile/cuda_target.h"

#include "core/compile/cuda_stream.h"
#include "core/cuda/device.h"
#include "core/cuda/module.h"
#include "core/util/elapsed.h"

#include <algorithm>
#include <vector>

namespace fxs::compile::detail {

Result<CudaTarget> cudaTarget(int device, int arch, const codegen::CudaTuning& tuning)
{
    CudaTarget t;
    t.device = device;
    t.tuning = tuning;
    auto nvrtc = cuda::Nvrtc::get();
    if (!nvrtc) {
        return nvrtc.error();
    }
    t.nvrtc = *nvrtc;
    t.arch = arch;
    if (device >= 0) {
        auto info = cuda::device(device);
        if (!info) {
            return info.error();
        }
        t.arch = arch ? arch : info->sm();
    }
    if (t.arch == 0) {
        t.arch = 90; // building without a GPU and without --arch: Hopper
    }
    return t;
}

void addCudaKeyComponents(cache::KeyBuilder& key, const CudaTarget& target,
                          const codegen::CudaSchedule& kernels)
{
    std::string launch = target.tuning.text();
    for (const auto& o : kernels.nvrtcOptions) {
        launch += " " + o;
    }
    for (const auto& program : kernels.launches) {
        for (const auto& l : program) {
            launch += "\n" + l.text();
        }
    }
    key.add(cache::kLabelDevice, "cuda")
        .add(cache::kLabelCudaArch, "sm_" + std::to_string(target.arch))
        .add(cache::kLabelNvrtc, target.nvrtc->version())
        .add(cache::kLabelLaunch, launch);
}

Result<Timing> timeOnStream(int device, int repeats, const std::function<Status()>& run)
{
    auto timer = cuda::EventTimer::create(device);
    if (!timer) {
        return timer.error();
    }
    void* stream = currentCudaStream(device);
    // Milliseconds between one event pair around `count` runs.
    auto timed = [&](int count) -> Result<double> {
        if (Status s = (*timer)->start(stream); !s) {
            return s.error();
        }
        for (int i = 0; i < count; ++i) {
            if (Status s = run(); !s) {
                return s.error();
            }
        }
        if (Status s = (*timer)->stop(stream); !s) {
            return s.error();
        }
        return (*timer)->elapsedMs();
    };
    const int runs = std::max(1, repeats);
    std::vector<double> ms;
    for (int i = -1; i < runs; ++i) { // i == -1: warm-up
        auto t = timed(1);
        if (!t) {
            return t.error();
        }
        if (i >= 0) {
            ms.push_back(*t);
        }
    }
    auto all = timed(runs);
    if (!all) {
        return all.error();
    }
    Timing t;
    t.backToBackMs = *all / runs;
    t.samplesMs = ms;
    t.medianMs = medianOf(ms);
    const auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
    t.spreadMs = *hi - *lo;
    return t;
}

} // namespace fxs::compile::detail
