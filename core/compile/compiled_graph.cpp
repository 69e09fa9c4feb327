// The compiled run substitutes each verified region (exec::Substitute) with a call of its
// schedule runner: the same runner and loaded kernels the region was verified and timed with.
#include "core/compile/compiled_graph.h"

#include "core/compile/conv_fusion.h"
#include "core/compile/device_timing.h"
#include "core/compile/matmul_fusion.h"
#include "core/compile/prepared_region.h"
#include "core/cuda/module.h"
#include "core/exec/cudnn_conv.h"
#include "core/exec/direct_calls.h"
#include "core/exec/substitute_order.h"
#include "core/exec/torch_bridge.h"
#include "core/graph/node_arguments.h"
#include "core/graph/op_category.h"
#include "core/util/elapsed.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace fxs::compile {
namespace compiled_graph_detail {

// Runs a loaded region on the engine's tensors. Kernels are specialised on their inputs'
// layout: an input laid out otherwise (made by another compiled region) is copied into it.
Result<std::vector<exec::TensorHandle>> runLoaded(const LoadedRegion& region,
                                                  const std::vector<exec::TensorHandle>& in)
{
    const detail::PreparedRegion& p = *region.prepared;
    std::vector<at::Tensor> inputs;
    inputs.reserve(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        const at::Tensor& t = exec::tensorOf(in[i]);
        if (i >= region.inputSizes.size() || t.sizes() != at::IntArrayRef(region.inputSizes[i])) {
            return makeError(ErrorCode::Runtime,
                             "input " + std::to_string(i) + " has other sizes than the region "
                                                            "was compiled for");
        }
        if (t.strides() == at::IntArrayRef(region.inputStrides[i])) {
            inputs.push_back(t);
        } else {
            inputs.push_back(at::empty_strided(t.sizes(), region.inputStrides[i], t.options())
                                 .copy_(t));
        }
    }
    auto out = p.runner->run(*p.loadedCode, inputs);
    if (!out) {
        return out.error();
    }
    std::vector<exec::TensorHandle> handles;
    handles.reserve(out->size());
    for (auto& t : *out) {
        handles.push_back(exec::makeHandle(std::move(t)));
    }
    return handles;
}

std::vector<exec::Substitute> substitutesOf(const std::vector<RegionOutcome>& regions)
{
    std::vector<exec::Substitute> subs;
    for (const auto& r : regions) {
        if (!r.loaded) {
            continue;
        }
        const detail::PreparedRegion& p = *r.loaded->prepared;
        std::shared_ptr<const LoadedRegion> loaded = r.loaded;
        subs.push_back({r.id, p.sig.order, p.sig.inputs, p.sig.outputs,
                        [loaded](const std::vector<exec::TensorHandle>& in) {
                            return runLoaded(*loaded, in);
                        }});
    }
    return subs;
}

std::optional<double> maxAbsDiff(const exec::TensorHandle* a, const exec::TensorHandle* b)
{
    if (!a || !b || !a->defined() || !b->defined()) {
        return std::nullopt;
    }
    if (a->sizes() != b->sizes()) {
        return std::numeric_limits<double>::infinity();
    }
    const std::vector<double> x = a->toDoubles();
    const std::vector<double> y = b->toDoubles();
    double worst = 0;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (std::isfinite(x[i]) && std::isfinite(y[i])) {
            worst = std::max(worst, std::abs(x[i] - y[i]));
        } else if (!(std::isnan(x[i]) && std::isnan(y[i])) && x[i] != y[i]) {
            worst = std::numeric_limits<double>::infinity();
        }
    }
    return worst;
}

// dropout_p of a fused attention call: its keyword, else its position; 0 when absent.
double dropoutOf(const graph::Node& n, std::size_t position)
{
    const graph::Argument* a = graph::argumentOf(n, position, "dropout_p");
    if (!a) {
        return 0.0;
    }
    if (a->kind == graph::ArgKind::Float) {
        return a->f;
    }
    if (a->kind == graph::ArgKind::Int) {
        return static_cast<double>(a->i);
    }
    return std::numeric_limits<double>::quiet_NaN(); // a computed value: not known to be 0
}

// Each region's time in the compiled run: its step, or its nodes run eagerly.
void regionTimes(const graph::Graph& graph, const std::vector<partition::Region>& regions,
                 CompiledGraphReport& report)
{
    std::map<std::string, double> steps;
    std::map<std::string, double> nodes;
    for (const auto& n : report.compiled.perNode) {
        (n.target == "fxscope.substitute" ? steps : nodes)[n.name] += n.ms;
    }
    for (std::size_t i = 0; i < regions.size() && i < report.regions.size(); ++i) {
        double ms = 0;
        if (report.regions[i].loaded) {
            ms = steps[regions[i].id];
            ++report.regionsUsed;
        } else {
            for (graph::NodeId id : regions[i].nodes) {
                auto it = nodes.find(graph.node(id).name);
                ms += it == nodes.end() ? 0.0 : it->second;
            }
        }
        report.regionMs.push_back(ms);
    }
}

// Whether a node may write in place (an op named with a trailing '_': copy_, add_; "__and__"
// too, to be safe): a second run on the first run's inputs would then start from what it wrote.
bool writesInPlace(const graph::Graph& graph)
{
    return std::any_of(graph.nodes().begin(), graph.nodes().end(), graph::isInPlace);
}

// Whether a node draws random numbers (dropout, rand*, bernoulli, normal, ...): a graph fed by
// its forward then runs after it, as the eager run did, so that both draw the same numbers.
bool drawsRandomNumbers(const graph::Graph& graph)
{
    static const std::set<std::string_view> random = {
        "bernoulli", "bernoulli_", "dropout", "native_dropout", "rand", "rand_like", "randn",
        "randn_like", "randint", "randint_like", "randperm", "normal", "normal_", "uniform_",
        "multinomial", "exponential_", "geometric_", "cauchy_", "log_normal_", "random_",
        "poisson", "philox_rand", "feature_dropout", "alpha_dropout"};
    return std::any_of(graph.nodes().begin(), graph.nodes().end(), [](const graph::Node& n) {
        return n.op == graph::OpKind::CallFunction &&
               random.count(graph::opBaseName(n.target)) != 0;
    });
}

// Whether a LibTorch call of the node does device work (views and getitems do not).
bool launches(const graph::Node& n)
{
    const bool call = n.op == graph::OpKind::CallFunction || n.op == graph::OpKind::CallMethod ||
                      n.op == graph::OpKind::CallModule;
    return call && n.getitemOf == graph::kNoNode &&
           graph::categorize(n) != graph::OpCategory::View;
}

// CompiledGraphReport::kernels, from the compiled run's steps.
int kernelsLaunched(const graph::Graph& graph, const CompiledGraphReport& report)
{
    std::map<std::string, const RegionOutcome*> used;
    for (const auto& r : report.regions) {
        if (r.loaded) {
            used[r.id] = &r;
        }
    }
    std::map<std::string, int> groups; // a fused group: one cat and one product
    for (const auto& g : report.matmulGroups) {
        // A sum joins both operands; a batched group writes its operands' addresses and
        // makes every product in one call.
        const int joined = g.shared == 2 ? 3 : 2;
        const int kept = g.keptRuns > 0 ? g.keptSides : 0; // reused, not joined again
        groups[g.id] = g.separateRuns == 0 ? joined - kept : int(g.nodes.size());
    }
    int n = 0;
    for (const auto& step : report.compiled.perNode) {
        if (step.target == kConvEpilogueTarget) {
            // One cuDNN graph; where LibTorch's operators ran some of the steps, at most the
            // convolution, the norm, the add and the relu each.
            n += report.cudnnConvs >= report.convEpilogues ? 1 : 4;
            continue;
        }
        if (step.target == kMatmulGroupTarget) {
            const auto g = groups.find(step.name);
            n += g == groups.end() ? 0 : g->second;
            continue;
        }
        if (step.target == "fxscope.substitute") {
            const auto it = used.find(step.name);
            if (it == used.end()) {
                continue;
            }
            n += it->second->kernels;
            for (const auto& s : it->second->loaded->prepared->schedule.steps) {
                for (graph::NodeId id : s.generated ? std::vector<graph::NodeId>() : s.nodes) {
                    n += launches(graph.node(id)) ? 1 : 0;
                }
            }
            continue;
        }
        const auto id = graph.find(step.name);
        n += id && launches(graph.node(*id)) ? 1 : 0;
    }
    return n;
}

// CUDA: the totals of both graphs without per-node synchronisation (CompiledGraphReport).
Result<DeviceTotals> timeOnDevice(const graph::Graph& graph, exec::RunOptions ro,
                                  std::shared_ptr<const exec::ValueStore> inputs,
                                  const std::vector<RegionOutcome>& regions,
                                  const std::vector<exec::Substitute>& fused, bool cudaGraph,
                                  bool kernels, const CancelToken& cancel)
{
    int device = 0;
    for (const auto& [name, h] : inputs->values()) {
        if (h.defined() && exec::tensorOf(h).is_cuda()) {
            device = exec::tensorOf(h).get_device();
            break;
        }
    }
    // The timed runs follow one another as a program's steps do: the host memory one frees
    // stays for the next (Interpreter::run returns it after each run otherwise, and the next
    // faults its pages in again inside the timed steps).
    const exec::HostMemoryHold hold;
    ro.keep.clear();
    ro.inputs = std::move(inputs);
    ro.inputsFile.clear();
    ro.forwardGraph = nullptr;
    ro.shareConvWeights(); // both graphs' runs reuse
    const int repeats = std::max(5, ro.repeat);
    const auto time = cudaGraph ? detail::timeReplays : detail::timeWithoutSyncs;
    exec::RunOptions eager = ro; // ro's directMatmuls is the compiled runs'
    eager.substitutes.clear();
    eager.directMatmuls = false;
    ro.substitutes = substitutesOf(regions);
    ro.substitutes.insert(ro.substitutes.end(), fused.begin(), fused.end());
    // The eager graph's and the compiled one's, in that order.
    auto both = [&](detail::Measure measure)
        -> Result<std::pair<detail::StreamTimes, detail::StreamTimes>> {
        auto e = time(graph, eager, device, repeats, measure, cancel);
        if (!e) {
            return e.error();
        }
        auto c = time(graph, ro, device, repeats, measure, cancel);
        if (!c) {
            return c.error();
        }
        return std::pair{std::move(*e), std::move(*c)};
    };
    // Both graphs' times before either is profiled (detail::Measure): the compiled one's host
    // figure read 5.1 against 2.4-3.2 us a node for LLaMA-24's training step on an H200's host
    // when the eager graph's profile came first.
    auto times = both(detail::Measure::Times);
    if (!times) {
        return times.error();
    }
    const auto& [e, c] = *times;
    DeviceTotals t{e.wallMs, c.wallMs, e.deviceMs, c.deviceMs, e.hostMs, c.hostMs};
    if (!kernels) {
        return t;
    }
    auto profiled = both(detail::Measure::Kernels);
    if (!profiled) {
        return profiled.error();
    }
    const auto& [ek, ck] = *profiled;
    if (ek.kernels && ck.kernels) {
        t.eagerKernelMs = ek.kernels->ms;
        t.compiledKernelMs = ck.kernels->ms;
        t.eagerKernelEvents = ek.kernels->count;
        t.compiledKernelEvents = ck.kernels->count;
        for (const auto& k : ck.kernels->top) {
            t.compiledTopKernels.emplace_back(k.name, k.ms, k.count);
        }
    }
    return t;
}

Status timeTotalsInto(const graph::Graph& graph, exec::RunOptions ro,
                      std::shared_ptr<const exec::ValueStore> inputs,
                      const std::vector<exec::Substitute>& fused, bool cudaGraph, bool kernels,
                      const CancelToken& cancel, CompiledGraphReport& report)
{
    auto t = timeOnDevice(graph, std::move(ro), std::move(inputs), report.regions, fused,
                          cudaGraph, kernels, cancel);
    if (!t) {
        return t.error();
    }
    report.eager.totalMs = t->eagerWallMs;
    report.eagerDeviceMs = t->eagerDeviceMs;
    report.eagerHostMs = t->eagerHostMs;
    report.compiled.totalMs = t->compiledWallMs;
    report.deviceMs = t->compiledDeviceMs;
    report.hostMs = t->compiledHostMs;
    report.cudaGraph = cudaGraph;
    report.kernelMs = t->compiledKernelMs;
    report.eagerKernelMs = t->eagerKernelMs;
    report.kernelEvents = t->compiledKernelEvents;
    report.eagerKernelEvents = t->eagerKernelEvents;
    report.topKernels = t->compiledTopKernels;
    return {};
}

// The matrix-product groups of a compiled run (GraphCompileOptions::fuseMatmuls); `runs` is
// set whenever `groups` is not empty.
struct Fusion {
    std::vector<MatmulGroup> groups;
    std::shared_ptr<MatmulGroupRuns> runs;
    std::vector<ConvEpilogue> convs;
    std::shared_ptr<ConvEpilogueRuns> convRuns;
    std::vector<exec::Substitute> subs; // the groups' then the convolutions'
};

// After the regions compiled: the graph with them (and the groups) in place, compared with the
// eager run.
Status runWithRegions(const graph::Graph& graph, const std::vector<partition::Region>& regions,
                      const Fusion& fusion, exec::RunOptions ro, const CancelToken& cancel,
                      CompiledGraphReport& report)
{
    exec::ValueStore outputs; // the region inputs and outputs need not stay alive any longer
    for (const auto& [name, h] : report.eager.kept.values()) {
        if (name.rfind("output.", 0) == 0) {
            outputs.set(name, h);
        }
    }
    report.eager.kept = std::move(outputs);
    for (auto& r : report.regions) {
        r.outputs.clear();
    }
    ro.keep.clear();
    ro.substitutes = substitutesOf(report.regions);
    ro.substitutes.insert(ro.substitutes.end(), fusion.subs.begin(), fusion.subs.end());
    for (std::size_t i = 0; i < fusion.groups.size(); ++i) { // counted from this run on
        fusion.runs->fused[i] = 0;
        fusion.runs->separate[i] = 0;
        fusion.runs->kept[i] = 0;
    }
    const long cudnnBefore = fusion.convRuns ? fusion.convRuns->cudnn.load() : 0;
    at::manual_seed(ro.seed); // the eager run's random state (runAll)
    const long directBefore = exec::detail::directMatmulCount();
    const long addmmBefore = exec::detail::directAddmmCount();
    auto run = exec::Interpreter::run(graph, ro, cancel);
    const int runs = ro.repeat > 1 ? ro.repeat + 1 : 1; // a warm-up run before repeats
    report.directMatmuls = (exec::detail::directMatmulCount() - directBefore) / runs;
    report.directAddmms = (exec::detail::directAddmmCount() - addmmBefore) / runs;
    report.convEpilogues = int(fusion.convs.size());
    report.cudnnConvs =
        fusion.convRuns ? (fusion.convRuns->cudnn.load() - cudnnBefore) / runs : 0;
    if (!run && run.error().code == ErrorCode::Cancelled) {
        report.cancelled = true;
        return {};
    }
    if (!run) {
        Error e = run.error();
        e.message = "the compiled graph: " + e.message;
        return e;
    }
    report.compiled = std::move(*run);
    std::set<std::string> groupIds;
    for (const auto& g : fusion.groups) {
        groupIds.insert(g.id);
    }
    std::set<std::string> convIds;
    for (const auto& c : fusion.convs) {
        convIds.insert(c.id);
    }
    for (auto& step : report.compiled.perNode) { // a group's step is no region
        if (step.target == "fxscope.substitute" && groupIds.count(step.name) != 0) {
            step.target = kMatmulGroupTarget;
        } else if (step.target == "fxscope.substitute" && convIds.count(step.name) != 0) {
            step.target = kConvEpilogueTarget;
        }
    }
    for (std::size_t i = 0; i < fusion.groups.size(); ++i) {
        const MatmulGroup& grp = fusion.groups[i];
        MatmulGroupReport g{grp.id, {}, grp.shared, fusion.runs->fused[i],
                            fusion.runs->separate[i], fusion.runs->kept[i], 0};
        for (int side : {0, 1}) { // the sides laid side by side: not the shared operand
            g.keptSides += grp.shared != side && grp.inputOperands[std::size_t(side)] ? 1 : 0;
        }
        for (graph::NodeId id : grp.nodes) {
            g.nodes.push_back(graph.node(id).name);
        }
        report.matmulGroups.push_back(std::move(g));
    }
    regionTimes(graph, regions, report);
    report.kernels = kernelsLaunched(graph, report);
    for (std::size_t i = 0; i < report.compiled.outputs.size(); ++i) {
        const std::string key = "output." + std::to_string(i);
        const auto node = graph.find(report.compiled.outputs[i].name);
        auto why = node ? undefinedOutput(graph, *node) : std::nullopt;
        report.outputMaxAbsErr.push_back(
            why ? std::nullopt
                : maxAbsDiff(report.compiled.kept.find(key), report.eager.kept.find(key)));
        report.outputNotCompared.push_back(why.value_or(""));
    }
    return {};
}

// The groups of mm nodes outside the regions, and the convolutions with their epilogue (none
// when not asked for, or for a graph that writes in place, whose inputs each run makes again).
// Each group and each convolution must run as one step beside the regions' steps: a group
// whose operand a region makes from another member's product would wait on itself, and is
// left out. direct: the products call cuBLAS directly where they can.
Fusion fusionFor(const graph::Graph& graph, const std::vector<partition::Region>& regions,
                 const GraphCompileOptions& options, bool direct)
{
    Fusion f;
    const bool convs = convFusionApplies(options.fuseConvolutions, options.compile.device);
    if ((!options.fuseMatmuls && !convs) || writesInPlace(graph)) {
        return f;
    }
    std::vector<bool> excluded(graph.size(), false);
    std::vector<exec::Substitute> units;
    std::set<std::string> ids;
    for (const auto& r : regions) {
        for (graph::NodeId id : r.nodes) {
            excluded[id] = true;
        }
        units.push_back({r.id, r.nodes, r.inputs, r.outputs, {}});
        ids.insert(r.id);
    }
    const auto orders = [&](const std::vector<MatmulGroup>& groups,
                            const std::vector<ConvEpilogue>& steps) {
        std::vector<exec::Substitute> all = units;
        for (const auto& g : groups) {
            all.push_back({g.id, g.nodes, {}, g.nodes, {}});
        }
        for (const auto& c : steps) {
            all.push_back({c.id, c.nodes, {}, {c.last}, {}});
        }
        return bool(exec::detail::orderWithSubstitutes(graph, all));
    };
    const auto unique = [&](std::string& id) {
        while (ids.count(id) != 0) {
            id += "_"; // a project's region of the same name
        }
    };
    std::vector<MatmulGroup> kept;
    for (auto& g : options.fuseMatmuls
                       ? findMatmulGroups(graph, options.run.forwardGraph.get(), excluded,
                                          direct && options.batchMatmuls &&
                                              options.compile.device == TargetDevice::Cuda)
                       : std::vector<MatmulGroup>()) {
        unique(g.id);
        if (orders({g}, {})) {
            ids.insert(g.id);
            kept.push_back(std::move(g));
        }
    }
    if (!kept.empty() && !orders(kept, {})) {
        kept.clear(); // groups that only together would wait on each other: none
    }
    f.groups = std::move(kept);
    if (!options.keepMatmulOperands) {
        for (auto& g : f.groups) {
            g.inputOperands = {false, false}; // joined every run
        }
    }
    f.runs = std::make_shared<MatmulGroupRuns>(f.groups.size());
    f.runs->directMatmuls = direct;
    f.subs = matmulSubstitutes(graph, f.groups, f.runs);
    if (!convs) {
        return f;
    }
    std::vector<ConvEpilogue> found = findConvEpilogues(graph, excluded);
    for (auto& c : found) {
        unique(c.id);
        ids.insert(c.id);
    }
    if (!found.empty() && orders(f.groups, found)) {
        f.convs = std::move(found);
        f.convRuns = std::make_shared<ConvEpilogueRuns>();
        auto subs = convSubstitutes(graph, f.convs, f.convRuns,
                                    options.compile.device == TargetDevice::Cuda,
                                    options.run.convLayout == exec::ConvLayout::ChannelsLast);
        f.subs.insert(f.subs.end(), subs.begin(), subs.end());
    }
    return f;
}

// With groups, a product's column blocks are laid out otherwise than eager's own products, so
// the regions compile on the values the compiled run gives them: the graph runs once more on
// the eager run's inputs with the groups in place, keeping the region inputs. When that run
// fails the products stay unfused (CompiledGraphReport::matmulNote says why).
Result<exec::ValueStore> valuesWithGroups(const graph::Graph& graph, const exec::RunOptions& ro,
                                          const exec::ValueStore& eagerKept, Fusion& fusion,
                                          const CancelToken& cancel, std::string& note)
{
    exec::RunOptions fo = ro;
    fo.inputs = graphInputsOf(graph, eagerKept);
    fo.inputsFile.clear();
    fo.forwardGraph = nullptr;
    fo.repeat = 1;
    fo.perNodeTiming = false;
    fo.summarizeOutputs = false;
    fo.substitutes = fusion.subs;
    at::manual_seed(ro.seed);
    auto run = exec::Interpreter::run(graph, fo, cancel);
    if (!run && run.error().code == ErrorCode::Cancelled) {
        return run.error();
    }
    if (run && run->ok) {
        return std::move(run->kept);
    }
    note = std::string(fusion.convs.empty() ? "matrix products not fused: "
                                            : "matrix products and convolutions not fused: ") +
           (run ? std::string("the graph did not run with them") : run.error().message);
    fusion = Fusion{};
    return exec::ValueStore{};
}

Result<CompiledGraphReport> runAll(const graph::Graph& graph,
                                   const std::vector<partition::Region>& regions,
                                   const GraphCompileOptions& options, const CancelToken& cancel,
                                   const ProgressSink& progress)
{
    if (options.compile.buildOnly) {
        return makeError(ErrorCode::Invalid, "a compiled run cannot be build-only");
    }
    if (options.cudaGraph && options.compile.device != TargetDevice::Cuda) {
        Error e = makeError(ErrorCode::Invalid, "CUDA graphs need the graph to run on CUDA");
        e.expected = "the CUDA device (a graph recorded on CUDA, or --device cuda, and a GPU)";
        e.found = "the CPU";
        return e;
    }
    if (options.kernelTime && options.compile.device != TargetDevice::Cuda) {
        Error e = makeError(ErrorCode::Invalid, "kernel times are measured on the GPU");
        e.expected = "the CUDA device (a graph recorded on CUDA, or --device cuda, and a GPU)";
        e.found = "the CPU";
        return e;
    }
    CompiledGraphReport report;
    exec::RunOptions ro = options.run;
    ro.device = options.compile.device == TargetDevice::Cuda ? exec::DevicePref::Cuda
                                                             : exec::DevicePref::Cpu;
    ro.substitutes.clear();
    ro.directMatmuls = false; // the eager run's; the compiled runs' (withInputs) below
    // One graph, one set of weights: the eager run converts them, the compiled run and the
    // timed runs reuse the copies (none of them changes a weight).
    ro.shareConvWeights();
    ro.keep = partition::regionInputNames(graph, regions);
    const bool cuda = options.compile.device == TargetDevice::Cuda;
    // The compiled run (unless the graph writes in place) and the runs timed on the device take
    // the eager run's inputs: the same tensors, so the weights' channels_last copies are reused
    // (ConvWeightCache).
    for (graph::NodeId id : graph.placeholders()) {
        ro.keep.push_back(graph.node(id).name);
    }
    reportProgress(progress, 0.0, "eager run");
    // Both runs start from the same random state, so random operators (dropout; attention's
    // RNG seed and offset outputs on CUDA) give the same values in both.
    at::manual_seed(ro.seed);
    auto eager = exec::Interpreter::run(graph, ro, cancel);
    if (!eager) {
        report.cancelled = eager.error().code == ErrorCode::Cancelled;
        return report.cancelled ? Result<CompiledGraphReport>(std::move(report))
                                : Result<CompiledGraphReport>(eager.error());
    }
    report.eager = std::move(*eager);
    if (!report.eager.ok) {
        return report;
    }
    const bool direct = cuda && options.directMatmuls; // the compiled runs' products
    const exec::detail::CudnnPlanCounts plansBefore = exec::detail::cudnnPlanCounts();
    Fusion fusion = fusionFor(graph, regions, options, direct);
    if (cuda && !fusion.convs.empty()) {
        reportProgress(progress, 0.0, "building the convolutions' cuDNN plans");
        prebuildConvPlans(graph, fusion.convs);
    }
    exec::ValueStore fusedValues;
    if (!fusion.subs.empty()) {
        auto values = valuesWithGroups(graph, ro, report.eager.kept, fusion, cancel,
                                       report.matmulNote);
        if (!values) {
            report.cancelled = true;
            return report;
        }
        fusedValues = std::move(*values);
    }
    CompileOptions co = options.compile;
    co.keepLoaded = true;
    GraphCompileReport compiled =
        compileRegionsOn(graph, regions, fusion.subs.empty() ? report.eager.kept : fusedValues,
                         co, cancel, progress);
    fusedValues = exec::ValueStore{};
    report.regions = std::move(compiled.regions);
    report.cancelled = compiled.cancelled;
    if (report.cancelled) {
        return report;
    }
    auto inputs = graphInputsOf(graph, report.eager.kept); // before it is trimmed
    exec::RunOptions withInputs = ro;
    withInputs.directMatmuls = direct;
    if (!writesInPlace(graph)) {
        withInputs.inputs = inputs; // else its inputs are made again, as the eager run's were
        // The inputs the forward fed the eager run, not a new forward run's: the weights are
        // the same tensors as in the run before and the timed runs after (a matrix-product
        // group keeps its weights laid side by side while they are), as in a training loop.
        if (!drawsRandomNumbers(graph)) {
            withInputs.forwardGraph = nullptr;
        }
    }
    if (Status s = runWithRegions(graph, regions, fusion, withInputs, cancel, report); !s) {
        return s.error();
    }
    if (!withInputs.forwardGraph && ro.forwardGraph) { // how the forward fed the inputs
        std::vector<std::string> notes = report.eager.notes;
        for (auto& n : report.compiled.notes) {
            if (std::find(notes.begin(), notes.end(), n) == notes.end()) {
                notes.push_back(std::move(n));
            }
        }
        report.compiled.notes = std::move(notes);
    }
    if (const auto plans = exec::detail::cudnnPlanCounts(); plans.shapes > plansBefore.shapes ||
                                                             plans.failed > plansBefore.failed) {
        char line[200];
        std::snprintf(line, sizeof line,
                      "cuDNN plans for the convolution steps: %d shapes built (%d plans timed) in "
                      "%.0f ms, %d without a plan (LibTorch's operators)",
                      plans.shapes - plansBefore.shapes,
                      plans.candidates - plansBefore.candidates,
                      plans.buildMs - plansBefore.buildMs, plans.failed - plansBefore.failed);
        report.compiled.notes.push_back(line);
    }
    if (!report.cancelled && cuda) {
        reportProgress(progress, 1.0, options.cudaGraph ? "timing CUDA graph replays"
                                                        : "timing without per-node syncs");
        // The timed runs take their own inputs and leave withInputs' forward graph and keep.
        if (Status s = timeTotalsInto(graph, withInputs, std::move(inputs), fusion.subs,
                                      options.cudaGraph, options.kernelTime, cancel, report);
            !s) {
            return s.error();
        }
    }
    return report;
}

} // namespace compiled_graph_detail

std::optional<std::string> undefinedOutput(const graph::Graph& graph, graph::NodeId id)
{
    if (id == graph::kNoNode || id >= graph.size()) {
        return std::nullopt;
    }
    const graph::Node& item = graph.node(id);
    if (item.getitemOf == graph::kNoNode) {
        return std::nullopt;
    }
    const graph::Node& call = graph.node(item.getitemOf);
    struct Attention {
        std::string_view target;
        std::size_t dropoutPosition;
        int seed; // the index of the seed (or RNG state); the next one is its offset
    };
    static constexpr Attention kinds[] = {
        {"aten::_scaled_dot_product_efficient_attention.default", 5, 2},
        {"aten::_scaled_dot_product_flash_attention.default", 3, 6},
        {"aten::_scaled_dot_product_cudnn_attention.default", 5, 6},
    };
    for (const auto& k : kinds) {
        if (call.target != k.target ||
            (item.getitemIndex != k.seed && item.getitemIndex != k.seed + 1)) {
            continue;
        }
        if (compiled_graph_detail::dropoutOf(call, k.dropoutPosition) != 0.0) {
            return std::nullopt;
        }
        const std::string op(k.target.substr(6, k.target.size() - 6 - 8)); // no aten::, .default
        const std::string node = call.name == op ? "" : " (" + call.name + ")";
        return std::string(item.getitemIndex == k.seed ? "the RNG seed" : "the RNG offset") +
               " of " + op + node + ", which PyTorch leaves unwritten when dropout_p is 0";
    }
    return std::nullopt;
}

std::shared_ptr<const exec::ValueStore> graphInputsOf(const graph::Graph& graph,
                                                      const exec::ValueStore& kept)
{
    auto store = std::make_shared<exec::ValueStore>();
    for (graph::NodeId id : graph.placeholders()) {
        const std::string& name = graph.node(id).name;
        if (const exec::TensorHandle* h = kept.find(name)) {
            store->set(name, *h);
        }
    }
    return store;
}

std::vector<exec::Substitute> compiledSubstitutes(const std::vector<RegionOutcome>& regions)
{
    return compiled_graph_detail::substitutesOf(regions);
}

Result<MatmulFusionRun> fuseMatmulsFor(const graph::Graph& graph,
                                       const std::vector<partition::Region>& regions,
                                       const exec::RunOptions& ro,
                                       const exec::ValueStore& eagerKept,
                                       const CancelToken& cancel)
{
    try {
        GraphCompileOptions options;
        options.run = ro;
        compiled_graph_detail::Fusion fusion =
            compiled_graph_detail::fusionFor(graph, regions, options, ro.directMatmuls);
        MatmulFusionRun out;
        if (fusion.subs.empty()) {
            return out;
        }
        exec::RunOptions vo = ro;
        vo.keep = partition::regionInputNames(graph, regions);
        auto values =
            compiled_graph_detail::valuesWithGroups(graph, vo, eagerKept, fusion, cancel, out.note);
        if (!values) {
            return values.error();
        }
        out.groups = std::move(fusion.groups);
        out.substitutes = std::move(fusion.subs);
        out.values = std::move(*values);
        return out;
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("grouping the matrix products: ") +
                                                  e.what());
    }
}

Result<DeviceTotals> timeTotalsOnDevice(const graph::Graph& graph, exec::RunOptions ro,
                                        std::shared_ptr<const exec::ValueStore> inputs,
                                        const std::vector<RegionOutcome>& regions,
                                        const std::vector<exec::Substitute>& fused,
                                        bool cudaGraph, bool kernels, const CancelToken& cancel)
{
    try {
        return compiled_graph_detail::timeOnDevice(graph, std::move(ro), std::move(inputs),
                                                   regions, fused, cudaGraph, kernels, cancel);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("timing the graphs on the GPU: ") +
                                                  e.what());
    }
}

Result<CompiledGraphReport> runCompiledGraph(const graph::Graph& graph,
                                             const std::vector<partition::Region>& regions,
                                             const GraphCompileOptions& options,
                                             const CancelToken& cancel,
                                             const ProgressSink& progress)
{
    try {
        return compiled_graph_detail::runAll(graph, regions, options, cancel, progress);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("running the compiled graph: ") +
                                                  e.what());
    }
}

} // namespace fxs::compile
