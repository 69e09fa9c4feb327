#include "core/compile/region_compiler.h"

#include "core/cache/cache_explain.h"
#include "core/cache/cache_paths.h"
#include "core/cache/region_canon.h"
#include "core/codegen/cpp_printer.h"
#include "core/codegen/lowering.h"
#include "core/compile/kernel_call.h"
#include "core/compile/region_graph.h"
#include "core/compile/region_schedule.h"
#include "core/compile/schedule_runner.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/util/digest.h"
#include "core/util/file_reader.h"

#include <nlohmann/json.hpp>
#include <torch/version.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <unistd.h>

namespace fxs::compile {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Everything known about a region before any artifact exists.
struct Prepared {
    const graph::Graph* graph = nullptr;
    cache::RegionSignature sig;
    std::vector<at::Tensor> inputs;
    std::string unsupportedInput; // why the kernels cannot run here (eager still runs)
    std::map<graph::NodeId, codegen::BufferSpec> inputSpecs; // inputs kernels can take
    detail::RegionSchedule schedule;
    std::unique_ptr<detail::ScheduleRunner> runner;
    exec::ValueStore probed; // values extern steps make, from one eager run (when needed)
    bool probeRan = false;
    std::string source;
    cache::KeyBuilder key;
    graph::GraphPtr regionGraph;
    std::string options;
};

// Region options are JSON object text: keys sorted, no whitespace, so equal options give
// equal digests however they were written. Text that is not JSON is kept as is.
std::string canonicalOptions(const std::string& text)
{
    if (text.empty()) {
        return "{}";
    }
    auto j = nlohmann::json::parse(text, nullptr, false);
    return j.is_discarded() ? text : j.dump();
}

std::string deviceText(const at::Tensor& t)
{
    return t.is_cuda() ? "cuda:" + std::to_string(t.get_device()) : "cpu";
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
    std::string artifactDir;

    Status ensureArtifactDir();
    Status prepareInputs(const graph::Graph& g, const RegionSpec& r,
                         const exec::ValueStore& values, Prepared& p);
    Status prepareKernel(const RegionSpec& r, Prepared& p);
    std::optional<codegen::BufferSpec> specOf(Prepared& p, graph::NodeId id);
    void run(const graph::Graph& g, const RegionSpec& r, const exec::ValueStore& values,
             RegionOutcome& out);
    Status compiled(Prepared& p, RegionOutcome& out, const std::vector<at::Tensor>& eagerOut);
    // Hit: loads the cached artifact. Returns nullptr with outcome filled on a miss.
    Result<std::shared_ptr<SharedLibrary>> fromCache(Prepared& p, RegionOutcome& out);
    Result<std::shared_ptr<SharedLibrary>> build(Prepared& p, RegionOutcome& out,
                                                 std::string& soBytes);
    Result<std::shared_ptr<SharedLibrary>> loadBytes(const std::string& key,
                                                     const std::string& so, int entries);
    Result<exec::RunReport> runEager(Prepared& p, int repeat, const std::vector<std::string>& keep);
    Status timeEager(Prepared& p, RegionOutcome& out, std::vector<at::Tensor>& eagerOut);
    Status timeCompiled(Prepared& p, const SharedLibrary& lib, RegionOutcome& out,
                        std::vector<at::Tensor>& compiledOut);
    void insert(Prepared& p, RegionOutcome& out, const std::string& so, bool verified,
                const std::string& reason);
};

Status RegionCompiler::Impl::ensureArtifactDir()
{
    if (!artifactDir.empty()) {
        return {};
    }
    if (options.store) {
        artifactDir = cache::parentDir(options.store->path()) + "/artifacts";
        return cache::ensurePrivateDir(artifactDir);
    }
    char tmpl[] = "/tmp/fxscope-artifacts-XXXXXX";
    if (!::mkdtemp(tmpl)) {
        return makeError(ErrorCode::Io, "cannot create a temporary artifact directory");
    }
    artifactDir = tmpl;
    return {};
}

Status RegionCompiler::Impl::prepareInputs(const graph::Graph& g, const RegionSpec& r,
                                           const exec::ValueStore& values, Prepared& p)
{
    p.graph = &g;
    p.sig = cache::canonicalizeRegion(g, r.nodes);
    p.key.add(cache::kLabelRegion, p.sig.text);
    for (std::size_t i = 0; i < p.sig.inputs.size(); ++i) {
        const graph::Node& n = g.node(p.sig.inputs[i]);
        const exec::TensorHandle* h = values.find(n.name);
        if (!h || !h->defined()) {
            return makeError(ErrorCode::Unsupported, "input " + n.name + " is not a tensor", r.id);
        }
        const at::Tensor& t = exec::tensorOf(*h);
        p.inputs.push_back(t);
        if (t.is_cuda()) {
            p.unsupportedInput = "input " + n.name + " is on " + deviceText(t) +
                                 "; generated kernels run on the CPU";
        }
        if (auto type = codegen::scalarTypeOf(h->dtype())) {
            p.inputSpecs[p.sig.inputs[i]] = {n.name, *type, h->sizes(), h->strides()};
        }
        p.key.add(cache::inputLabel(int(i)),
                  cache::canonicalTensorMeta(graph::dtypeTorchName(h->dtype()), h->sizes(),
                                             h->strides(), deviceText(t)));
    }
    auto rg = extractRegionGraph(g, p.sig.order, p.sig.inputs, p.sig.outputs);
    if (!rg) {
        return rg.error();
    }
    p.regionGraph = *rg;
    return {};
}

Status RegionCompiler::Impl::prepareKernel(const RegionSpec& r, Prepared& p)
{
    if (!p.unsupportedInput.empty()) {
        return makeError(ErrorCode::Unsupported, p.unsupportedInput, r.id);
    }
    detail::ScheduleRequest sr{p.graph, r.id, p.sig.order, p.sig.inputs,
                               p.sig.outputs, [&](graph::NodeId id) { return specOf(p, id); }};
    auto schedule = detail::scheduleRegion(sr);
    if (!schedule) {
        return schedule.error();
    }
    p.schedule = std::move(*schedule);
    auto runner = detail::ScheduleRunner::create(*p.graph, p.schedule, p.sig.inputs, p.sig.outputs);
    if (!runner) {
        return runner.error();
    }
    p.runner = std::move(*runner);
    p.source = codegen::printSchedule(p.schedule.programs);
    auto id = identifyCompiler(options.compiler);
    if (!id) {
        return id.error();
    }
    p.key.add(cache::kLabelOptions, canonicalOptions(r.options))
        .add(cache::kLabelCodegen, cache::kCodegenVersion)
        .add(cache::kLabelCompiler, id->keyText())
        .add(cache::kLabelTorch, libtorchVersion())
        .add(cache::kLabelIsa, id->isa)
        .add(cache::kLabelSchedule, detail::scheduleText(p.schedule, p.sig.order));
    return {};
}

// Buffers of values extern steps make come from one eager run of the region that keeps every
// value (run once, only when a generated step reads such a value).
std::optional<codegen::BufferSpec> RegionCompiler::Impl::specOf(Prepared& p, graph::NodeId id)
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
    if (!h || !h->defined() || exec::tensorOf(*h).is_cuda()) {
        return std::nullopt;
    }
    auto type = codegen::scalarTypeOf(h->dtype());
    if (!type) {
        return std::nullopt;
    }
    return codegen::BufferSpec{name, *type, h->sizes(), h->strides()};
}

Result<exec::RunReport> RegionCompiler::Impl::runEager(Prepared& p, int repeat,
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

Result<std::shared_ptr<SharedLibrary>> RegionCompiler::Impl::loadBytes(const std::string& key,
                                                                       const std::string& so,
                                                                       int entries)
{
    if (Status s = ensureArtifactDir(); !s) {
        return s.error();
    }
    const std::string path = artifactDir + "/" + key + ".so";
    // Reuse the file when it holds exactly these bytes (a later hit loads without writing).
    auto existing = readFile(path);
    if (!existing || toHex(sha256(*existing)) != toHex(sha256(so))) {
        if (Status s = cache::writePrivateFile(path, so); !s) {
            return s.error();
        }
    }
    return SharedLibrary::load(path, entries);
}

Result<std::shared_ptr<SharedLibrary>> RegionCompiler::Impl::fromCache(Prepared& p,
                                                                       RegionOutcome& out)
{
    const auto t0 = Clock::now();
    auto r = options.store->lookup(out.key);
    if (!r) {
        return r.error();
    }
    if (r->state == cache::LookupState::Hit) {
        const cache::EntryInfo& e = r->entry->info;
        if (e.status == cache::EntryStatus::Bad) {
            return makeError(ErrorCode::Runtime, "the cached artifact failed verification before (" +
                                                     e.statusReason + "); it is never used");
        }
        auto lib = loadBytes(out.key, r->entry->artifact.sharedObject,
                             int(p.schedule.programs.size()));
        if (!lib) {
            return lib.error();
        }
        out.state = RegionState::Hit;
        out.headline = cache::hitHeadline(e);
        out.compileMs = msSince(t0);
        return lib;
    }
    auto why = cache::explainMiss(*options.store, p.key.components());
    out.headline = why ? why->headline : "miss";
    if (r->state == cache::LookupState::Corrupt) {
        out.headline = "miss: the cached entry was corrupt (" + r->problem + "); rebuilt";
    }
    return std::shared_ptr<SharedLibrary>();
}

Result<std::shared_ptr<SharedLibrary>> RegionCompiler::Impl::build(Prepared& p, RegionOutcome& out,
                                                                   std::string& soBytes)
{
    if (Status s = ensureArtifactDir(); !s) {
        return s.error();
    }
    const std::string stem = artifactDir + "/build-" + out.key.substr(0, 16) + "-" +
                             std::to_string(::getpid());
    if (Status s = cache::writePrivateFile(stem + ".cpp", p.source); !s) {
        return s.error();
    }
    auto b = buildSharedObject(options.compiler, stem + ".cpp", stem + ".so");
    std::remove((stem + ".cpp").c_str());
    if (!b) {
        return b.error();
    }
    out.compileMs = b->ms;
    if (!b->ok) {
        std::remove((stem + ".so").c_str());
        out.buildCommand = b->command;
        out.buildDiagnostics = b->diagnostics;
        return makeError(ErrorCode::Runtime, b->timedOut ? "the host compiler timed out"
                                                         : "the host compiler failed (exit " +
                                                               std::to_string(b->exitCode) + ")");
    }
    auto bytes = readFile(stem + ".so");
    std::remove((stem + ".so").c_str());
    if (!bytes) {
        return bytes.error();
    }
    soBytes = std::move(*bytes);
    return loadBytes(out.key, soBytes, int(p.schedule.programs.size()));
}

Status RegionCompiler::Impl::timeEager(Prepared& p, RegionOutcome& out,
                                       std::vector<at::Tensor>& eagerOut)
{
    auto run = runEager(p, std::max(1, options.timingRepeats), {});
    if (!run) {
        return run.error();
    }
    if (!run->ok) {
        return makeError(ErrorCode::Unsupported, "the eager engine cannot run this region");
    }
    out.eagerMs = run->totalMs;
    for (std::size_t i = 0; i < p.sig.outputs.size(); ++i) {
        const exec::TensorHandle* h = run->kept.find("output." + std::to_string(i));
        if (!h) {
            return makeError(ErrorCode::Internal, "eager run kept no output " + std::to_string(i));
        }
        eagerOut.push_back(exec::tensorOf(*h));
    }
    return {};
}

Status RegionCompiler::Impl::timeCompiled(Prepared& p, const SharedLibrary& lib,
                                          RegionOutcome& out, std::vector<at::Tensor>& compiledOut)
{
    auto warm = p.runner->run(lib, p.inputs);
    if (!warm) {
        return warm.error();
    }
    const int n = std::max(1, options.timingRepeats);
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
        auto r = p.runner->run(lib, p.inputs);
        if (!r) {
            return r.error();
        }
        compiledOut = std::move(*r);
    }
    out.compiledMs = msSince(t0) / n;
    return {};
}

void RegionCompiler::Impl::insert(Prepared& p, RegionOutcome& out, const std::string& so,
                                  bool verified, const std::string& reason)
{
    if (!options.store) {
        return;
    }
    cache::EntryInfo e;
    e.key = out.key;
    e.components = p.key.components();
    e.regionDigest = cache::regionDigest(e.components);
    e.title = out.id + " (" + std::to_string(out.nodes) + " nodes)";
    e.compileMs = out.compileMs;
    e.status = verified ? cache::EntryStatus::Verified : cache::EntryStatus::Bad;
    e.statusReason = reason;
    // A store failure costs the next run a rebuild, not this run its result.
    (void)options.store->insert(e, {so, p.source});
}

RegionCompiler::RegionCompiler(CompileOptions options) : m_impl(std::make_unique<Impl>())
{
    m_impl->options = std::move(options);
}

RegionCompiler::~RegionCompiler() = default;

// The compiled path after eager ran: artifact from the cache or a build, verification against
// eager (a mismatch marks the entry bad), timing. An Error means: fall back to eager.
Status RegionCompiler::Impl::compiled(Prepared& p, RegionOutcome& out,
                                      const std::vector<at::Tensor>& eagerOut)
{
    if (Status s = prepareKernel(RegionSpec{out.id, {}, p.options}, p); !s) {
        return s;
    }
    out.externNodes = p.schedule.externNodes;
    out.key = p.key.key();
    out.transcript = p.key.transcript();
    out.source = p.source;
    std::shared_ptr<SharedLibrary> lib;
    if (options.store) {
        auto cached = fromCache(p, out);
        if (!cached) {
            return cached.error();
        }
        lib = *cached;
    } else {
        out.headline = "miss: no cache";
    }
    std::string so;
    const bool built = !lib;
    if (built) {
        out.state = RegionState::Miss;
        auto b = build(p, out, so);
        if (!b) {
            return b.error();
        }
        lib = *b;
    }
    std::vector<at::Tensor> got;
    if (Status s = timeCompiled(p, *lib, out, got); !s) {
        return s;
    }
    const detail::Comparison c = detail::compareOutputs(got, eagerOut, p.inputs);
    out.maxAbsErr = c.maxAbsErr;
    if (built) {
        insert(p, out, so, c.ok, c.problem);
    } else if (!c.ok && options.store) {
        (void)options.store->markBad(out.key, c.problem);
    }
    if (!c.ok) {
        return makeError(ErrorCode::Runtime, "verification against eager failed: " + c.problem);
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
    Prepared p;
    p.options = r.options;
    auto fallback = [&](const Error& e) {
        out.state = RegionState::Fallback;
        out.headline = "fallback: " + e.message + (e.where.empty() ? "" : " (" + e.where + ")");
        out.compiledMs = out.eagerMs;
    };
    if (Status s = prepareInputs(g, r, values, p); !s) {
        return fallback(s.error());
    }
    for (graph::NodeId id : p.sig.outputs) {
        out.outputNames.push_back(g.node(id).name);
    }
    std::vector<at::Tensor> eagerOut;
    if (Status s = timeEager(p, out, eagerOut); !s) {
        return fallback(s.error());
    }
    for (const auto& t : eagerOut) {
        out.outputs.push_back(exec::makeHandle(t));
    }
    if (Status s = compiled(p, out, eagerOut); !s) {
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
        out.headline = std::string("fallback: ") + e.what();
        out.compiledMs = out.eagerMs;
    }
    return out;
}

} // namespace fxs::compile
