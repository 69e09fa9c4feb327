// The GPUs the CUDA driver sees, through the driver API loaded at run time (libcuda.so.1 is never
// linked, so everything else runs on machines without CUDA). Also the device's measured copy
// bandwidth, the roofline for memory-bound kernels. Torch-free; not the compiler (nvrtc.h) nor
// modules and launches (module.h).
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxs::cuda {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;        // "NVIDIA H100 80GB HBM3"
    int major = 0;           // compute capability
    int minor = 0;
    int multiprocessors = 0;
    std::int64_t l2Bytes = 0;

    int sm() const { return major * 10 + minor; } // 90
    std::string arch() const;                     // "sm_90"
};

// Error::Unsupported when there is no driver or no GPU (the message says which).
Result<std::vector<DeviceInfo>> devices();
Result<DeviceInfo> device(int ordinal);
Result<std::string> driverVersion(); // "13.0"

// True when a driver and at least one GPU are present (never an error).
bool available();

// Device-to-device copy bandwidth in GB/s (bytes read plus bytes written per second): the median
// of `repeats` timed copies of `bytes` after one warm-up, timed with events. Measured once per
// device and process with the defaults (later calls return the first figure).
Result<double> copyBandwidth(int ordinal, std::size_t bytes = std::size_t(256) << 20,
                             int repeats = 20);

// "sm_90" -> 90; 0 for text that is not an "sm_NN" architecture.
int parseArch(const std::string& text);

} // namespace fxs::cuda
