// INTERNAL to core/compile (LibTorch): the GPU's kernel time of some work, from LibTorch's
// profiler (Kineto over CUPTI, CUDA activities only): every device event's duration summed, as
// torch.profiler's kernel tables sum them, so fxscope's runs and PyTorch's (tools/bench) are
// measured the same way. For device_timing.cpp; not a general profiler (core/profile reads
// torch.profiler traces).
#pragma once

#include "core/util/result.h"

#include <functional>
#include <string>
#include <vector>

namespace fxs::compile::detail {

struct KernelSum {
    std::string name; // the kernel's (mangled C++ or NVRTC) name, or the copy's
    double ms = 0;    // per run
    double count = 0; // per run
};

struct KernelTime {
    double ms = 0;   // the device events' durations summed, per run
    double count = 0; // device events (kernels, copies, memsets), per run
    std::vector<KernelSum> top; // by name, the longest first (at most kTopKernels)
};

inline constexpr std::size_t kTopKernels = 15;

// Runs `once` `runs` times (at least 1) with the profiler on, synchronising the device before
// it stops; a failed run stops it too. Unsupported: a LibTorch without CUDA or without Kineto
// (Debian's); Runtime: the profiler cannot start (another is on, no CUPTI) or saw no device
// event.
Result<KernelTime> profileKernels(int device, int runs, const std::function<Status()>& once);

} // namespace fxs::compile::detail
