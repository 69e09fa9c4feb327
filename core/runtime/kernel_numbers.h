// The numbers of a kernel call site: bytes moved by a generated kernel (from its post-grad
// nodes' metas), FLOPs of GEMMs, convolutions and attention (from their shapes), and the
// device table of peaks they are compared with. Estimates, said as such; not a roofline model.
#pragma once

#include "core/graph/graph.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::runtime {

struct DevicePeaks {
    std::string name;         // as the table names it: "NVIDIA H200 (SXM)"
    double bytesPerSec = 0;   // HBM bandwidth
    double fp32Flops = 0;     // CUDA cores
    double tf32Flops = 0;     // tensor cores, dense
    double bf16Flops = 0;     // tensor cores, dense (fp16 the same)
};

// Peaks for a deviceProperties name (A100, H100, H200; memory size picks A100 40/80 GB);
// nullopt for a device the table does not know.
std::optional<DevicePeaks> devicePeaks(std::string_view deviceName, std::int64_t totalMemBytes);
// The peak a kernel is measured against: TF32/BF16/FP16 when its name says so, else FP32.
double flopsPeakFor(const DevicePeaks& peaks, std::string_view kernelName, std::string* which);

// Bytes one run of the nodes moves: tensors read from outside the set plus tensors of the set
// used outside it (or returned). nullopt when a needed size is unknown or symbolic.
std::optional<double> bytesMoved(const graph::Graph& g, const std::vector<std::string>& nodes);
// FLOPs of the first mm/addmm/bmm/convolution(_backward)/attention(_backward) node of the set;
// nullopt when there is none or its shapes are unknown. Backward attention counts 2.5x its
// forward, convolution_backward 2x (grad input and grad weight).
std::optional<double> flopsOf(const graph::Graph& g, const std::vector<std::string>& nodes);

} // namespace fxs::runtime
