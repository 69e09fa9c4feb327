#include "core/compile/region_compiler.h"

#include "core/cache/region_canon.h"
#include "core/codegen/cpp_printer.h"
#include "core/codegen/lowering.h"
#include "core/compile/artifact_provider.h"
#include "core/compile/kernel_call.h"
#include "core/compile/prepared_region.h"
#include "core/compile/region_dump.h"
#include "core/compile/region_graph.h"
#include "core/cuda/device.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/util/elapsed.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace fxs::compile {
namespace {

using Clock = std::chrono::steady_clock;
using cache::Reason;

// Timed runs each side needs before a region may be dropped as slower than eager.
constexpr int kMinRunsToDrop = 3;
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

std::int64_t bytesOf(const std::vector<at::Tensor>& ts)
{
    std::int64_t n = 0;
    for (const auto& t : ts) {
        n += std::int64_t(t.nbytes());
    }
    return n;
}

// The generated steps of a schedule that has none (the eager schedule of a region).
class NoCode : public detail::GeneratedCode {
public:
    Result<std::vector<at::Tensor>> run(int, const codegen::RegionProgram& prog,
                                        const std::vector<at::Tensor>&) const override
    {
        return makeError(ErrorCode::Internal, "an eager schedule has no generated step",
                         prog.region);
    }
};

// The whole region as one extern step: eager through the same lean execution plan the
// compiled schedule's extern steps use, so both sides are timed alike on the GPU.
detail::RegionSchedule eagerSchedule(const cache::RegionSignature& sig)
{
    detail::RegionSchedule s;
    detail::ScheduleStep step;
    step.nodes = sig.order;
    step.inputs = sig.inputs;
    step.outputs = sig.outputs;
    s.steps.push_back(step);
    s.externNodes = int(sig.order.size());
    return s;
}

// The region falls back: its reason (a fallback reason recorded by failWith, else internal)
// and the headline made from it and the error.
void markFallback(RegionOutcome& out, const Error& e)
{
    out.state = RegionState::Fallback;
    if (cache::reasonCategory(out.reason) != cache::ReasonCategory::Fallback) {
        out.reason = Reason::FallbackInternal;
    }
    out.headline =
        cache::headline(out.reason, e.message + (e.where.empty() ? "" : " (" + e.where + ")"));
}

double meanOf(const std::vector<double>& v)
{
    double sum = 0;
    for (double x : v) {
        sum += x;
    }
    return v.empty() ? 0.0 : sum / double(v.size());
}

double spreadOf(const std::vector<double>& v)
{
    if (v.empty()) {
        return 0.0;
    }
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi - *lo;
}

std::string msText(double ms)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", ms);
    return buf;
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

// The region as it will run again: the layouts its kernels were specialised on, and nothing of
// this run's tensors.
std::shared_ptr<const LoadedRegion> keepLoaded(std::shared_ptr<PreparedRegion> p)
{
    auto loaded = std::make_shared<LoadedRegion>();
    for (const auto& t : p->inputs) {
        loaded->inputSizes.push_back(t.sizes().vec());
        loaded->inputStrides.push_back(t.strides().vec());
    }
    p->inputs.clear();
    p->probed = exec::ValueStore();
    loaded->prepared = std::move(p);
    return loaded;
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

struct RegionCompiler::Impl {
    CompileOptions options;

    bool cuda() const { return options.device == TargetDevice::Cuda; }
    Status prepareInputs(const graph::Graph& g, const RegionSpec& r,
                         const exec::ValueStore& values, PreparedRegion& p, RegionOutcome& out);
    Status prepareFromMeta(const graph::Graph& g, const RegionSpec& r, PreparedRegion& p,
                           RegionOutcome& out);
    Status prepareKernel(PreparedRegion& p, RegionOutcome& out, detail::PassClock& clock);
    KernelInput specOf(PreparedRegion& p, graph::NodeId id);
    void run(const graph::Graph& g, const RegionSpec& r, const exec::ValueStore& values,
             RegionOutcome& out);
    void runPasses(const graph::Graph& g, const RegionSpec& r, const exec::ValueStore& values,
                   PreparedRegion& p, RegionOutcome& out);
    void buildOnly(const graph::Graph& g, const RegionSpec& r, PreparedRegion& p,
                   RegionOutcome& out);
    Status compiled(PreparedRegion& p, RegionOutcome& out,
                    const std::vector<at::Tensor>& eagerOut, detail::PassClock& clock);
    Result<exec::RunReport> runEager(PreparedRegion& p, int repeat,
                                     const std::vector<std::string>& keep);
    Status runEagerOnce(PreparedRegion& p, RegionOutcome& out, std::vector<at::Tensor>& eagerOut);
    Status timeEager(PreparedRegion& p, RegionOutcome& out, std::vector<at::Tensor>& eagerOut);
    bool useSavedTimings(RegionOutcome& out, const detail::ArtifactProvider::Loaded& loaded);
    void saveTimings(const RegionOutcome& out);
    Status timeBoth(PreparedRegion& p, const detail::ArtifactProvider::Loaded& loaded,
                    RegionOutcome& out, std::vector<at::Tensor>& got);
    Status timeEagerCuda(PreparedRegion& p, RegionOutcome& out,
                         std::vector<at::Tensor>& eagerOut);
    Status timeCompiled(PreparedRegion& p, const detail::GeneratedCode& code, RegionOutcome& out,
                        std::vector<at::Tensor>& compiledOut);
    std::vector<at::Tensor> reference64(PreparedRegion& p);
};

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
    detail::ScheduleRequest sr{p.graph, out.id, p.sig.order, p.sig.inputs,
                               p.sig.outputs, [&](graph::NodeId id) { return specOf(p, id); }};
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

Result<exec::RunReport> RegionCompiler::Impl::runEager(PreparedRegion& p, int repeat,
                                                       const std::vector<std::string>& keep)
{
    auto store = std::make_shared<exec::ValueStore>();
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
        store->set(p.regionGraph->node(p.regionGraph->placeholders()[i]).name,
                   exec::makeHandle(p.inputs[i]));
    }
    exec::RunOptions o;
    o.inputs = store;
    o.repeat = repeat;
    o.keep = keep;
    o.perNodeTiming = false;
    o.device = p.device.is_cuda() ? exec::DevicePref::Cuda : exec::DevicePref::Cpu;
    return exec::Interpreter::run(*p.regionGraph, o);
}

// The region run eagerly once, untimed: the outputs the compiled region is verified against.
Status RegionCompiler::Impl::runEagerOnce(PreparedRegion& p, RegionOutcome& out,
                                          std::vector<at::Tensor>& eagerOut)
{
    const detail::RegionSchedule schedule = eagerSchedule(p.sig); // the runner refers to it
    auto runner = detail::ScheduleRunner::create(*p.graph, schedule, p.sig.inputs, p.sig.outputs,
                                                 p.device);
    if (!runner) {
        return failWith(out, Reason::FallbackEagerFailed, runner.error());
    }
    auto r = (*runner)->run(NoCode(), p.inputs);
    if (!r) {
        return failWith(out, Reason::FallbackEagerFailed, r.error());
    }
    eagerOut = std::move(*r);
    return {};
}

Status RegionCompiler::Impl::timeEager(PreparedRegion& p, RegionOutcome& out,
                                       std::vector<at::Tensor>& eagerOut)
{
    if (p.device.is_cuda()) {
        return timeEagerCuda(p, out, eagerOut);
    }
    // The whole region as one extern step of a schedule: eager is timed the way the compiled
    // schedule is (the same runner, wall clock per run), so their spreads compare.
    const detail::RegionSchedule schedule = eagerSchedule(p.sig);
    auto runner = detail::ScheduleRunner::create(*p.graph, schedule, p.sig.inputs, p.sig.outputs,
                                                 p.device);
    if (!runner) {
        return failWith(out, Reason::FallbackEagerFailed, runner.error());
    }
    const NoCode none;
    std::vector<double> samples;
    for (int i = -1; i < std::max(1, options.timingRepeats); ++i) { // i == -1: warm-up
        const auto t0 = Clock::now();
        auto r = (*runner)->run(none, p.inputs);
        if (!r) {
            return failWith(out, Reason::FallbackEagerFailed, r.error());
        }
        if (i >= 0) {
            samples.push_back(msSince(t0));
        }
        eagerOut = std::move(*r);
    }
    out.eagerMs = meanOf(samples);
    out.eagerSpreadMs = spreadOf(samples);
    out.timing = "wall mean";
    return {};
}

Status RegionCompiler::Impl::timeEagerCuda(PreparedRegion& p, RegionOutcome& out,
                                           std::vector<at::Tensor>& eagerOut)
{
    const detail::RegionSchedule schedule = eagerSchedule(p.sig);
    auto runner = detail::ScheduleRunner::create(*p.graph, schedule, p.sig.inputs, p.sig.outputs,
                                                 p.device);
    if (!runner) {
        return failWith(out, Reason::FallbackEagerFailed, runner.error());
    }
    const NoCode none;
    auto t = detail::timeOnStream(p.cudaDevice, options.timingRepeats, [&]() -> Status {
        auto r = (*runner)->run(none, p.inputs);
        if (!r) {
            return r.error();
        }
        eagerOut = std::move(*r);
        return {};
    });
    if (!t) {
        return failWith(out, Reason::FallbackEagerFailed, t.error());
    }
    out.eagerMs = t->medianMs;
    out.eagerSpreadMs = t->spreadMs;
    out.eagerBackToBackMs = t->backToBackMs;
    out.timing = "cuda events median";
    return {};
}

Status RegionCompiler::Impl::timeCompiled(PreparedRegion& p, const detail::GeneratedCode& code,
                                          RegionOutcome& out, std::vector<at::Tensor>& compiledOut)
{
    if (p.device.is_cuda()) {
        auto t = detail::timeOnStream(p.cudaDevice, options.timingRepeats, [&]() -> Status {
            auto r = p.runner->run(code, p.inputs);
            if (!r) {
                return r.error();
            }
            compiledOut = std::move(*r);
            return {};
        });
        if (!t) {
            return failWith(out, Reason::FallbackRunFailed, t.error());
        }
        out.compiledMs = t->medianMs;
        out.compiledSpreadMs = t->spreadMs;
        out.compiledBackToBackMs = t->backToBackMs;
        out.compiledSamplesMs = t->samplesMs;
        return {};
    }
    auto warm = p.runner->run(code, p.inputs);
    if (!warm) {
        return failWith(out, Reason::FallbackRunFailed, warm.error());
    }
    const int n = std::max(1, options.timingRepeats);
    out.compiledSamplesMs.clear();
    for (int i = 0; i < n; ++i) {
        const auto ti = Clock::now();
        auto r = p.runner->run(code, p.inputs);
        if (!r) {
            return failWith(out, Reason::FallbackRunFailed, r.error());
        }
        out.compiledSamplesMs.push_back(msSince(ti));
        compiledOut = std::move(*r);
    }
    // The mean of the timed runs themselves (not the loop's wall time over n, which under load
    // can exceed every run), so that it lies within their range, as eager's does.
    out.compiledMs = meanOf(out.compiledSamplesMs);
    out.compiledSpreadMs = spreadOf(out.compiledSamplesMs);
    return {};
}

// The region run eagerly with its floating inputs widened to float64: what verification measures
// eager's own rounding against. Empty when it cannot run so (an operator without a float64
// kernel, a dtype the graph fixes that clashes): verification then keeps its dtype tolerances.
std::vector<at::Tensor> RegionCompiler::Impl::reference64(PreparedRegion& p)
{
    const detail::RegionSchedule schedule = eagerSchedule(p.sig);
    auto runner = detail::ScheduleRunner::create(*p.graph, schedule, p.sig.inputs, p.sig.outputs,
                                                 p.device);
    if (!runner) {
        return {};
    }
    std::vector<at::Tensor> wide;
    for (const auto& t : p.inputs) {
        wide.push_back(at::isFloatingType(t.scalar_type()) ? t.to(at::kDouble) : t);
    }
    auto r = (*runner)->run(NoCode(), wide);
    return r ? std::move(*r) : std::vector<at::Tensor>();
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

// The compiled path after eager ran: artifact from the cache or a build, verification against
// eager (a mismatch marks the entry bad), timing. An Error means: fall back to eager.
Status RegionCompiler::Impl::compiled(PreparedRegion& p, RegionOutcome& out,
                                      const std::vector<at::Tensor>& eagerOut,
                                      detail::PassClock& clock)
{
    if (Status s = prepareKernel(p, out, clock); !s) {
        return s;
    }
    out.key = p.key.key();
    out.transcript = p.key.transcript();
    out.source = p.code->source();
    out.target = p.code->target();
    detail::ArtifactProvider provider(options);
    auto loaded = provider.obtain(p, out);
    if (!loaded) {
        return loaded.error();
    }
    clock.mark(loaded->built ? "build" : "lookup");
    out.resources = p.code->resources();
    std::vector<at::Tensor> got;
    if (Status s = timeBoth(p, *loaded, out, got); !s) {
        return s;
    }
    clock.mark("run_compiled");
    const detail::Comparison c =
        detail::compareOutputs(got, eagerOut, p.inputs, reference64(p));
    out.maxAbsErr = c.maxAbsErr;
    out.bytesMoved = bytesOf(p.inputs) + bytesOf(got);
    provider.record(p, out, *loaded, c);
    clock.mark("verify");
    if (!c.ok) {
        return failWith(out, Reason::FallbackVerifyFailed,
                        makeError(ErrorCode::Runtime,
                                  "verification against eager failed: " + c.problem));
    }
    // One or two runs say nothing about noise: the verdict needs kMinRunsToDrop of each.
    bool lost = false;
    if (options.timingRepeats >= kMinRunsToDrop) {
        const double em = out.eagerMs, es = out.eagerSpreadMs;
        const double cm = out.compiledMs, cs = out.compiledSpreadMs;
        lost = options.slower ? options.slower(em, es, cm, cs) : slowerThanEager(em, es, cm, cs);
    }
    if (lost) {
        const std::string numbers =
            "compiled " + msText(out.compiledMs) + " ms (spread " + msText(out.compiledSpreadMs) +
            ") vs eager " + msText(out.eagerMs) + " ms (spread " + msText(out.eagerSpreadMs) + ")";
        provider.rejectSlower(out, numbers);
        return failWith(out, Reason::SlowerThanEager, makeError(ErrorCode::Runtime, numbers));
    }
    out.outputs.clear();
    for (auto& t : got) {
        out.outputs.push_back(exec::makeHandle(std::move(t)));
    }
    p.loadedCode = loaded->code;
    saveTimings(out);
    return {};
}

// A verified hit with timings saved for this device: they are reported (timingsFromEntry)
// and the compiled region runs once, for verification. Re-timing is asked for, a build, an
// unverified entry or no saved timings: false.
bool RegionCompiler::Impl::useSavedTimings(RegionOutcome& out,
                                           const detail::ArtifactProvider::Loaded& loaded)
{
    if (options.retime || !options.store || loaded.built || loaded.unverified) {
        return false;
    }
    auto saved = options.store->timing(out.key, out.device);
    if (!saved || !*saved) {
        return false;
    }
    const cache::RegionTiming& t = **saved;
    out.eagerMs = t.eagerMs;
    out.eagerSpreadMs = t.eagerSpreadMs;
    out.compiledMs = t.compiledMs;
    out.compiledSpreadMs = t.compiledSpreadMs;
    out.eagerBackToBackMs = t.eagerBackToBackMs;
    out.compiledBackToBackMs = t.compiledBackToBackMs;
    out.timing = t.timing;
    out.timingsFromEntry = true;
    return true;
}

// Eager and compiled timed now (after eager's untimed run), or the entry's saved timings and
// one compiled run.
Status RegionCompiler::Impl::timeBoth(PreparedRegion& p,
                                      const detail::ArtifactProvider::Loaded& loaded,
                                      RegionOutcome& out, std::vector<at::Tensor>& got)
{
    if (useSavedTimings(out, loaded)) {
        auto r = p.runner->run(*loaded.code, p.inputs);
        if (!r) {
            return failWith(out, Reason::FallbackRunFailed, r.error());
        }
        got = std::move(*r);
        return {};
    }
    std::vector<at::Tensor> unused; // the same values as eager's untimed run
    if (Status s = timeEager(p, out, unused); !s) {
        return s;
    }
    return timeCompiled(p, *loaded.code, out, got);
}

// Timings measured now for a verified region, saved for later hits on this device. A store
// that cannot be written costs the saving, not the region.
void RegionCompiler::Impl::saveTimings(const RegionOutcome& out)
{
    if (!options.store || out.timingsFromEntry || out.key.empty() || out.device.empty()) {
        return;
    }
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    (void)options.store->saveTiming(out.key, out.device,
                                    {out.eagerMs, out.eagerSpreadMs, out.compiledMs,
                                     out.compiledSpreadMs, out.eagerBackToBackMs,
                                     out.compiledBackToBackMs, out.timing, now.count()});
}

void RegionCompiler::Impl::run(const graph::Graph& g, const RegionSpec& r,
                               const exec::ValueStore& values, RegionOutcome& out)
{
    auto p = std::make_shared<PreparedRegion>();
    if (options.buildOnly) {
        buildOnly(g, r, *p, out);
    } else {
        runPasses(g, r, values, *p, out);
    }
    if (!options.dumpDir.empty()) {
        // A dump that cannot be written costs the dump, not the region.
        (void)detail::dumpRegion(options.dumpDir, *p, out);
    }
    if (options.keepLoaded && p->loadedCode && out.state != RegionState::Fallback) {
        out.loaded = keepLoaded(std::move(p));
    }
}

void RegionCompiler::Impl::runPasses(const graph::Graph& g, const RegionSpec& r,
                                     const exec::ValueStore& values, PreparedRegion& p,
                                     RegionOutcome& out)
{
    p.options = r.options;
    detail::PassClock clock(out.passes);
    bool eagerRan = false;
    auto fallback = [&](const Error& e) {
        // A fallback after eager ran reports eager's time as its own (timed now unless it
        // was); the fallback's reason stays its own whatever that timing meets.
        if (eagerRan && out.timing.empty()) {
            const Reason why = out.reason;
            std::vector<at::Tensor> unused;
            (void)timeEager(p, out, unused);
            out.reason = why;
        }
        markFallback(out, e);
        out.compiledMs = out.eagerMs;
        out.compiledSpreadMs = out.eagerSpreadMs;
        out.compiledBackToBackMs = out.eagerBackToBackMs;
    };
    if (Status s = prepareInputs(g, r, values, p, out); !s) {
        return fallback(s.error());
    }
    out.device = p.device.str();
    for (graph::NodeId id : p.sig.outputs) {
        out.outputNames.push_back(g.node(id).name);
    }
    clock.mark("canonicalize");
    std::vector<at::Tensor> eagerOut;
    if (Status s = runEagerOnce(p, out, eagerOut); !s) {
        return fallback(s.error());
    }
    eagerRan = true;
    clock.mark("eager");
    out.bytesMoved = bytesOf(p.inputs) + bytesOf(eagerOut);
    for (const auto& t : eagerOut) {
        out.outputs.push_back(exec::makeHandle(t));
    }
    if (Status s = compiled(p, out, eagerOut, clock); !s) {
        fallback(s.error());
    }
}

void RegionCompiler::Impl::buildOnly(const graph::Graph& g, const RegionSpec& r,
                                     PreparedRegion& p, RegionOutcome& out)
{
    p.options = r.options;
    detail::PassClock clock(out.passes);
    if (Status s = prepareFromMeta(g, r, p, out); !s) {
        return markFallback(out, s.error());
    }
    clock.mark("canonicalize");
    if (Status s = prepareKernel(p, out, clock); !s) {
        return markFallback(out, s.error());
    }
    out.key = p.key.key();
    out.transcript = p.key.transcript();
    out.source = p.code->source();
    out.target = p.code->target();
    detail::ArtifactProvider provider(options);
    if (Status s = provider.buildOnly(p, out); !s) {
        return markFallback(out, s.error());
    }
    clock.mark(out.state == RegionState::Built ? "build" : "lookup");
}

RegionOutcome RegionCompiler::compileAndRun(const graph::Graph& graph, const RegionSpec& region,
                                            const exec::ValueStore& values)
{
    RegionOutcome out;
    out.id = region.id;
    out.nodes = static_cast<int>(region.nodes.size());
    try {
        m_impl->run(graph, region, values, out);
    } catch (const std::exception& e) {
        out.state = RegionState::Fallback;
        out.reason = Reason::FallbackInternal;
        out.headline = cache::headline(out.reason, e.what());
        out.compiledMs = out.eagerMs;
    }
    if (cache::CacheStore* store = m_impl->options.store) {
        (void)store->count(out.reason); // statistics are best effort
    }
    return out;
}

} // namespace fxs::compile
