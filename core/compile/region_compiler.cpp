// The region compiler's facade and the preparing of a region (RegionCompiler::Impl,
// region_compiler_impl.h): canonical form and inputs (tensors, or the graph's meta when only
// building), schedule, generated code and cache key. The phases are region_phases.cpp; eager
// runs and timing region_runs.cpp.
#include "core/compile/region_compiler.h"

#include "core/cache/region_canon.h"
#include "core/codegen/cpp_printer.h"
#include "core/codegen/lowering.h"
#include "core/compile/region_compiler_impl.h"
#include "core/compile/region_graph.h"
#include "core/cuda/device.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>
#include <torch/version.h>

#include <cstdlib>
#include <exception>

namespace fxs::compile {
namespace {

using cache::Reason;
using detail::failWith;
using detail::KernelInput;
using detail::PreparedRegion;

// Region options are JSON object text: keys sorted, no whitespace, so equal options give
// equal digests however they were written. Text that is not JSON is kept as is.
std::string canonicalOptions(const std::string& text)
{
    if (text.empty()) {
        return "{}";
    }
    auto j = parseJsonOrDiscarded(text);
    return j.is_discarded() ? text : dumpJson(j);
}

std::string deviceText(const at::Tensor& t)
{
    return t.is_cuda() ? "cuda:" + std::to_string(t.get_device()) : "cpu";
}

// Why kernels for the target cannot take a tensor on t's device ("" when they can).
std::string deviceMismatch(const std::string& name, const at::Tensor& t, bool cudaTarget)
{
    if (t.is_cuda() == cudaTarget) {
        return {};
    }
    return name + " is on " + deviceText(t) +
           (cudaTarget ? "; the CUDA kernels need CUDA tensors"
                       : "; generated kernels run on the CPU");
}

// A tensor as kernels take it, or the cause that they cannot (its dtype, its device).
KernelInput kernelInput(const std::string& name, const at::Tensor& t, graph::DType dtype,
                        const std::vector<std::int64_t>& sizes,
                        const std::vector<std::int64_t>& strides, bool cudaTarget)
{
    if (std::string why = deviceMismatch(name, t, cudaTarget); !why.empty()) {
        return {std::nullopt, {codegen::RefusalKind::Shape, why}};
    }
    auto type = codegen::scalarTypeOf(dtype);
    if (!type) {
        return {std::nullopt, {codegen::RefusalKind::Dtype,
                               name + " is " + std::string(graph::dtypeTorchName(dtype)) +
                                   ", which the code generator does not support"}};
    }
    return {codegen::BufferSpec{name, *type, sizes, strides}, {}};
}


Reason reasonOf(codegen::RefusalKind kind)
{
    switch (kind) {
    case codegen::RefusalKind::Op: return Reason::FallbackUnsupportedOp;
    case codegen::RefusalKind::Dtype: return Reason::FallbackUnsupportedDtype;
    case codegen::RefusalKind::Shape: return Reason::FallbackNotLowered;
    }
    return Reason::FallbackInternal;
}

} // namespace

std::string_view regionStateName(RegionState s)
{
    switch (s) {
    case RegionState::Hit: return "hit";
    case RegionState::Miss: return "miss";
    case RegionState::Fallback: return "fallback";
    case RegionState::Built: return "built";
    }
    return "?";
}

std::string_view targetDeviceName(TargetDevice d)
{
    return d == TargetDevice::Cuda ? "cuda" : "cpu";
}

Tolerance toleranceFor(graph::DType t)
{
    switch (t) {
    case graph::DType::Float32: return {1e-4, 1e-5};
    case graph::DType::Float16: return {1e-2, 1e-3};
    case graph::DType::BFloat16: return {4e-2, 1e-2};
    case graph::DType::Float64: return {1e-7, 1e-9};
    default: return {0, 0};
    }
}

bool slowerThanEager(double eagerMs, double eagerSpreadMs, double compiledMs,
                     double compiledSpreadMs)
{
    return compiledMs - eagerMs > eagerSpreadMs + compiledSpreadMs;
}

std::string libtorchVersion() { return TORCH_VERSION; }

bool cudaRunnable() { return at::hasCUDA() && cuda::available(); }

namespace {

// A region without inputs has no tensor to take its device from: on a CUDA target it runs on
// the GPU the graph's values are on (the first CUDA value of the run), so its kernels load and
// its outputs sit where their readers are. Without this it stayed on the CPU and its CUDA code
// could not load (`fallback_load_failed`).
void placeWithoutInputs(const exec::ValueStore& values, PreparedRegion& p)
{
    for (const auto& [name, h] : values.values()) {
        if (h.defined() && exec::tensorOf(h).is_cuda()) {
            p.device = exec::tensorOf(h).device();
            p.cudaDevice = exec::tensorOf(h).get_device();
            return;
        }
    }
}

} // namespace

Status RegionCompiler::Impl::prepareInputs(const graph::Graph& g, const RegionSpec& r,
                                           const exec::ValueStore& values, PreparedRegion& p,
                                           RegionOutcome& out)
{
    p.graph = &g;
    p.sig = cache::canonicalizeRegion(g, r.nodes);
    p.key.add(cache::kLabelRegion, p.sig.text);
    for (std::size_t i = 0; i < p.sig.inputs.size(); ++i) {
        const graph::Node& n = g.node(p.sig.inputs[i]);
        const exec::TensorHandle* h = values.find(n.name);
        if (!h || !h->defined()) {
            return failWith(out, Reason::FallbackInputNotTensor,
                            makeError(ErrorCode::Unsupported, "input " + n.name +
                                                                  " is not a tensor", r.id));
        }
        const at::Tensor& t = exec::tensorOf(*h);
        p.inputs.push_back(t);
        if (t.is_cuda()) {
            p.device = t.device();
            p.cudaDevice = t.get_device();
        }
        if (p.unsupportedInput.empty()) {
            p.unsupportedInput = deviceMismatch("input " + n.name, t, cuda());
        }
        p.inputSpecs[p.sig.inputs[i]] =
            kernelInput("input " + n.name, t, h->dtype(), h->sizes(), h->strides(), cuda());
        p.key.add(cache::inputLabel(int(i)),
                  cache::canonicalTensorMeta(graph::dtypeTorchName(h->dtype()), h->sizes(),
                                             h->strides(), deviceText(t)));
    }
    if (p.sig.inputs.empty() && cuda()) {
        placeWithoutInputs(values, p); // constants and factories only (a mask built from arange)
    }
    auto rg = extractRegionGraph(g, p.sig.order, p.sig.inputs, p.sig.outputs);
    if (!rg) {
        return failWith(out, Reason::FallbackInternal, rg.error());
    }
    p.regionGraph = *rg;
    return {};
}

// Build-only: the graph's meta stands for the tensors (sizes, strides, dtype, device).
Status RegionCompiler::Impl::prepareFromMeta(const graph::Graph& g, const RegionSpec& r,
                                             PreparedRegion& p, RegionOutcome& out)
{
    p.graph = &g;
    p.sig = cache::canonicalizeRegion(g, r.nodes);
    p.key.add(cache::kLabelRegion, p.sig.text);
    for (std::size_t i = 0; i < p.sig.inputs.size(); ++i) {
        const graph::Node& n = g.node(p.sig.inputs[i]);
        const graph::TensorMeta* m = n.tensorMeta();
        auto spec = codegen::bufferSpecFromMeta(n);
        if (!m || !spec) {
            return failWith(out, Reason::FallbackInputNotTensor,
                            makeError(ErrorCode::Unsupported,
                                      "input " + n.name +
                                          " has no concrete tensor meta to build from",
                                      r.id));
        }
        p.inputSpecs[p.sig.inputs[i]] = KernelInput{*spec, {}};
        p.key.add(cache::inputLabel(int(i)), cache::canonicalTensorMeta(*m));
    }
    if (cuda() && cuda::available()) {
        p.cudaDevice = 0; // builds for this GPU's architecture unless one is asked for
    }
    return {};
}

Status RegionCompiler::Impl::prepareKernel(PreparedRegion& p, RegionOutcome& out,
                                           detail::PassClock& clock)
{
    if (!p.unsupportedInput.empty()) {
        return failWith(out, Reason::FallbackInputDevice,
                        makeError(ErrorCode::Unsupported, p.unsupportedInput, out.id));
    }
    detail::ScheduleRequest sr{p.graph,
                               out.id,
                               p.sig.order,
                               p.sig.inputs,
                               p.sig.outputs,
                               [&](graph::NodeId id) { return specOf(p, id); },
                               [&](graph::NodeId id) { return layoutOf(p, id); }};
    auto schedule = detail::scheduleRegion(sr);
    if (!schedule) {
        return failWith(out, Reason::FallbackInternal, schedule.error());
    }
    p.schedule = std::move(*schedule);
    out.externNodes = p.schedule.externNodes;
    out.kernels = 0;
    for (const auto& prog : p.schedule.programs) {
        out.kernels += int(prog.kernels.size());
    }
    clock.mark("schedule");
    if (p.schedule.programs.empty()) {
        const std::string why = p.schedule.externReason.empty()
                                    ? "the region holds only views; nothing to compute"
                                    : p.schedule.externReason;
        return failWith(out, reasonOf(p.schedule.externKind),
                        makeError(ErrorCode::Unsupported, "no node is generated: " + why));
    }
    if (!options.buildOnly) {
        auto runner = detail::ScheduleRunner::create(*p.graph, p.schedule, p.sig.inputs,
                                                     p.sig.outputs, p.device);
        if (!runner) {
            return failWith(out, Reason::FallbackEagerFailed, runner.error());
        }
        p.runner = std::move(*runner);
    }
    auto code = detail::TargetCode::create(options, p.cudaDevice, p.schedule);
    if (!code) {
        return failWith(out, cuda() ? Reason::FallbackCudaUnavailable
                                    : Reason::FallbackCompilerMissing,
                        code.error());
    }
    p.code = std::move(*code);
    clock.mark("print");
    p.key.add(cache::kLabelOptions, canonicalOptions(p.options))
        .add(cache::kLabelCodegen, cache::kCodegenVersion)
        .add(cache::kLabelTorch, libtorchVersion())
        .add(cache::kLabelSchedule, detail::scheduleText(p.schedule, p.sig.order));
    p.code->addKeyComponents(p.key);
    clock.mark("key");
    return {};
}

// Buffers of values extern steps make come from one eager run of the region that keeps every
// value (run once, only when a generated step reads such a value); when building only, from
// the graph's meta.
KernelInput RegionCompiler::Impl::specOf(PreparedRegion& p, graph::NodeId id)
{
    if (auto it = p.inputSpecs.find(id); it != p.inputSpecs.end()) {
        return it->second;
    }
    if (options.buildOnly) {
        const graph::Node& n = p.graph->node(id);
        if (auto spec = codegen::bufferSpecFromMeta(n)) {
            return {*spec, {}};
        }
        return {std::nullopt,
                {codegen::RefusalKind::Shape, n.name + " has no concrete tensor meta"}};
    }
    const std::string& name = p.graph->node(id).name;
    if (!p.probeRan) {
        p.probeRan = true;
        std::vector<std::string> keep;
        for (graph::NodeId n : p.sig.order) {
            keep.push_back(p.graph->node(n).name);
        }
        if (auto run = runEager(p, 1, keep); run && run->ok) {
            p.probed = std::move(run->kept);
        }
    }
    const exec::TensorHandle* h = p.probed.find(name);
    if (!h || !h->defined()) {
        return {std::nullopt, {codegen::RefusalKind::Shape, name + " is not a tensor"}};
    }
    return kernelInput(name, exec::tensorOf(*h), h->dtype(), h->sizes(), h->strides(), cuda());
}

// The strides eager gives a value a generated step makes: a region output's from the eager run;
// another's from the probe when it ran; when building only, the graph's printed strides.
// Empty when unknown (the kernel's layout decides: lowering.h's outputStrides).
std::vector<std::int64_t> RegionCompiler::Impl::layoutOf(const PreparedRegion& p,
                                                         graph::NodeId id) const
{
    if (auto it = p.eagerStrides.find(id); it != p.eagerStrides.end()) {
        return it->second;
    }
    const graph::Node& n = p.graph->node(id);
    if (const exec::TensorHandle* h = p.probed.find(n.name); h && h->defined()) {
        return h->strides();
    }
    const graph::TensorMeta* m = n.tensorMeta();
    if (options.buildOnly && m && m->strides) {
        if (auto spec = codegen::bufferSpecFromMeta(n)) {
            return spec->strides;
        }
    }
    return {};
}

RegionCompiler::RegionCompiler(CompileOptions options) : m_impl(std::make_unique<Impl>())
{
    m_impl->options = std::move(options);
    if (const char* env = std::getenv("FXSCOPE_DUMP_CODEGEN");
        m_impl->options.dumpDir.empty() && env && *env) {
        m_impl->options.dumpDir = env;
    }
}

RegionCompiler::~RegionCompiler() = default;

RegionOutcome RegionCompiler::compileAndRun(const graph::Graph& graph, const RegionSpec& region,
                                            const exec::ValueStore& values)
{
    try {
        Batch one = m_impl->compileAll(graph, {region}, values, CancelToken::none(), {});
        if (!one.regions.empty()) {
            return std::move(one.regions.front());
        }
    } catch (const std::exception& e) {
        RegionOutcome out;
        out.id = region.id;
        out.nodes = static_cast<int>(region.nodes.size());
        out.reason = Reason::FallbackInternal;
        out.headline = cache::headline(out.reason, e.what());
        return out;
    }
    RegionOutcome out; // not reached: a batch without a token finishes every region
    out.id = region.id;
    return out;
}

RegionCompiler::Batch RegionCompiler::compileAll(const graph::Graph& graph,
                                                 const std::vector<RegionSpec>& regions,
                                                 const exec::ValueStore& values,
                                                 const CancelToken& cancel,
                                                 const ProgressSink& progress)
{
    try {
        return m_impl->compileAll(graph, regions, values, cancel, progress);
    } catch (const std::exception& e) {
        // Only allocation can throw outside a region's own guard: the regions are lost.
        Batch b;
        for (const auto& r : regions) {
            RegionOutcome out;
            out.id = r.id;
            out.nodes = static_cast<int>(r.nodes.size());
            out.reason = Reason::FallbackInternal;
            out.headline = cache::headline(out.reason, e.what());
            b.regions.push_back(std::move(out));
        }
        return b;
    }
}

} // namespace fxs::compile
