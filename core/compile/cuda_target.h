// INTERNAL to core/compile (LibTorch): what the region compiler does differently when it
// generates for CUDA: the device and architecture it builds for, the key components that say so
// (device, cuda_arch, nvrtc_version, launch), NVRTC, and timing with CUDA events on LibTorch's
// stream. The CPU path needs none of this.
#pragma once

#include "core/cache/cache_key.h"
#include "core/codegen/cuda_printer.h"
#include "core/cuda/nvrtc.h"
#include "core/util/result.h"

#include <functional>
#include <string>
#include <vector>

namespace fxs::compile::detail {

struct CudaTarget {
    int device = 0;  // ordinal the kernels run on (-1: building only, no GPU)
    int arch = 0;    // 90 for sm_90
    const cuda::Nvrtc* nvrtc = nullptr;
    codegen::CudaTuning tuning;
};

// device: the inputs' device ordinal, or -1 when only building. arch: 0 for the device's own
// (sm_90 when there is no device). Error::Unsupported without NVRTC, or when a device is asked
// for and the driver has none.
Result<CudaTarget> cudaTarget(int device, int arch, const codegen::CudaTuning& tuning);

// The CUDA key components of a printed schedule.
void addCudaKeyComponents(cache::KeyBuilder& key, const CudaTarget& target,
                          const codegen::CudaSchedule& kernels);

struct Timing {
    double medianMs = 0;
    double spreadMs = 0;            // max - min
    std::vector<double> samplesMs;  // each timed run, in run order
    double backToBackMs = 0;        // mean of `repeats` runs enqueued back to back
};

// Times `run` (work enqueued on the current stream of `device`) with CUDA events: one untimed
// warm-up, then `repeats` timed runs; median and spread of the per-run times (each includes the
// host's launch latency when the stream was idle). Then the same number of runs enqueued back
// to back between one event pair: the GPU's own time per run, launch latency hidden (the way
// Inductor's benchmarks are usually quoted).
Result<Timing> timeOnStream(int device, int repeats, const std::function<Status()>& run);

} // namespace fxs::compile::detail
