// Convolutions with their epilogue as one step (conv_fusion.h).
#include "core/compile/conv_fusion.h"
#include "core/compile/conv_operands.h"

#include "core/exec/cudnn_conv.h"
#include "core/exec/torch_bridge.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

namespace fxs::compile {
namespace {

using graph::Argument;
using graph::ArgKind;
using graph::Graph;
using graph::Node;
using graph::NodeId;

std::optional<std::array<std::int64_t, 2>> intPair(const Argument& a)
{
    if (!a.isSequence() || a.items.size() != 2) {
        return std::nullopt;
    }
    std::array<std::int64_t, 2> out{};
    for (std::size_t i = 0; i < 2; ++i) {
        if (a.items[i].kind != ArgKind::Int) {
            return std::nullopt;
        }
        out[i] = a.items[i].i;
    }
    return out;
}

std::optional<double> number(const Argument& a)
{
    if (a.kind == ArgKind::Float) {
        return a.f;
    }
    if (a.kind == ArgKind::Int) {
        return double(a.i);
    }
    return std::nullopt;
}

bool isNodeArg(const Argument& a)
{
    return a.kind == ArgKind::Node && a.node != graph::kNoNode;
}

// The one node reading `id`, when there is exactly one and it is a call.
std::optional<NodeId> onlyCallUser(const Graph& g, NodeId id)
{
    const Node& n = g.node(id);
    if (n.users.size() != 1 || !g.node(n.users[0]).isCallFunction()) {
        return std::nullopt;
    }
    return n.users[0];
}

bool sameValueShape(const Graph& g, NodeId a, NodeId b)
{
    const auto* ma = g.node(a).tensorMeta();
    const auto* mb = g.node(b).tensorMeta();
    return ma && mb && ma->dtype == mb->dtype && ma->sizes == mb->sizes &&
           std::none_of(ma->sizes.begin(), ma->sizes.end(),
                        [](const graph::SymInt& s) { return s.isSymbolic(); });
}

// The convolution's part: the node and its batch norm's getitem 0, or nullopt.
std::optional<ConvEpilogue> convHead(const Graph& g, NodeId id, const std::vector<bool>& excluded)
{
    const Node& conv = g.node(id);
    if (conv.target != "aten::convolution.default" || conv.args.size() != 9 ||
        !conv.kwargs.empty() || !isNodeArg(conv.args[0]) || !isNodeArg(conv.args[1]) ||
        conv.args[2].kind != ArgKind::None || conv.args[6].kind != ArgKind::Bool ||
        conv.args[6].b || conv.args[8].kind != ArgKind::Int || conv.args[8].i != 1) {
        return std::nullopt;
    }
    if (const auto* m = conv.tensorMeta();
        m && (m->rank() != 4 || (m->dtype != graph::DType::Float32 &&
                                 m->dtype != graph::DType::Unknown))) {
        return std::nullopt;
    }
    // Input channels a multiple of 4: cuDNN's fused kernels read NHWC rows 16 bytes at a time.
    // The 3-channel stem's fused kernel took 0.197 ms on an H200 against 0.095 for LibTorch's
    // convolution, whose norm, relu and max pool then fuse in a region.
    if (const auto* in = g.node(conv.args[0].node).tensorMeta();
        in && in->rank() == 4 && (in->sizes[1].isSymbolic() || in->sizes[1].value % 4 != 0)) {
        return std::nullopt;
    }
    ConvEpilogue e;
    e.conv = id;
    const auto stride = intPair(conv.args[3]);
    const auto padding = intPair(conv.args[4]);
    const auto dilation = intPair(conv.args[5]);
    if (!stride || !padding || !dilation) {
        return std::nullopt;
    }
    e.stride = *stride;
    e.padding = *padding;
    e.dilation = *dilation;
    const auto normId = onlyCallUser(g, id);
    if (!normId) {
        return std::nullopt;
    }
    const Node& norm = g.node(*normId);
    if (norm.target != "aten::_native_batch_norm_legit_no_training.default" ||
        norm.args.size() != 7 || !norm.kwargs.empty() || !isNodeArg(norm.args[0]) ||
        norm.args[0].node != id || !isNodeArg(norm.args[3]) || !isNodeArg(norm.args[4]) ||
        norm.users.size() != 1) {
        return std::nullopt;
    }
    for (std::size_t i : {1, 2}) { // weight, bias: a tensor or None
        if (norm.args[i].kind != ArgKind::None && !isNodeArg(norm.args[i])) {
            return std::nullopt;
        }
    }
    const auto momentum = number(norm.args[5]);
    const auto eps = number(norm.args[6]);
    const Node& item = g.node(norm.users[0]);
    if (!momentum || !eps || item.getitemOf != *normId || item.getitemIndex != 0) {
        return std::nullopt;
    }
    e.norm = *normId;
    e.item = item.id;
    e.momentum = *momentum;
    e.eps = *eps;
    for (NodeId n : {e.conv, e.norm, e.item}) {
        if (n < excluded.size() && excluded[n]) {
            return std::nullopt;
        }
    }
    return e;
}

} // namespace

std::vector<ConvEpilogue> findConvEpilogues(const Graph& g, const std::vector<bool>& excluded)
{
    std::vector<ConvEpilogue> out;
    std::vector<bool> taken(g.size(), false); // an add both of whose operands are epilogues'
    const auto isExcluded = [&](NodeId id) {
        return (id < excluded.size() && excluded[id]) || taken[id];
    };
    for (const Node& n : g.nodes()) {
        auto e = convHead(g, n.id, excluded);
        if (!e) {
            continue;
        }
        e->last = e->item;
        if (auto next = onlyCallUser(g, e->last)) {
            const Node& add = g.node(*next);
            if (add.target == "aten::add.Tensor" && add.args.size() == 2 &&
                add.kwargs.empty() && isNodeArg(add.args[0]) && isNodeArg(add.args[1]) &&
                !isExcluded(add.id)) {
                const NodeId a = add.args[0].node;
                const NodeId b = add.args[1].node;
                const NodeId other = a == e->last ? b : a;
                if ((a == e->last) != (b == e->last) && sameValueShape(g, e->last, other)) {
                    e->add = add.id;
                    e->residual = other;
                    e->last = add.id;
                }
            }
        }
        if (auto next = onlyCallUser(g, e->last)) {
            const Node& relu = g.node(*next);
            if (relu.target == "aten::relu.default" && relu.args.size() == 1 &&
                relu.kwargs.empty() && isNodeArg(relu.args[0]) && !isExcluded(relu.id)) {
                e->relu = relu.id;
                e->last = relu.id;
            }
        }
        e->id = "conv" + std::to_string(out.size());
        for (NodeId id : {e->conv, e->norm, e->item, e->add, e->relu}) {
            if (id != graph::kNoNode) {
                e->nodes.push_back(id);
            }
        }
        std::sort(e->nodes.begin(), e->nodes.end());
        for (NodeId id : e->nodes) {
            taken[id] = true;
        }
        out.push_back(std::move(*e));
    }
    return out;
}

std::vector<std::string> convEpilogueNodeNames(const Graph& g)
{
    std::vector<std::string> names;
    for (const auto& e : findConvEpilogues(g, {})) {
        for (NodeId id : e.nodes) {
            if (id != e.conv) {
                names.push_back(g.node(id).name);
            }
        }
    }
    return names;
}

namespace detail {

std::pair<at::Tensor, at::Tensor> foldedAffine(const at::Tensor& weight, const at::Tensor& bias,
                                               const at::Tensor& mean, const at::Tensor& var,
                                               double eps)
{
    at::Tensor scale = at::rsqrt(var.to(at::kDouble) + eps);
    if (weight.defined()) {
        scale = scale * weight.to(at::kDouble);
    }
    at::Tensor shift = -mean.to(at::kDouble) * scale;
    if (bias.defined()) {
        shift = shift + bias.to(at::kDouble);
    }
    return {scale.to(at::kFloat).contiguous(), shift.to(at::kFloat).contiguous()};
}

namespace {

std::uint32_t versionOf(const at::Tensor& t)
{
    return t.defined() && !t.is_inference()
               ? t.unsafeGetTensorImpl()->version_counter().current_version()
               : 0;
}

std::vector<std::int64_t> sizesOf(const at::Tensor& t)
{
    return t.defined() ? t.sizes().vec() : std::vector<std::int64_t>();
}

KeptConvOperands::Operands makeOperands(const std::array<at::Tensor, 5>& s, double eps)
{
    auto [scale, shift] = foldedAffine(s[1], s[2], s[3], s[4], eps);
    return {s[0].contiguous(at::MemoryFormat::ChannelsLast), scale, shift};
}

} // namespace

KeptConvOperands::Operands KeptConvOperands::get(const std::array<at::Tensor, 5>& sources,
                                                 double eps, bool& made)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    made = false;
    if (m_valid && m_eps == eps && sameAsKept(sources)) {
        return m_kept;
    }
    made = true;
    Operands o = makeOperands(sources, eps);
    m_valid = std::none_of(sources.begin(), sources.end(), [](const at::Tensor& t) {
        return t.defined() && t.is_inference();
    });
    if (m_valid) {
        for (std::size_t i = 0; i < sources.size(); ++i) {
            const at::Tensor& t = sources[i];
            m_sources[i] = {t, t.defined() ? t.data_ptr() : nullptr, versionOf(t), sizesOf(t)};
        }
        m_eps = eps;
        m_kept = o;
    }
    return o;
}

Result<bool> KeptConvOperands::refresh()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_valid) {
        return false;
    }
    bool changed = false;
    for (const Source& s : m_sources) {
        if (!s.tensor.defined()) {
            continue;
        }
        if (s.tensor.data_ptr() != s.data || sizesOf(s.tensor) != s.sizes) {
            return makeError(ErrorCode::Runtime,
                             "a convolution's weight or batch-norm statistics were resized or "
                             "re-pointed since a CUDA graph captured them; capture the graph "
                             "again");
        }
        changed = changed || versionOf(s.tensor) != s.version;
    }
    if (!changed) {
        return false;
    }
    c10::InferenceMode inference; // the kept tensors were made in a run
    std::array<at::Tensor, 5> sources;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        sources[i] = m_sources[i].tensor;
    }
    const Operands o = makeOperands(sources, m_eps);
    if (!m_kept.weight.is_same(sources[0])) {
        m_kept.weight.copy_(o.weight);
    }
    m_kept.scale.copy_(o.scale);
    m_kept.shift.copy_(o.shift);
    for (Source& s : m_sources) {
        s.version = versionOf(s.tensor);
    }
    return true;
}

bool KeptConvOperands::sameAsKept(const std::array<at::Tensor, 5>& sources) const
{
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const Source& k = m_sources[i];
        const at::Tensor& t = sources[i];
        if (t.defined() != k.tensor.defined()) {
            return false;
        }
        if (t.defined() && (t.unsafeGetTensorImpl() != k.tensor.unsafeGetTensorImpl() ||
                            t.data_ptr() != k.data || versionOf(t) != k.version ||
                            t.sizes() != at::IntArrayRef(k.sizes))) {
            return false;
        }
    }
    return true;
}

} // namespace detail

namespace {

struct ConvCall {
    exec::detail::FusedConvParams params;
    double momentum = 0.0;
    double eps = 0.0;
    // Input slots; -1: none (a norm without weight or bias, no residual).
    int x = -1;
    int w = -1;
    int normWeight = -1;
    int normBias = -1;
    int mean = -1;
    int var = -1;
    int residual = -1;
    bool direct = false;
    bool channelsLast = false;
    std::shared_ptr<detail::KeptConvOperands> kept;
};

exec::detail::FusedConvParams paramsOf(const ConvEpilogue& e)
{
    exec::detail::FusedConvParams p;
    p.stride = e.stride;
    p.padding = e.padding;
    p.dilation = e.dilation;
    p.relu = e.relu != graph::kNoNode;
    return p;
}

at::Tensor inputAt(const std::vector<exec::TensorHandle>& in, int slot)
{
    if (slot < 0 || std::size_t(slot) >= in.size() || !in[std::size_t(slot)].defined()) {
        return {};
    }
    return exec::tensorOf(in[std::size_t(slot)]);
}

Result<std::vector<exec::TensorHandle>> runConv(const ConvCall& c,
                                                const std::vector<exec::TensorHandle>& in,
                                                ConvEpilogueRuns* runs)
{
    const at::Tensor x = inputAt(in, c.x);
    const at::Tensor w = inputAt(in, c.w);
    const at::Tensor mean = inputAt(in, c.mean);
    const at::Tensor var = inputAt(in, c.var);
    const at::Tensor nw = inputAt(in, c.normWeight);
    const at::Tensor nb = inputAt(in, c.normBias);
    const at::Tensor residual = inputAt(in, c.residual);
    if (!x.defined() || !w.defined() || !mean.defined() || !var.defined() ||
        (c.residual >= 0 && !residual.defined())) {
        return makeError(ErrorCode::Internal, "a convolution step lacks an operand");
    }
    if (c.direct && x.is_cuda()) {
        bool made = false;
        const auto ops = c.kept->get({w, nw, nb, mean, var}, c.eps, made);
        at::Tensor y = exec::detail::cudnnFusedConv(
            x.contiguous(at::MemoryFormat::ChannelsLast), ops.weight, ops.scale, ops.shift,
            residual.defined() ? residual.contiguous(at::MemoryFormat::ChannelsLast) : residual,
            c.params);
        if (y.defined()) {
            if (runs) {
                ++runs->cudnn;
            }
            return std::vector<exec::TensorHandle>{exec::makeHandle(std::move(y))};
        }
    }
    const auto layout = [&](const at::Tensor& t) {
        return c.channelsLast && t.dim() == 4 ? t.contiguous(at::MemoryFormat::ChannelsLast) : t;
    };
    at::Tensor y = at::convolution(layout(x), layout(w), {}, c.params.stride, c.params.padding,
                                   c.params.dilation, false, {0, 0}, 1);
    y = std::get<0>(at::native_batch_norm(y, nw, nb, mean, var, false, c.momentum, c.eps));
    if (residual.defined()) {
        y = at::add(y, residual);
    }
    if (c.params.relu) {
        y = at::relu(y);
    }
    return std::vector<exec::TensorHandle>{exec::makeHandle(std::move(y))};
}

} // namespace

int prebuildConvPlans(const Graph& graph, const std::vector<ConvEpilogue>& epilogues)
{
    std::vector<exec::detail::FusedConvShape> shapes;
    const auto sizes = [&](NodeId id, std::array<std::int64_t, 4>& out) {
        const auto* m = graph.node(id).tensorMeta();
        if (!m || m->rank() != 4) {
            return false;
        }
        for (std::size_t i = 0; i < 4; ++i) {
            if (m->sizes[i].isSymbolic()) {
                return false;
            }
            out[i] = m->sizes[i].value;
        }
        return true;
    };
    for (const ConvEpilogue& e : epilogues) {
        const Node& conv = graph.node(e.conv);
        exec::detail::FusedConvShape s;
        if (!sizes(conv.args[0].node, s.x) || !sizes(conv.args[1].node, s.w)) {
            continue;
        }
        s.params = paramsOf(e);
        s.residual = e.residual != graph::kNoNode;
        shapes.push_back(s);
    }
    const unsigned cores = std::thread::hardware_concurrency();
    return exec::detail::prebuildFusedConvPlans(shapes, int(std::clamp(cores, 1u, 8u)));
}

bool convFusionApplies(ConvFusion choice, TargetDevice device)
{
    return choice == ConvFusion::Always ||
           (choice == ConvFusion::Auto && device == TargetDevice::Cuda &&
            exec::detail::cudnnFusedConvAvailable());
}

std::vector<exec::Substitute> convSubstitutes(const Graph& graph,
                                              const std::vector<ConvEpilogue>& epilogues,
                                              std::shared_ptr<ConvEpilogueRuns> runs,
                                              bool direct, bool channelsLast)
{
    std::vector<exec::Substitute> subs;
    for (const ConvEpilogue& e : epilogues) {
        exec::Substitute s;
        s.name = e.id;
        s.nodes = e.nodes;
        s.outputs = {e.last};
        const auto slot = [&](const Argument& a) {
            if (!isNodeArg(a)) {
                return -1;
            }
            auto it = std::find(s.inputs.begin(), s.inputs.end(), a.node);
            if (it == s.inputs.end()) {
                s.inputs.push_back(a.node);
                return int(s.inputs.size()) - 1;
            }
            return int(it - s.inputs.begin());
        };
        const Node& conv = graph.node(e.conv);
        const Node& norm = graph.node(e.norm);
        ConvCall call;
        call.params = paramsOf(e);
        call.momentum = e.momentum;
        call.eps = e.eps;
        call.x = slot(conv.args[0]);
        call.w = slot(conv.args[1]);
        call.normWeight = slot(norm.args[1]);
        call.normBias = slot(norm.args[2]);
        call.mean = slot(norm.args[3]);
        call.var = slot(norm.args[4]);
        if (e.residual != graph::kNoNode) {
            call.residual = slot(Argument::ref(e.residual));
        }
        call.direct = direct;
        call.channelsLast = channelsLast;
        call.kept = std::make_shared<detail::KeptConvOperands>();
        s.beforeReplay = [kept = call.kept]() -> Status {
            auto r = kept->refresh();
            return r ? Status() : Status(r.error());
        };
        s.run = [call, runs](const std::vector<exec::TensorHandle>& in) {
            return runConv(call, in, runs.get());
        };
        subs.push_back(std::move(s));
    }
    return subs;
}

} // namespace fxs::compile
