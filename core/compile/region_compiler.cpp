#include "core/compile/region_compiler.h"

#include "core/cache/region_canon.h"
#include "core/codegen/cpp_printer.h"
#include "core/codegen/lowering.h"
#include "core/compile/artifact_provider.h"
#include "core/compile/kernel_call.h"
#include "core/compile/prepared_region.h"
#include "core/compile/region_dump.h"
#include "core/compile/region_graph.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>
#include <torch/version.h>

#include <chrono>
#include <cstdlib>

namespace fxs::compile {
namespace {

using Clock = std::chrono::steady_clock;
using cache::Reason;
using detail::failWith;
using detail::KernelInput;
using detail::PreparedRegion;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Region options are JSON object text: keys sorted, no whitespace, so equal options give
// equal digests however they were written. Text that is not JSON is kept as is.
std::string canonicalOptions(const std::string& text)
{
    if (text.empty()) {
        return "{}";
    }
    auto j = nlohmann::json::parse(text, nullptr, false);
    return j.is_discarded() ? text : dumpJson(j);
}

std::string deviceText(const at::Tensor& t)
{
    return t.is_cuda() ? "cuda:" + std::to_string(t.get_device()) : "cpu";
}

// A tensor as kernels take it, or the cause that they cannot (its dtype, its device).
KernelInput kernelInput(const std::string& name, const at::Tensor& t, graph::DType dtype,
                        const std::vector<std::int64_t>& sizes,
                        const std::vector<std::int64_t>& strides)
{
    if (t.is_cuda()) {
        return {std::nullopt, {codegen::RefusalKind::Shape,
                               name + " is on " + deviceText(t) +
                                   "; generated kernels run on the CPU"}};
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
    }
    return "?";
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

std::string libtorchVersion() { return TORCH_VERSION; }

struct RegionCompiler::Impl {
    CompileOptions options;

    Status prepareInputs(const graph::Graph& g, const RegionSpec& r,
                         const exec::ValueStore& values, PreparedRegion& p, RegionOutcome& out);
    Status prepareKernel(PreparedRegion& p, RegionOutcome& out, detail::PassClock& clock);
    KernelInput specOf(PreparedRegion& p, graph::NodeId id);
    void run(const graph::Graph& g, const RegionSpec& r, const exec::ValueStore& values,
             RegionOutcome& out);
    void runPasses(const graph::Graph& g, const RegionSpec& r, const exec::ValueStore& values,
                   PreparedRegion& p, RegionOutcome& out);
    Status compiled(PreparedRegion& p, RegionOutcome& out,
                    const std::vector<at::Tensor>& eagerOut, detail::PassClock& clock);
    Result<exec::RunReport> runEager(PreparedRegion& p, int repeat,
                                     const std::vector<std::string>& keep);
    Status timeEager(PreparedRegion& p, RegionOutcome& out, std::vector<at::Tensor>& eagerOut);
    Status timeCompiled(PreparedRegion& p, const SharedLibrary& lib, RegionOutcome& out,
                        std::vector<at::Tensor>& compiledOut);
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
        if (t.is_cuda() && p.unsupportedInput.empty()) {
            p.unsupportedInput = "input " + n.name + " is on " + deviceText(t) +
                                 "; generated kernels run on the CPU";
        }
        p.inputSpecs[p.sig.inputs[i]] =
            kernelInput("input " + n.name, t, h->dtype(), h->sizes(), h->strides());
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
    clock.mark("schedule");
    if (p.schedule.programs.empty()) {
        const std::string why = p.schedule.externReason.empty()
                                    ? "the region holds only views; nothing to compute"
                                    : p.schedule.externReason;
        return failWith(out, reasonOf(p.schedule.externKind),
                        makeError(ErrorCode::Unsupported, "no node is generated: " + why));
    }
    auto runner = detail::ScheduleRunner::create(*p.graph, p.schedule, p.sig.inputs, p.sig.outputs);
    if (!runner) {
        return failWith(out, Reason::FallbackEagerFailed, runner.error());
    }
    p.runner = std::move(*runner);
    p.source = codegen::printSchedule(p.schedule.programs);
    clock.mark("print");
    auto id = identifyCompiler(options.compiler);
    if (!id) {
        return failWith(out, Reason::FallbackCompilerMissing, id.error());
    }
    p.key.add(cache::kLabelOptions, canonicalOptions(p.options))
        .add(cache::kLabelCodegen, cache::kCodegenVersion)
        .add(cache::kLabelCompiler, id->keyText())
        .add(cache::kLabelTorch, libtorchVersion())
        .add(cache::kLabelIsa, id->isa)
        .add(cache::kLabelSchedule, detail::scheduleText(p.schedule, p.sig.order));
    clock.mark("key");
    return {};
}

// Buffers of values extern steps make come from one eager run of the region that keeps every
// value (run once, only when a generated step reads such a value).
KernelInput RegionCompiler::Impl::specOf(PreparedRegion& p, graph::NodeId id)
{
    if (auto it = p.inputSpecs.find(id); it != p.inputSpecs.end()) {
        return it->second;
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
    return kernelInput(name, exec::tensorOf(*h), h->dtype(), h->sizes(), h->strides());
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
    o.device = exec::DevicePref::Cpu;
    return exec::Interpreter::run(*p.regionGraph, o);
}

Status RegionCompiler::Impl::timeEager(PreparedRegion& p, RegionOutcome& out,
                                       std::vector<at::Tensor>& eagerOut)
{
    auto run = runEager(p, std::max(1, options.timingRepeats), {});
    if (!run || !run->ok) {
        return failWith(out, Reason::FallbackEagerFailed,
                        run ? makeError(ErrorCode::Unsupported,
                                        "the eager engine cannot run this region")
                            : run.error());
    }
    out.eagerMs = run->totalMs;
    for (std::size_t i = 0; i < p.sig.outputs.size(); ++i) {
        const exec::TensorHandle* h = run->kept.find("output." + std::to_string(i));
        if (!h) {
            return failWith(out, Reason::FallbackInternal,
                            makeError(ErrorCode::Internal,
                                      "eager run kept no output " + std::to_string(i)));
        }
        eagerOut.push_back(exec::tensorOf(*h));
    }
    return {};
}

Status RegionCompiler::Impl::timeCompiled(PreparedRegion& p, const SharedLibrary& lib,
                                          RegionOutcome& out, std::vector<at::Tensor>& compiledOut)
{
    auto warm = p.runner->run(lib, p.inputs);
    if (!warm) {
        return failWith(out, Reason::FallbackRunFailed, warm.error());
    }
    const int n = std::max(1, options.timingRepeats);
    out.compiledSamplesMs.clear();
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
        const auto ti = Clock::now();
        auto r = p.runner->run(lib, p.inputs);
        if (!r) {
            return failWith(out, Reason::FallbackRunFailed, r.error());
        }
        out.compiledSamplesMs.push_back(msSince(ti));
        compiledOut = std::move(*r);
    }
    out.compiledMs = msSince(t0) / n;
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
    out.source = p.source;
    detail::ArtifactProvider provider(options);
    auto loaded = provider.obtain(p, out);
    if (!loaded) {
        return loaded.error();
    }
    clock.mark(loaded->built ? "build" : "lookup");
    std::vector<at::Tensor> got;
    if (Status s = timeCompiled(p, *loaded->lib, out, got); !s) {
        return s;
    }
    clock.mark("run_compiled");
    const detail::Comparison c = detail::compareOutputs(got, eagerOut, p.inputs);
    out.maxAbsErr = c.maxAbsErr;
    provider.record(p, out, *loaded, c);
    clock.mark("verify");
    if (!c.ok) {
        return failWith(out, Reason::FallbackVerifyFailed,
                        makeError(ErrorCode::Runtime,
                                  "verification against eager failed: " + c.problem));
    }
    out.outputs.clear();
    for (auto& t : got) {
        out.outputs.push_back(exec::makeHandle(std::move(t)));
    }
    return {};
}

void RegionCompiler::Impl::run(const graph::Graph& g, const RegionSpec& r,
                               const exec::ValueStore& values, RegionOutcome& out)
{
    PreparedRegion p;
    runPasses(g, r, values, p, out);
    if (!options.dumpDir.empty()) {
        // A dump that cannot be written costs the dump, not the region.
        (void)detail::dumpRegion(options.dumpDir, p, out);
    }
}

void RegionCompiler::Impl::runPasses(const graph::Graph& g, const RegionSpec& r,
                                     const exec::ValueStore& values, PreparedRegion& p,
                                     RegionOutcome& out)
{
    p.options = r.options;
    detail::PassClock clock(out.passes);
    auto fallback = [&](const Error& e) {
        out.state = RegionState::Fallback;
        if (cache::reasonCategory(out.reason) != cache::ReasonCategory::Fallback) {
            out.reason = Reason::FallbackInternal;
        }
        out.headline = cache::headline(out.reason, e.message + (e.where.empty() ? "" : " (" +
                                                                                         e.where +
                                                                                         ")"));
        out.compiledMs = out.eagerMs;
    };
    if (Status s = prepareInputs(g, r, values, p, out); !s) {
        return fallback(s.error());
    }
    for (graph::NodeId id : p.sig.outputs) {
        out.outputNames.push_back(g.node(id).name);
    }
    clock.mark("canonicalize");
    std::vector<at::Tensor> eagerOut;
    if (Status s = timeEager(p, out, eagerOut); !s) {
        return fallback(s.error());
    }
    clock.mark("eager");
    for (const auto& t : eagerOut) {
        out.outputs.push_back(exec::makeHandle(t));
    }
    if (Status s = compiled(p, out, eagerOut, clock); !s) {
        fallback(s.error());
    }
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
