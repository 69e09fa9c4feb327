// Roofline: copy-bandwidth measurement, FLOP counting from node shapes, bound classification.
// The matmul peak lives in roofline_torch.cpp (the only LibTorch user here).
#include "core/profile/roofline.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace fxs::profile {
namespace {

const graph::TensorMeta* argMeta(const graph::Graph& g, const graph::Node& n, std::size_t i)
{
    if (i >= n.args.size() || !n.args[i].isNode()) {
        return nullptr;
    }
    return g.node(n.args[i].node).tensorMeta();
}

std::optional<std::int64_t> concreteSize(const graph::TensorMeta* m, std::ptrdiff_t dim)
{
    if (m == nullptr || m->sizes.empty()) {
        return std::nullopt;
    }
    const auto rank = static_cast<std::ptrdiff_t>(m->sizes.size());
    const auto i = dim < 0 ? rank + dim : dim;
    if (i < 0 || i >= rank || m->sizes[static_cast<std::size_t>(i)].isSymbolic()) {
        return std::nullopt;
    }
    return m->sizes[static_cast<std::size_t>(i)].value;
}

// Contraction length K of a matmul-like node, or the per-output-element MACs of a convolution.
std::optional<std::int64_t> macsPerOutput(const graph::Graph& g, const graph::Node& n,
                                          std::string_view op)
{
    if (op == "mm" || op == "bmm" || op == "matmul") {
        return concreteSize(argMeta(g, n, 0), -1);
    }
    if (op == "addmm" || op == "baddbmm") {
        return concreteSize(argMeta(g, n, 1), -1);
    }
    if (op == "linear") {
        return concreteSize(argMeta(g, n, 1), -1);
    }
    if (op == "convolution" || op == "_convolution" || op == "conv1d" || op == "conv2d" ||
        op == "conv3d") {
        const auto* w = argMeta(g, n, 1);
        const auto cout = concreteSize(w, 0);
        const auto numel = w != nullptr ? w->numel() : std::nullopt;
        if (!cout || !numel || *cout <= 0) {
            return std::nullopt;
        }
        return *numel / *cout;
    }
    return std::nullopt;
}

} // namespace

double measureCopyGBps(std::size_t bytes, int repeats)
{
    bytes = std::max<std::size_t>(bytes, 4096);
    std::vector<char> src(bytes, 1);
    std::vector<char> dst(bytes, 0);
    std::memcpy(dst.data(), src.data(), bytes); // touch the pages
    double best = 0.0;
    for (int r = 0; r < std::max(1, repeats); ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        std::memcpy(dst.data(), src.data(), bytes);
        const auto t1 = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(t1 - t0).count();
        if (s > 0) {
            best = std::max(best, 2.0 * static_cast<double>(bytes) / s / 1e9);
        }
        src[static_cast<std::size_t>(r) % bytes] = static_cast<char>(dst[0] + 1);
    }
    return best;
}

MachinePeaks measurePeaks(const PeakOptions& options)
{
    MachinePeaks p;
    p.copyGBps = measureCopyGBps(options.copyBytes, options.copyRepeats);
    if (auto mm = measureMatmulGflops(options.matmulN, options.matmulRepeats)) {
        p.matmulGflops = *mm;
    }
    return p;
}

std::optional<double> nodeFlops(const graph::Graph& graph, graph::NodeId id)
{
    const graph::Node& n = graph.node(id);
    if (!n.isCallFunction()) {
        return std::nullopt;
    }
    const auto macs = macsPerOutput(graph, n, graph::opBaseName(n.target));
    const auto* out = n.tensorMeta();
    const auto outNumel = out != nullptr ? out->numel() : std::nullopt;
    if (!macs || !outNumel) {
        return std::nullopt;
    }
    return 2.0 * static_cast<double>(*outNumel) * static_cast<double>(*macs);
}

std::string_view boundName(Bound b)
{
    return b == Bound::Compute ? "compute" : "memory";
}

std::optional<Bound> parseBound(std::string_view text)
{
    if (text == "memory") {
        return Bound::Memory;
    }
    if (text == "compute") {
        return Bound::Compute;
    }
    return std::nullopt;
}

RooflinePoint classify(double bytesMoved, double flops, double ms, const MachinePeaks& peaks)
{
    RooflinePoint p;
    p.intensity = bytesMoved > 0 ? flops / bytesMoved : 0.0;
    const double memMs = peaks.copyGBps > 0 ? bytesMoved / (peaks.copyGBps * 1e9) * 1e3 : 0.0;
    const double flopMs =
        peaks.matmulGflops > 0 ? flops / (peaks.matmulGflops * 1e9) * 1e3 : 0.0;
    p.bound = flopMs > memMs ? Bound::Compute : Bound::Memory;
    p.boundMs = std::max(memMs, flopMs);
    p.efficiency = (ms > 0 && peaks.copyGBps > 0) ? p.boundMs / ms : 0.0;
    return p;
}

} // namespace fxs::profile
