#include "core/runtime/kernel_numbers.h"

#include <algorithm>
#include <set>

namespace fxs::runtime {

std::optional<DevicePeaks> devicePeaks(std::string_view name, std::int64_t totalMem)
{
    // Public datasheet figures (dense tensor-core rates, SXM boards).
    if (name.find("H200") != std::string_view::npos) {
        return DevicePeaks{"NVIDIA H200 (SXM)", 4.8e12, 67e12, 494.7e12, 989.4e12};
    }
    if (name.find("H100") != std::string_view::npos) {
        if (name.find("PCIe") != std::string_view::npos) {
            return DevicePeaks{"NVIDIA H100 (PCIe)", 2.0e12, 51e12, 378e12, 756e12};
        }
        return DevicePeaks{"NVIDIA H100 (SXM)", 3.35e12, 67e12, 494.7e12, 989.4e12};
    }
    if (name.find("A100") != std::string_view::npos) {
        const bool big = totalMem > (std::int64_t(48) << 30);
        return DevicePeaks{big ? "NVIDIA A100 80GB (SXM)" : "NVIDIA A100 40GB",
                           big ? 2.039e12 : 1.555e12, 19.5e12, 156e12, 312e12};
    }
    return std::nullopt;
}

double flopsPeakFor(const DevicePeaks& p, std::string_view kernel, std::string* which)
{
    auto say = [&](const char* w, double v) {
        if (which) {
            *which = w;
        }
        return v;
    };
    if (kernel.find("tf32") != std::string_view::npos) {
        return say("tf32", p.tf32Flops);
    }
    if (kernel.find("bf16") != std::string_view::npos ||
        kernel.find("f16") != std::string_view::npos) {
        return say("bf16", p.bf16Flops);
    }
    return say("fp32", p.fp32Flops);
}

namespace {

const graph::TensorMeta* metaOf(const graph::Graph& g, graph::NodeId id)
{
    return id == graph::kNoNode || id >= g.size() ? nullptr : g.node(id).tensorMeta();
}

const graph::TensorMeta* argMeta(const graph::Graph& g, const graph::Node& n, std::size_t i)
{
    if (i >= n.args.size() || !n.args[i].isNode()) {
        return nullptr;
    }
    return metaOf(g, n.args[i].node);
}

std::optional<double> dim(const graph::TensorMeta* m, std::size_t i)
{
    if (!m || i >= m->sizes.size() || m->sizes[i].isSymbolic()) {
        return std::nullopt;
    }
    return static_cast<double>(m->sizes[i].value);
}

std::optional<double> numel(const graph::TensorMeta* m)
{
    if (!m) {
        return std::nullopt;
    }
    auto n = m->numel();
    return n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
}

// 2*M*N*K from A [.., M, K] and the output [.., M, N] (batch dims multiply in through numel).
std::optional<double> gemmFlops(const graph::TensorMeta* a, const graph::TensorMeta* out)
{
    if (!a || a->sizes.empty()) {
        return std::nullopt;
    }
    auto k = dim(a, a->sizes.size() - 1);
    auto outN = numel(out);
    if (!k || !outN) {
        return std::nullopt;
    }
    return 2.0 * *outN * *k;
}

// 4*B*H*L*S*E: QK^T and PV, from q [B, H, L, E] and k [B, H, S, E].
std::optional<double> attentionFlops(const graph::TensorMeta* q, const graph::TensorMeta* k)
{
    auto qn = numel(q);
    if (!qn || !k || k->sizes.size() < 2) {
        return std::nullopt;
    }
    auto s = dim(k, k->sizes.size() - 2);
    if (!s) {
        return std::nullopt;
    }
    return 4.0 * *qn * *s;
}

// 2 * numel(out) * Cin/groups * kh * kw from the weight [Cout, Cin/g, kh, kw].
std::optional<double> convFlops(const graph::TensorMeta* out, const graph::TensorMeta* w)
{
    auto outN = numel(out);
    auto wN = numel(w);
    auto cout = dim(w, 0);
    if (!outN || !wN || !cout || *cout == 0) {
        return std::nullopt;
    }
    return 2.0 * *outN * (*wN / *cout);
}

std::optional<double> nodeFlops(const graph::Graph& g, const graph::Node& n)
{
    const auto op = graph::opBaseName(n.target);
    if (op == "mm" || op == "bmm") {
        return gemmFlops(argMeta(g, n, 0), n.tensorMeta());
    }
    if (op == "addmm" || op == "baddbmm") {
        return gemmFlops(argMeta(g, n, 1), n.tensorMeta());
    }
    if (op == "convolution") {
        return convFlops(n.tensorMeta(), argMeta(g, n, 1));
    }
    if (op == "convolution_backward") {
        auto f = convFlops(argMeta(g, n, 0), argMeta(g, n, 2));
        return f ? std::optional<double>(2.0 * *f) : std::nullopt;
    }
    if (op.find("attention_backward") != std::string_view::npos) {
        auto f = attentionFlops(argMeta(g, n, 1), argMeta(g, n, 2));
        return f ? std::optional<double>(2.5 * *f) : std::nullopt;
    }
    if (op.find("scaled_dot_product") != std::string_view::npos ||
        op.find("_attention") != std::string_view::npos) {
        return attentionFlops(argMeta(g, n, 0), argMeta(g, n, 1));
    }
    return std::nullopt;
}

} // namespace

std::optional<double> flopsOf(const graph::Graph& g, const std::vector<std::string>& nodes)
{
    for (const auto& name : nodes) {
        if (auto id = g.find(name)) {
            if (auto f = nodeFlops(g, g.node(*id))) {
                return f;
            }
        }
    }
    return std::nullopt;
}

std::optional<double> bytesMoved(const graph::Graph& g, const std::vector<std::string>& nodes)
{
    std::set<graph::NodeId> in;
    for (const auto& name : nodes) {
        if (auto id = g.find(name)) {
            in.insert(*id);
        }
    }
    if (in.empty()) {
        return std::nullopt;
    }
    std::set<graph::NodeId> read;
    double bytes = 0;
    for (auto id : in) {
        const auto& n = g.node(id);
        for (auto src : n.inputs) {
            if (!in.count(src)) {
                read.insert(src);
            }
        }
        const bool usedOutside = std::any_of(n.users.begin(), n.users.end(),
                                             [&](graph::NodeId u) { return !in.count(u); });
        if (usedOutside) {
            const auto* m = n.tensorMeta();
            auto b = m ? m->nbytes() : std::nullopt;
            if (m && !b) {
                return std::nullopt;
            }
            bytes += b ? static_cast<double>(*b) : 0.0;
        }
    }
    for (auto src : read) {
        const auto* m = metaOf(g, src);
        auto b = m ? m->nbytes() : std::nullopt;
        if (m && !b) {
            return std::nullopt;
        }
        bytes += b ? static_cast<double>(*b) : 0.0;
    }
    return bytes;
}

} // namespace fxs::runtime
