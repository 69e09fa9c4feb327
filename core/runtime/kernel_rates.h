// What a kernel row's time achieved: bytes and FLOPs over all its calls, GB/s and TFLOP/s,
// and the share of the device's peak (bandwidth for generated kernels, FLOPs for GEMMs,
// convolutions and attention). The one place these are derived from a KernelRow, for
// `fxscope-cli attribute` and the app's Kernels dock. Not the estimates themselves
// (kernel_numbers.h) nor the join (attribution.h).
#pragma once

#include "core/runtime/attribution.h"

#include <optional>
#include <string>

namespace fxs::runtime {

struct KernelRates {
    std::optional<double> bytes;        // moved over all calls
    std::optional<double> gbps;         // bytes / time, 1e9 bytes per second
    std::optional<double> pctPeakBw;    // of the device's peak bandwidth (needs its peaks)
    std::optional<double> flops;        // over all calls
    std::optional<double> tflops;       // flops / time, 1e12 per second
    std::optional<double> pctPeakFlops; // of the peak for the kernel's precision
    std::string peakKind;               // "fp32", "tf32", "bf16" when pctPeakFlops is set
    // The share of peak worth showing in one column: FLOPs when known, else bandwidth.
    std::optional<double> pctPeak() const { return pctPeakFlops ? pctPeakFlops : pctPeakBw; }
};

// Rates of row over its time; nothing set where the row has no time, bytes or FLOPs.
KernelRates kernelRates(const KernelRow& row, const std::optional<DevicePeaks>& peaks);

} // namespace fxs::runtime
