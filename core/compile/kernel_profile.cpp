#include "core/compile/kernel_profile.h"

#include <algorithm>
#include <exception>
#include <string>

#if defined(FXSCOPE_TORCH_CUDA) && __has_include(<torch/csrc/autograd/profiler_kineto.h>)
#define FXSCOPE_KINETO 1
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <map>
#include <set>
#endif

namespace fxs::compile::detail {

#if defined(FXSCOPE_KINETO)

namespace {

namespace prof = torch::autograd::profiler;

// durationNs in PyTorch 2.x, durationUs before.
template <class Event>
double eventMs(const Event& e)
{
    if constexpr (requires { e.durationNs(); }) {
        return double(e.durationNs()) / 1e6;
    } else {
        return double(e.durationUs()) / 1e3;
    }
}

} // namespace

Result<KernelTime> profileKernels(int device, int runs, const std::function<Status()>& once)
{
    const std::set<prof::ActivityType> activities{prof::ActivityType::CUDA};
    const prof::ProfilerConfig config(prof::ProfilerState::KINETO);
    Status ran;
    std::unique_ptr<prof::ProfilerResult> result;
    try {
        prof::prepareProfiler(config, activities);
        prof::enableProfiler(config, activities);
        for (int i = 0; i < std::max(1, runs) && ran; ++i) {
            ran = once();
        }
        c10::cuda::device_synchronize();
        result = prof::disableProfiler();
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Runtime, std::string("LibTorch's profiler: ") + e.what());
    }
    if (!ran) {
        return ran.error();
    }
    KernelTime t;
    std::map<std::string, KernelSum> byName;
    for (const auto& e : result->events()) {
        if (e.deviceType() == c10::DeviceType::CUDA) {
            const double ms = eventMs(e);
            t.ms += ms;
            t.count += 1;
            KernelSum& k = byName[e.name()];
            k.ms += ms;
            k.count += 1;
        }
    }
    if (t.count == 0) {
        return makeError(ErrorCode::Runtime,
                         "LibTorch's profiler saw no GPU activity (is CUPTI missing?)",
                         "cuda:" + std::to_string(device));
    }
    const double n = std::max(1, runs);
    t.ms /= n;
    t.count /= n;
    for (auto& [name, k] : byName) {
        k.name = name;
        k.ms /= n;
        k.count /= n;
        t.top.push_back(std::move(k));
    }
    std::sort(t.top.begin(), t.top.end(),
              [](const KernelSum& a, const KernelSum& b) { return a.ms > b.ms; });
    if (t.top.size() > kTopKernels) {
        t.top.resize(kTopKernels);
    }
    return t;
}

#else

Result<KernelTime> profileKernels(int, int, const std::function<Status()>&)
{
    return makeError(ErrorCode::Unsupported,
                     "kernel times need a LibTorch with CUDA and Kineto (a PyTorch wheel); this "
                     "one has neither");
}

#endif

} // namespace fxs::compile::detail
