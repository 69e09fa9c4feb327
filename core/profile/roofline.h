// Roofline estimates for run-time profiles: this machine's measured copy bandwidth and matmul
// peak, FLOP counts of mm/bmm/addmm/convolution nodes from their shapes, and the memory- or
// compute-bound verdict with the distance from the bound. Not a profiler (runtime_profile.h).
#pragma once

#include "core/graph/graph.h"
#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxs::profile {

struct MachinePeaks {
    double copyGBps = 0.0;     // memcpy bandwidth, bytes read + written per second / 1e9
    double matmulGflops = 0.0; // float32 at::mm on the CPU, 2*n^3 / s / 1e9
    bool operator==(const MachinePeaks&) const = default;
};

struct PeakOptions {
    std::size_t copyBytes = std::size_t{64} << 20; // buffer size of the copy loop
    int copyRepeats = 5;                           // best of
    int matmulN = 512;                             // square matrices
    int matmulRepeats = 5;                         // best of
};

// Best-of-N memcpy of copyBytes (counts 2 * copyBytes moved per copy).
double measureCopyGBps(std::size_t bytes, int repeats);
// Best-of-N float32 n×n at::mm on the CPU; an Error when LibTorch fails.
Result<double> measureMatmulGflops(int n, int repeats);
// Both; a failed matmul measurement leaves matmulGflops at 0 (everything memory-bound).
MachinePeaks measurePeaks(const PeakOptions& options = {});

// FLOPs of a node from its input/output shapes: mm, bmm, addmm, baddbmm, matmul (2·M·N·K),
// convolution (2·N·Cout·out spatial·Cin/groups·kernel). nullopt for other ops or unknown
// shapes.
std::optional<double> nodeFlops(const graph::Graph& graph, graph::NodeId id);

enum class Bound : std::uint8_t { Memory, Compute };
std::string_view boundName(Bound b); // "memory", "compute"
std::optional<Bound> parseBound(std::string_view text);

struct RooflinePoint {
    Bound bound = Bound::Memory;
    double intensity = 0.0;  // FLOPs per byte moved
    double boundMs = 0.0;    // the roofline's time: max(bytes / bandwidth, flops / peak)
    double efficiency = 0.0; // boundMs / measured ms (1 = at the bound; 0 when unknown)
};

// Memory-bound when the intensity is below the ridge point (peak / bandwidth) or no matmul
// peak is known. Efficiency is 0 when ms or the bandwidth is not positive.
RooflinePoint classify(double bytesMoved, double flops, double ms, const MachinePeaks& peaks);

} // namespace fxs::profile
