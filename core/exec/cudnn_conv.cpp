// A convolution and its per-channel epilogue as one cuDNN graph (cudnn_conv.h): the backend API's
// operation graph conv -> mul(scale) -> add(shift) [-> add(residual)] [-> relu], NHWC float32,
// the intermediate tensors virtual (never written to memory).
#include "core/exec/cudnn_conv.h"
#include "core/util/elapsed.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <atomic>
#include <optional>

#if defined(FXSCOPE_TORCH_CUDA) && defined(FXSCOPE_CUDNN)
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAStream.h>
#include <cudnn.h>
#include "core/exec/process_symbols.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>
#endif

namespace fxs::exec::detail {
namespace {

std::atomic<long> g_calls{0};

#if defined(FXSCOPE_TORCH_CUDA) && defined(FXSCOPE_CUDNN)

using Desc = cudnnBackendDescriptor_t;

// cuDNN's entry points, found in the process (LibTorch's CUDA library loaded cuDNN).
struct Cudnn {
    decltype(&cudnnCreate) create = nullptr;
    decltype(&cudnnSetStream) setStream = nullptr;
    decltype(&cudnnBackendCreateDescriptor) make = nullptr;
    decltype(&cudnnBackendDestroyDescriptor) destroy = nullptr;
    decltype(&cudnnBackendSetAttribute) set = nullptr;
    decltype(&cudnnBackendGetAttribute) get = nullptr;
    decltype(&cudnnBackendFinalize) finalize = nullptr;
    decltype(&cudnnBackendExecute) execute = nullptr;
    bool ok() const
    {
        return create && setStream && make && destroy && set && get && finalize && execute;
    }
};

const Cudnn& cudnn()
{
    static const Cudnn c = [] {
        Cudnn x;
        findInProcess(x.create, "cudnnCreate");
        findInProcess(x.setStream, "cudnnSetStream");
        findInProcess(x.make, "cudnnBackendCreateDescriptor");
        findInProcess(x.destroy, "cudnnBackendDestroyDescriptor");
        findInProcess(x.set, "cudnnBackendSetAttribute");
        findInProcess(x.get, "cudnnBackendGetAttribute");
        findInProcess(x.finalize, "cudnnBackendFinalize");
        findInProcess(x.execute, "cudnnBackendExecute");
        return x;
    }();
    return c;
}

constexpr int kMaxCandidates = 3; // plans built and timed per shape
constexpr int kMaxConfigs = 12;   // heuristics' configurations tried for them
constexpr int kTimedRuns = 3;

// Unique ids of the variant pack's tensors; the virtual ones from 10 up.
enum Uid : std::int64_t { kX = 1, kW = 2, kY = 3, kScale = 4, kShift = 5, kResidual = 6 };

// A cuDNN handle and the stream it was last set to. A handle serves one thread at a time: the
// device's main handle under its mutex, a builder's only while it builds (prebuild).
struct HandleState {
    cudnnHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
    bool streamSet = false;
};

// One shape's plan and everything it refers to (kept for the process: cuDNN's descriptors name
// one another), the handle it was built with (it executes with that one), and the last variant
// packs made for it.
struct PlanEntry {
    std::vector<Desc> owned;
    HandleState* handle = nullptr;
    struct Candidate {
        Desc plan = nullptr;
        std::int64_t workspace = 0;
    };
    std::vector<Candidate> candidates; // built, not yet timed
    Desc plan = nullptr;
    std::int64_t workspace = 0;
    std::vector<std::int64_t> uids;
    // The last variant packs made, with their pointers: a graph run again on the caching
    // allocator's memory mostly sees the same few pointers, and a pack costs 1-3 us to make.
    struct Pack {
        Desc pack = nullptr;
        std::vector<void*> pointers;
    };
    std::array<Pack, 4> packs;
    std::size_t nextPack = 0;
};

struct DeviceState {
    std::mutex mutex;
    HandleState main;
    std::vector<std::unique_ptr<HandleState>> builders; // prebuild's, kept: plans refer to them
    // Null entry: the shape has no plan (built once, failed).
    std::map<std::vector<std::int64_t>, std::unique_ptr<PlanEntry>> plans;
};

struct Totals {
    std::mutex mutex;
    CudnnPlanCounts counts;
};

Totals& totals()
{
    static Totals* t = new Totals(); // never destroyed: as the handles
    return *t;
}

DeviceState& stateFor(c10::DeviceIndex device)
{
    static std::mutex mutex;
    static std::map<c10::DeviceIndex, DeviceState*>* states =
        new std::map<c10::DeviceIndex, DeviceState*>(); // never destroyed: the handles neither
    std::lock_guard<std::mutex> lock(mutex);
    DeviceState*& s = (*states)[device];
    if (!s) {
        s = new DeviceState();
    }
    return *s;
}

// Builds descriptors into `owned`; every call returns false on the first failure.
class Builder {
public:
    Builder(const Cudnn& c, std::vector<Desc>& owned) : m_c(c), m_owned(owned) {}

    Desc make(cudnnBackendDescriptorType_t type)
    {
        Desc d = nullptr;
        if (m_ok && m_c.make(type, &d) == CUDNN_STATUS_SUCCESS) {
            m_owned.push_back(d);
            return d;
        }
        m_ok = false;
        return nullptr;
    }
    void set(Desc d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
             std::int64_t count, const void* value)
    {
        m_ok = m_ok && d && m_c.set(d, name, type, count, value) == CUDNN_STATUS_SUCCESS;
    }
    void finalize(Desc d) { m_ok = m_ok && d && m_c.finalize(d) == CUDNN_STATUS_SUCCESS; }
    bool ok() const { return m_ok; }

    // An NHWC float32 tensor of NCHW sizes `s` ([1, K, 1, 1] for a per-channel vector).
    Desc tensor(std::int64_t uid, const std::array<std::int64_t, 4>& s, bool isVirtual)
    {
        const std::array<std::int64_t, 4> strides{s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]};
        const cudnnDataType_t type = CUDNN_DATA_FLOAT;
        const std::int64_t alignment = 16;
        const bool v = isVirtual;
        Desc d = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
        set(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
        set(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, s.data());
        set(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
        set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
        set(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
        set(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v);
        finalize(d);
        return d;
    }

    // y = mode(x[, b]) as an operation.
    Desc pointwise(cudnnPointwiseMode_t mode, Desc x, Desc b, Desc y)
    {
        const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
        Desc pw = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
        set(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
        set(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision);
        finalize(pw);
        Desc op = make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
        set(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
            &pw);
        set(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
        if (b) {
            set(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
        }
        set(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
        finalize(op);
        return op;
    }

private:
    const Cudnn& m_c;
    std::vector<Desc>& m_owned;
    bool m_ok = true;
};

struct Shape {
    std::array<std::int64_t, 4> x{}; // N, C, H, W
    std::array<std::int64_t, 4> w{}; // K, C, R, S
    std::array<std::int64_t, 4> y{}; // N, K, P, Q
    bool affine = true; // scale and shift after the convolution (else the convolution alone)
    bool residual = false;
};

// The operation graph (finalized) for `shape`, or null.
Desc operationGraph(const Cudnn& c, cudnnHandle_t handle, const Shape& sh,
                    const FusedConvParams& p, std::vector<Desc>& owned)
{
    Builder b(c, owned);
    Desc x = b.tensor(kX, sh.x, false);
    Desc w = b.tensor(kW, sh.w, false);
    Desc y = b.tensor(kY, sh.y, false);
    const std::array<std::int64_t, 4> channel{1, sh.y[1], 1, 1};
    std::int64_t next = 10;
    // Each step writes a virtual tensor but the last, which writes y (the convolution, when
    // nothing follows it).
    const int steps = (sh.affine ? 2 : 0) + (sh.residual ? 1 : 0) + (p.relu ? 1 : 0);
    Desc conv = b.make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    {
        const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
        const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
        const std::int64_t dims = 2;
        b.set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
        b.set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
        b.set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
        b.set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, p.dilation.data());
        b.set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, p.stride.data());
        b.set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, p.padding.data());
        b.set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, p.padding.data());
        b.finalize(conv);
    }
    std::vector<Desc> ops;
    Desc convOut = steps == 0 ? y : b.tensor(next++, sh.y, true);
    Desc op = b.make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    {
        const float alpha = 1.0f;
        const float beta = 0.0f;
        b.set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
        b.set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
        b.set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
              &convOut);
        b.set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
        b.set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
        b.set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
        b.finalize(op);
    }
    ops.push_back(op);
    int step = 0;
    Desc last = convOut;
    const auto then = [&](cudnnPointwiseMode_t mode, Desc operand) {
        Desc out = ++step == steps ? y : b.tensor(next++, sh.y, true);
        ops.push_back(b.pointwise(mode, last, operand, out));
        last = out;
    };
    if (sh.affine) {
        then(CUDNN_POINTWISE_MUL, b.tensor(kScale, channel, false));
        then(CUDNN_POINTWISE_ADD, b.tensor(kShift, channel, false));
    }
    if (sh.residual) {
        then(CUDNN_POINTWISE_ADD, b.tensor(kResidual, sh.y, false));
    }
    if (p.relu) {
        then(CUDNN_POINTWISE_RELU_FWD, nullptr);
    }
    Desc graph = b.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    b.set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
          std::int64_t(ops.size()), ops.data());
    b.set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    b.finalize(graph);
    return b.ok() ? graph : nullptr;
}

// The heuristics' configurations for the graph, best first (at most kMaxConfigs).
std::vector<Desc> configurations(const Cudnn& c, Desc graph, std::vector<Desc>& owned)
{
    Builder b(c, owned);
    const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
    Desc heur = b.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    b.set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    b.set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    b.finalize(heur);
    std::int64_t count = 0;
    if (!b.ok() || c.get(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                         &count, nullptr) != CUDNN_STATUS_SUCCESS) {
        return {};
    }
    count = std::min<std::int64_t>(count, kMaxConfigs);
    std::vector<Desc> configs;
    for (std::int64_t i = 0; i < count; ++i) {
        configs.push_back(b.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    }
    std::int64_t got = 0;
    if (!b.ok() || c.get(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                         &got, configs.data()) != CUDNN_STATUS_SUCCESS) {
        return {};
    }
    configs.resize(std::size_t(std::min(got, count)));
    return configs;
}

Desc variantPack(const Cudnn& c, const std::vector<std::int64_t>& uids,
                 std::vector<void*> pointers, void* workspace)
{
    Desc pack = nullptr;
    if (c.make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack) != CUDNN_STATUS_SUCCESS) {
        return nullptr;
    }
    const bool ok =
        c.set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
              std::int64_t(uids.size()), uids.data()) == CUDNN_STATUS_SUCCESS &&
        c.set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
              std::int64_t(pointers.size()), pointers.data()) == CUDNN_STATUS_SUCCESS &&
        c.set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace) ==
            CUDNN_STATUS_SUCCESS &&
        c.finalize(pack) == CUDNN_STATUS_SUCCESS;
    if (!ok) {
        c.destroy(pack);
        return nullptr;
    }
    return pack;
}

// Sets the handle's stream when it changed. False when cuDNN refuses.
bool onStream(const Cudnn& c, HandleState& h, cudaStream_t stream)
{
    if (h.streamSet && h.stream == stream) {
        return true;
    }
    if (c.setStream(h.handle, stream) != CUDNN_STATUS_SUCCESS) {
        h.streamSet = false;
        return false;
    }
    h.stream = stream;
    h.streamSet = true;
    return true;
}

// GPU milliseconds of kTimedRuns executions of `plan`, after one untimed, on the current stream.
std::optional<float> timePlan(const Cudnn& c, cudnnHandle_t handle, Desc plan,
                              const std::vector<std::int64_t>& uids,
                              const std::vector<void*>& pointers, void* workspace)
{
    Desc pack = variantPack(c, uids, pointers, workspace);
    if (!pack) {
        return std::nullopt;
    }
    at::cuda::CUDAEvent start(cudaEventDefault);
    at::cuda::CUDAEvent stop(cudaEventDefault);
    bool ok = c.execute(handle, plan, pack) == CUDNN_STATUS_SUCCESS;
    const auto s = c10::cuda::getCurrentCUDAStream();
    start.record(s);
    for (int i = 0; ok && i < kTimedRuns; ++i) {
        ok = c.execute(handle, plan, pack) == CUDNN_STATUS_SUCCESS;
    }
    stop.record(s);
    stop.synchronize();
    c.destroy(pack);
    if (!ok) {
        return std::nullopt;
    }
    return start.elapsed_time(stop);
}

// The shape's candidate plans on `handle`: the heuristics' first configurations that build (at
// most kMaxCandidates). Host work only (runtime-fused kernels compile here: 0.3-1 s a plan), so
// builders with handles of their own may run at once.
std::unique_ptr<PlanEntry> buildCandidates(const Cudnn& c, HandleState& handle, const Shape& sh,
                                           const FusedConvParams& p)
{
    auto entry = std::make_unique<PlanEntry>();
    entry->handle = &handle;
    entry->uids = {kX, kW, kY};
    if (sh.affine) {
        entry->uids.insert(entry->uids.end(), {kScale, kShift});
    }
    if (sh.residual) {
        entry->uids.push_back(kResidual);
    }
    Desc graph = operationGraph(c, handle.handle, sh, p, entry->owned);
    std::vector<Desc> configs = graph ? configurations(c, graph, entry->owned)
                                      : std::vector<Desc>();
    for (Desc cfg : configs) {
        if (int(entry->candidates.size()) == kMaxCandidates) {
            break;
        }
        Desc plan = nullptr;
        if (c.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) != CUDNN_STATUS_SUCCESS) {
            break;
        }
        std::int64_t workspace = 0;
        std::int64_t got = 0;
        if (c.set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle.handle) !=
                CUDNN_STATUS_SUCCESS ||
            c.set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                  1, &cfg) != CUDNN_STATUS_SUCCESS ||
            c.finalize(plan) != CUDNN_STATUS_SUCCESS ||
            c.get(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                  &workspace) != CUDNN_STATUS_SUCCESS ||
            workspace < 0) {
            c.destroy(plan);
            continue;
        }
        entry->candidates.push_back({plan, workspace});
    }
    return entry;
}

// Times the entry's candidates on `pointers` (the handle set to the current stream) and keeps
// the fastest. Null when none runs. Counts the shape in totals(), with `buildMs` of building its
// candidates.
std::unique_ptr<PlanEntry> chooseFastest(const Cudnn& c, std::unique_ptr<PlanEntry> entry,
                                         const std::vector<void*>& pointers, cudaStream_t stream,
                                         double buildMs)
{
    const auto began = std::chrono::steady_clock::now();
    std::optional<std::size_t> best;
    float bestMs = 0.0f;
    const bool ready = onStream(c, *entry->handle, stream);
    for (std::size_t i = 0; ready && i < entry->candidates.size(); ++i) {
        at::DataPtr workspace;
        if (entry->candidates[i].workspace > 0) {
            workspace = c10::cuda::CUDACachingAllocator::get()->allocate(
                std::size_t(entry->candidates[i].workspace));
        }
        const auto ms = timePlan(c, entry->handle->handle, entry->candidates[i].plan,
                                 entry->uids, pointers, workspace.get());
        if (ms && (!best || *ms < bestMs)) {
            best = i;
            bestMs = *ms;
        }
    }
    for (std::size_t i = 0; i < entry->candidates.size(); ++i) {
        if (!best || i != *best) {
            c.destroy(entry->candidates[i].plan);
        }
    }
    const double timingMs = msSince(began);
    {
        Totals& t = totals();
        std::lock_guard<std::mutex> lock(t.mutex);
        t.counts.candidates += int(entry->candidates.size());
        t.counts.buildMs += buildMs + timingMs;
        ++(best ? t.counts.shapes : t.counts.failed);
    }
    if (!best) {
        return nullptr;
    }
    entry->plan = entry->candidates[*best].plan;
    entry->owned.push_back(entry->plan);
    entry->workspace = entry->candidates[*best].workspace;
    entry->candidates.clear();
    return entry;
}

std::vector<std::int64_t> keyOf(c10::DeviceIndex device, const Shape& sh,
                                const FusedConvParams& params)
{
    std::vector<std::int64_t> key{device};
    key.insert(key.end(), sh.x.begin(), sh.x.end());
    key.insert(key.end(), sh.w.begin(), sh.w.end());
    for (std::size_t d = 0; d < 2; ++d) {
        key.push_back(params.stride[d]);
        key.push_back(params.padding[d]);
        key.push_back(params.dilation[d]);
    }
    key.push_back(sh.affine ? 1 : 0);
    key.push_back(sh.residual ? 1 : 0);
    key.push_back(params.relu ? 1 : 0);
    return key;
}

bool allowedNow()
{
    return !at::globalContext().deterministicAlgorithms() &&
           at::globalContext().allowTF32CuDNN();
}

bool denseChannelsLast(const at::Tensor& t)
{
    return t.dim() == 4 && t.is_contiguous(at::MemoryFormat::ChannelsLast);
}

bool aligned(const at::Tensor& t)
{
    return reinterpret_cast<std::uintptr_t>(t.const_data_ptr()) % 16 == 0;
}

#endif

} // namespace

std::optional<std::array<std::int64_t, 4>> fusedConvOutputSizes(
    const std::array<std::int64_t, 4>& x, const std::array<std::int64_t, 4>& w,
    const FusedConvParams& params)
{
    std::array<std::int64_t, 4> y{x[0], w[0], 0, 0};
    for (std::size_t d = 0; d < 2; ++d) {
        if (params.stride[d] < 1 || params.dilation[d] < 1 || params.padding[d] < 0) {
            return std::nullopt;
        }
        const std::int64_t span = params.dilation[d] * (w[2 + d] - 1) + 1;
        if (x[2 + d] + 2 * params.padding[d] < span) {
            return std::nullopt;
        }
        y[2 + d] = (x[2 + d] + 2 * params.padding[d] - span) / params.stride[d] + 1;
    }
    if (x[1] != w[1] || !std::all_of(y.begin(), y.end(), [](std::int64_t v) { return v >= 1; })) {
        return std::nullopt;
    }
    return y;
}

at::Tensor cudnnFusedConv(const at::Tensor& x, const at::Tensor& w, const at::Tensor& scale,
                          const at::Tensor& shift, const at::Tensor& residual,
                          const FusedConvParams& params)
{
#if defined(FXSCOPE_TORCH_CUDA) && defined(FXSCOPE_CUDNN)
    const Cudnn& c = cudnn();
    if (!c.ok() || !x.defined() || !w.defined() || scale.defined() != shift.defined() ||
        !x.is_cuda()) {
        return {};
    }
    const auto device = x.device();
    // An operand on the autograd graph: LibTorch's operators record the step, cuDNN would not.
    const bool recording = !c10::InferenceMode::is_enabled() && at::GradMode::is_enabled();
    for (const at::Tensor* t : {&x, &w, &scale, &shift, &residual}) {
        if (t->defined() && (t->scalar_type() != at::kFloat || t->device() != device ||
                             !aligned(*t) || t->is_neg() || t->is_conj() ||
                             (recording && t->requires_grad()))) {
            return {};
        }
    }
    if (!denseChannelsLast(x) || !denseChannelsLast(w) ||
        x.get_device() != c10::cuda::current_device()) {
        return {};
    }
    const std::int64_t k = w.size(0);
    for (const at::Tensor* t : {&scale, &shift}) {
        if (t->defined() && (t->dim() != 1 || t->size(0) != k || !t->is_contiguous())) {
            return {};
        }
    }
    if (!allowedNow()) {
        return {};
    }
    Shape sh;
    for (std::size_t i = 0; i < 4; ++i) {
        sh.x[i] = x.size(std::int64_t(i));
        sh.w[i] = w.size(std::int64_t(i));
    }
    const auto ySizes = fusedConvOutputSizes(sh.x, sh.w, params);
    if (!ySizes) {
        return {};
    }
    sh.y = *ySizes;
    sh.affine = scale.defined();
    sh.residual = residual.defined();
    if (sh.residual && (!denseChannelsLast(residual) ||
                        residual.sizes() != at::IntArrayRef(sh.y.data(), 4))) {
        return {};
    }
    at::Tensor y = at::detail::empty_cuda(at::IntArrayRef(sh.y.data(), 4), at::kFloat, device,
                                          at::MemoryFormat::ChannelsLast);
    std::vector<void*> pointers{const_cast<void*>(x.const_data_ptr()),
                                const_cast<void*>(w.const_data_ptr()), y.data_ptr()};
    if (sh.affine) {
        pointers.push_back(const_cast<void*>(scale.const_data_ptr()));
        pointers.push_back(const_cast<void*>(shift.const_data_ptr()));
    }
    if (sh.residual) {
        pointers.push_back(const_cast<void*>(residual.const_data_ptr()));
    }
    const std::vector<std::int64_t> key = keyOf(device.index(), sh, params);

    DeviceState& st = stateFor(device.index());
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!st.main.handle && c.create(&st.main.handle) != CUDNN_STATUS_SUCCESS) {
        st.main.handle = nullptr;
        return {};
    }
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device.index()).stream();
    auto found = st.plans.find(key);
    if (found == st.plans.end()) {
        if (c10::cuda::currentStreamCaptureStatusMayInitCtx() !=
            c10::cuda::CaptureStatus::None) {
            return {}; // building times plans: not inside a capture
        }
        const auto began = std::chrono::steady_clock::now();
        auto built = buildCandidates(c, st.main, sh, params);
        found = st.plans
                    .emplace(key, chooseFastest(c, std::move(built), pointers, stream,
                                                msSince(began)))
                    .first;
    }
    PlanEntry* entry = found->second.get();
    if (!entry || !onStream(c, *entry->handle, stream)) {
        return {};
    }
    at::DataPtr workspace;
    if (entry->workspace > 0) {
        workspace =
            c10::cuda::CUDACachingAllocator::get()->allocate(std::size_t(entry->workspace));
    }
    Desc pack = nullptr;
    if (entry->workspace == 0) { // a workspace is new memory each call: no pack kept
        for (const auto& p : entry->packs) {
            if (p.pack && p.pointers == pointers) {
                pack = p.pack;
                break;
            }
        }
    }
    Desc made = nullptr;
    if (!pack) {
        made = variantPack(c, entry->uids, pointers, workspace.get());
        if (!made) {
            return {};
        }
        pack = made;
    }
    if (c.execute(entry->handle->handle, entry->plan, pack) != CUDNN_STATUS_SUCCESS) {
        if (made) {
            c.destroy(made);
        }
        return {};
    }
    if (made && entry->workspace == 0) {
        auto& slot = entry->packs[entry->nextPack];
        entry->nextPack = (entry->nextPack + 1) % entry->packs.size();
        if (slot.pack) {
            c.destroy(slot.pack);
        }
        slot.pack = made;
        slot.pointers = std::move(pointers);
    } else if (made) {
        c.destroy(made);
    }
    ++g_calls;
    return y;
#else
    (void)x;
    (void)w;
    (void)scale;
    (void)shift;
    (void)residual;
    (void)params;
    return {};
#endif
}

int prebuildFusedConvPlans(const std::vector<FusedConvShape>& shapes, int threads)
{
#if defined(FXSCOPE_TORCH_CUDA) && defined(FXSCOPE_CUDNN)
    const Cudnn& c = cudnn();
    if (!c.ok() || shapes.empty() || !allowedNow() ||
        c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None) {
        return 0;
    }
    const c10::DeviceIndex device = c10::cuda::current_device();
    struct Job {
        Shape sh;
        FusedConvParams params;
        std::vector<std::int64_t> key;
        std::unique_ptr<PlanEntry> entry;
    };
    DeviceState& st = stateFor(device);
    std::lock_guard<std::mutex> lock(st.mutex);
    std::vector<Job> jobs;
    std::set<std::vector<std::int64_t>> seen;
    for (const FusedConvShape& f : shapes) {
        Job j;
        j.sh.x = f.x;
        j.sh.w = f.w;
        j.sh.residual = f.residual;
        j.params = f.params;
        const auto ySizes = fusedConvOutputSizes(j.sh.x, j.sh.w, j.params);
        if (!ySizes) {
            continue;
        }
        j.sh.y = *ySizes;
        j.key = keyOf(device, j.sh, j.params);
        if (st.plans.count(j.key) == 0 && seen.insert(j.key).second) {
            jobs.push_back(std::move(j));
        }
    }
    const int wanted = std::clamp(threads, 1, std::max(1, int(jobs.size())));
    while (int(st.builders.size()) < wanted) {
        auto h = std::make_unique<HandleState>();
        if (c.create(&h->handle) != CUDNN_STATUS_SUCCESS) {
            break;
        }
        st.builders.push_back(std::move(h));
    }
    if (jobs.empty() || st.builders.empty()) {
        return 0;
    }
    const auto began = std::chrono::steady_clock::now();
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    const int workers = std::min(wanted, int(st.builders.size()));
    for (int i = 0; i < workers; ++i) {
        pool.emplace_back([&, i] {
            try {
                c10::cuda::set_device(device);
                for (std::size_t j; (j = next++) < jobs.size();) {
                    jobs[j].entry =
                        buildCandidates(c, *st.builders[std::size_t(i)], jobs[j].sh,
                                        jobs[j].params);
                }
            } catch (const std::exception&) {
                // the jobs left without an entry are built on their first call
            }
        });
    }
    for (auto& t : pool) {
        t.join();
    }
    const double wallMs = msSince(began);
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device).stream();
    const auto options = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, device);
    const auto nhwc = options.memory_format(at::MemoryFormat::ChannelsLast);
    int built = 0;
    for (Job& j : jobs) {
        if (!j.entry) {
            continue;
        }
        const at::Tensor x = at::zeros(at::IntArrayRef(j.sh.x.data(), 4), nhwc);
        const at::Tensor w = at::zeros(at::IntArrayRef(j.sh.w.data(), 4), nhwc);
        const at::Tensor y = at::zeros(at::IntArrayRef(j.sh.y.data(), 4), nhwc);
        const at::Tensor r = j.sh.residual ? at::zeros(at::IntArrayRef(j.sh.y.data(), 4), nhwc)
                                           : at::Tensor();
        const at::Tensor scale = at::zeros({j.sh.w[0]}, options);
        const at::Tensor shift = at::zeros({j.sh.w[0]}, options);
        std::vector<void*> pointers{x.data_ptr(), w.data_ptr(), y.data_ptr(), scale.data_ptr(),
                                    shift.data_ptr()};
        if (r.defined()) {
            pointers.push_back(r.data_ptr());
        }
        auto entry = chooseFastest(c, std::move(j.entry), pointers, stream,
                                   wallMs / double(jobs.size()));
        built += entry ? 1 : 0;
        st.plans.emplace(j.key, std::move(entry));
    }
    return built;
#else
    (void)shapes;
    (void)threads;
    return 0;
#endif
}

bool cudnnFusedConvAvailable()
{
#if defined(FXSCOPE_TORCH_CUDA) && defined(FXSCOPE_CUDNN)
    return cudnn().ok();
#else
    return false;
#endif
}

long cudnnFusedConvCount()
{
    return g_calls.load();
}

CudnnPlanCounts cudnnPlanCounts()
{
#if defined(FXSCOPE_TORCH_CUDA) && defined(FXSCOPE_CUDNN)
    Totals& t = totals();
    std::lock_guard<std::mutex> lock(t.mutex);
    return t.counts;
#else
    return {};
#endif
}

} // namespace fxs::exec::detail
