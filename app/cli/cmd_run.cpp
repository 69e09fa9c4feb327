// fxscope-cli run GRAPH [--graph SEL] [--from-forward FW] [--repeat N] [--size s0=8] [--json]
// [--compiled [--auto | --project P] [--cache DB] [--jobs N]]: runs a graph (graph code, a
// TorchScript .pt, one graph of a TORCH_TRACE) on the reference engine, or with its compiled
// regions in place (core/compile/compiled_graph.h) next to the eager run, and reports timing,
// peak memory and output summaries. The JSON shape is a contract (README "fxscope-cli run").
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/graph_input.h"
#include "app/cli/region_source.h"
#include "app/cli/store_option.h"
#include "core/compile/bias_split.h"
#include "core/compile/compiled_graph.h"
#include "core/exec/interpreter.h"
#include "core/util/int_expr.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

namespace fxs::cli {
namespace cmd_run_detail {

using nlohmann::json;

struct RunCliOptions {
    std::string graph;
    std::string selector;        // --graph
    std::string forward;
    std::string forwardSelector; // --forward-graph
    std::string inputs;
    std::string device = "auto";
    std::vector<std::string> sizes;
    int repeat = 1;
    std::uint64_t seed = 0;
    bool json = false;
    bool compiled = false; // --compiled: with the regions compiled, next to the eager run
    bool cudaGraph = false; // --cuda-graph: time both graphs as CUDA graph replays
    bool kernelTime = false; // --kernel-time: both graphs' GPU work from LibTorch's profiler
    bool hostTimes = false;  // --host-times: per_node times the host's work, no per-node sync
    bool dispatchedViews = false; // --dispatched-views: RunOptions::directViews off
    bool noMatmulFusion = false;  // --no-matmul-fusion: GraphCompileOptions::fuseMatmuls off
    bool noKeptOperands = false;  // --no-kept-operands: keepMatmulOperands off
    bool noDirectMatmuls = false; // --no-direct-matmuls: directMatmuls off
    bool noBatchedMatmuls = false; // --no-batched-matmuls: batchMatmuls off
    bool noConvFusion = false;    // --no-conv-fusion: fuseConvolutions off
    bool autoRegions = false;
    std::string project;
    std::string cache;
    int jobs = 0; // --jobs: builds at once (0: automatic)
    std::string convLayout = "auto"; // --conv-layout (compile::resolveConvLayout)
    std::string tuning;              // --cuda-tuning (codegen::CudaTuning::read)
};

constexpr const char* kHostTimesNote =
    "per_node: the host's time for each node (--host-times), the device not waited for";

// The graph at path, with parse errors fatal: a graph that lost statements would run wrong.
Result<LoadedGraph> loadGraph(const std::string& path, const std::string& selector)
{
    auto loaded = loadGraphInput(path, selector);
    if (!loaded.ok() || loaded->diagnostics.errorCount() == 0) {
        return loaded;
    }
    for (const auto& d : loaded->diagnostics.items()) {
        if (d.severity == Severity::Error) {
            Error e = makeError(ErrorCode::Parse, d.message, d.where());
            e.expected = d.expected;
            e.found = d.found;
            return e;
        }
    }
    return loaded;
}

Status parseSizes(const std::vector<std::string>& specs, std::map<std::string, std::int64_t>& out)
{
    for (const auto& s : specs) {
        const auto eq = s.find('=');
        const auto value = eq == std::string::npos || eq == 0
                               ? Result<std::int64_t>(makeError(ErrorCode::Invalid, "no '='"))
                               : parseIntLiteral(std::string_view(s).substr(eq + 1));
        if (!value.ok()) {
            Error e = makeError(ErrorCode::Invalid, "bad --size: " + value.error().message);
            e.expected = "NAME=INTEGER, e.g. s0=8";
            e.found = s;
            return e;
        }
        out[s.substr(0, eq)] = *value;
    }
    return {};
}

json reportJson(const exec::RunReport& r)
{
    json outputs = json::array();
    for (const auto& o : r.outputs) {
        json j{{"name", o.name}};
        if (o.isTensor) {
            j.update({{"shape", o.shape}, {"dtype", o.dtype}, {"nan", o.nan}, {"inf", o.inf},
                      {"min", o.min}, {"max", o.max}, {"mean", o.mean}});
        } else {
            j["value"] = o.value;
        }
        outputs.push_back(std::move(j));
    }
    json perNode = json::array();
    for (const auto& n : r.perNode) {
        perNode.push_back({{"name", n.name}, {"target", n.target}, {"ms", n.ms}});
    }
    json unsupported = json::array();
    for (const auto& u : r.unsupported) {
        unsupported.push_back({{"node", u.node}, {"target", u.target}, {"reason", u.reason}});
    }
    return {{"ok", r.ok}, {"device", r.device}, {"nodes_run", r.nodesRun},
            {"total_ms", r.totalMs}, {"peak_bytes", r.peakBytes}, {"outputs", outputs},
            {"per_node", perNode}, {"unsupported", unsupported}, {"notes", r.notes}};
}

// The deepest module holding every node of the region that has one ("" when none does).
std::string regionModule(const structure::ModuleTree* tree, const partition::Region& region)
{
    std::optional<std::string> common;
    for (graph::NodeId id : region.nodes) {
        const std::string path = tree ? std::string(tree->pathOf(id)) : std::string();
        if (path.empty()) {
            continue;
        }
        if (!common) {
            common = path;
            continue;
        }
        std::size_t n = 0; // the longest shared prefix that ends at a dot or a path's end
        for (std::size_t i = 0; i <= std::min(common->size(), path.size()); ++i) {
            const bool endA = i == common->size() || (*common)[i] == '.';
            const bool endB = i == path.size() || path[i] == '.';
            if (endA && endB) {
                n = i;
            }
            if (i == common->size() || i == path.size() || (*common)[i] != path[i]) {
                break;
            }
        }
        common->resize(n);
    }
    return common.value_or("");
}

json compiledJson(const compile::CompiledGraphReport& c, const std::vector<std::string>& modules)
{
    json j = reportJson(c.compiled);
    j["compiled"] = true;
    j["eager_total_ms"] = c.eager.totalMs;
    // CUDA: GPU time between events around the steps, without per-node syncs; null on the CPU.
    j["device_ms"] = c.deviceMs ? json(*c.deviceMs) : json(nullptr);
    j["eager_device_ms"] = c.eagerDeviceMs ? json(*c.eagerDeviceMs) : json(nullptr);
    // CUDA: the host's time issuing the steps (or the replay); null on the CPU.
    j["host_ms"] = c.hostMs ? json(*c.hostMs) : json(nullptr);
    j["eager_host_ms"] = c.eagerHostMs ? json(*c.eagerHostMs) : json(nullptr);
    j["cuda_graph"] = c.cudaGraph;
    // --kernel-time: the GPU work's durations per run (LibTorch's profiler); null otherwise.
    j["kernel_ms"] = c.kernelMs ? json(*c.kernelMs) : json(nullptr);
    j["eager_kernel_ms"] = c.eagerKernelMs ? json(*c.eagerKernelMs) : json(nullptr);
    j["kernel_events"] = c.kernelMs ? json(c.kernelEvents) : json(nullptr);
    j["eager_kernel_events"] = c.eagerKernelMs ? json(c.eagerKernelEvents) : json(nullptr);
    json top = json::array();
    for (const auto& [name, ms, count] : c.topKernels) {
        top.push_back({{"name", name}, {"ms", ms}, {"count", count}});
    }
    j["top_kernels"] = c.kernelMs ? top : json(nullptr);
    j["regions_used"] = c.regionsUsed;
    // Generated kernels of the regions used plus one per LibTorch step doing device work.
    j["kernels"] = c.kernels;
    json regions = json::array();
    for (std::size_t i = 0; i < c.regions.size(); ++i) {
        const auto& r = c.regions[i];
        regions.push_back({{"id", r.id},
                           {"module", i < modules.size() ? modules[i] : std::string()},
                           {"state", compile::regionStateName(r.state)},
                           {"reason_code", static_cast<int>(r.reason)},
                           {"reason", cache::reasonName(r.reason)},
                           {"kernels", r.kernels},
                           {"ms", i < c.regionMs.size() ? c.regionMs[i] : 0.0}});
    }
    j["regions"] = std::move(regions);
    // Matrix products outside the regions run as one per group (shared operand: "left", the
    // results column blocks of one product; "right", row blocks; "sum": products summed, one
    // product over the joined inner dimension; "batched": independent products of one shape,
    // one batched cuBLAS call).
    json groups = json::array();
    for (const auto& g : c.matmulGroups) {
        groups.push_back({{"id", g.id},
                          {"nodes", g.nodes},
                          {"shared", g.shared == 0   ? "left"
                                     : g.shared == 1 ? "right"
                                     : g.shared == 2 ? "sum"
                                                     : "batched"},
                          {"fused_runs", g.fusedRuns},
                          {"separate_runs", g.separateRuns},
                          {"kept_operand_runs", g.keptRuns}});
    }
    j["matmul_groups"] = std::move(groups);
    // Float32 products that called cuBLAS directly in the compiled run (--no-direct-matmuls: 0).
    j["direct_matmuls"] = c.directMatmuls;
    // addmm nodes of one compiled run made as one direct cuBLASLt call with the bias in its
    // epilogue (--no-direct-matmuls, or not on CUDA: 0).
    j["direct_addmms"] = c.directAddmms;
    // Convolutions run with their epilogue as one step, and those of one compiled run cuDNN
    // made as one graph (--no-conv-fusion, or not on CUDA: 0 and 0).
    j["conv_epilogues"] = c.convEpilogues;
    j["cudnn_convs"] = c.cudnnConvs;
    if (!c.matmulNote.empty()) {
        j["notes"].push_back(c.matmulNote);
    }
    for (std::size_t i = 0; i < j["outputs"].size(); ++i) {
        const auto& err = i < c.outputMaxAbsErr.size() ? c.outputMaxAbsErr[i] : std::nullopt;
        j["outputs"][i]["max_abs_err"] = err ? json(*err) : json(nullptr);
        if (i < c.outputNotCompared.size() && !c.outputNotCompared[i].empty()) {
            j["outputs"][i]["not_compared"] = c.outputNotCompared[i];
        }
    }
    return j;
}

void printText(const exec::RunReport& r)
{
    for (const auto& n : r.notes) {
        std::printf("note: %s\n", n.c_str());
    }
    if (!r.unsupported.empty()) {
        std::printf("cannot run: %zu unsupported node(s)\n", r.unsupported.size());
        for (const auto& u : r.unsupported) {
            std::printf("  %s  %s: %s\n", u.node.c_str(), u.target.c_str(), u.reason.c_str());
        }
        return;
    }
    std::printf("ran %d nodes on %s in %.3f ms, peak %.1f MiB\n", r.nodesRun, r.device.c_str(),
                r.totalMs, static_cast<double>(r.peakBytes) / (1 << 20));
    for (const auto& o : r.outputs) {
        if (!o.isTensor) {
            std::printf("  %-24s %s\n", o.name.c_str(), o.value.c_str());
            continue;
        }
        std::string shape;
        for (auto d : o.shape) {
            shape += (shape.empty() ? "" : ", ") + std::to_string(d);
        }
        std::printf("  %-24s %s[%s] min %.4g max %.4g mean %.4g nan %lld inf %lld\n",
                    o.name.c_str(), o.dtype.c_str(), shape.c_str(), o.min, o.max, o.mean,
                    static_cast<long long>(o.nan), static_cast<long long>(o.inf));
    }
}

void printCompiledText(const compile::CompiledGraphReport& c)
{
    printText(c.compiled);
    std::printf("compiled: %.3f ms, eager %.3f ms (%.2fx); %d of %zu regions used; "
                "%d kernels launched\n",
                c.compiled.totalMs, c.eager.totalMs,
                c.compiled.totalMs > 0 ? c.eager.totalMs / c.compiled.totalMs : 0.0,
                c.regionsUsed, c.regions.size(), c.kernels);
    if (c.deviceMs && c.eagerDeviceMs && c.hostMs && c.eagerHostMs) {
        const int nodes = std::max(1, c.compiled.nodesRun);
        std::printf("GPU%s: compiled %.3f ms, eager %.3f ms; host %.3f ms (%.2f us a node), "
                    "eager host %.3f ms\n",
                    c.cudaGraph ? " (CUDA graph replays)" : "", *c.deviceMs, *c.eagerDeviceMs,
                    *c.hostMs, *c.hostMs * 1000.0 / nodes, *c.eagerHostMs);
    }
    if (c.kernelMs && c.eagerKernelMs) {
        std::printf("GPU kernels (LibTorch's profiler): compiled %.3f ms in %.0f, eager %.3f ms "
                    "in %.0f\n",
                    *c.kernelMs, c.kernelEvents, *c.eagerKernelMs, c.eagerKernelEvents);
    }
    if (!c.matmulGroups.empty()) {
        std::size_t nodes = 0;
        std::size_t batched = 0; // groups made as one batched call, not one product
        for (const auto& g : c.matmulGroups) {
            nodes += g.nodes.size();
            batched += g.shared == 3 ? 1 : 0;
        }
        std::printf("matrix products: %zu mm nodes in %zu groups, one product a group", nodes,
                    c.matmulGroups.size());
        if (batched > 0) {
            std::printf(" (%zu of them one batched call)", batched);
        }
        std::printf("\n");
    }
    if (c.directMatmuls > 0) {
        std::printf("matrix products straight to cuBLAS: %ld a run\n", c.directMatmuls);
    }
    if (c.directAddmms > 0) {
        std::printf("addmm straight to cuBLASLt, the bias in its epilogue: %ld a run\n",
                    c.directAddmms);
    }
    if (c.convEpilogues > 0) {
        std::printf("convolutions with their norm, add and relu: %d steps, %ld a run as one "
                    "cuDNN graph\n",
                    c.convEpilogues, c.cudnnConvs);
    }
    if (!c.matmulNote.empty()) {
        std::printf("note: %s\n", c.matmulNote.c_str());
    }
    for (std::size_t i = 0; i < c.regions.size(); ++i) {
        const auto& r = c.regions[i];
        std::printf("  %-5s %-8s %3d kernels %8.3f ms  %s [%s]\n", r.id.c_str(),
                    std::string(compile::regionStateName(r.state)).c_str(), r.kernels,
                    i < c.regionMs.size() ? c.regionMs[i] : 0.0, r.headline.c_str(),
                    std::string(cache::reasonName(r.reason)).c_str());
    }
    for (std::size_t i = 0; i < c.outputMaxAbsErr.size() && i < c.compiled.outputs.size(); ++i) {
        const char* name = c.compiled.outputs[i].name.c_str();
        if (c.outputMaxAbsErr[i]) {
            std::printf("  %-24s max abs err vs eager %.3g\n", name, *c.outputMaxAbsErr[i]);
        } else if (i < c.outputNotCompared.size() && !c.outputNotCompared[i].empty()) {
            std::printf("  %-24s not compared: %s\n", name, c.outputNotCompared[i].c_str());
        }
    }
}

int fail(const RunCliOptions& o, const Error& e, int code)
{
    if (o.json) {
        exec::RunReport empty;
        json j = reportJson(empty);
        j["error"] = errorJson(e);
        printJson(j);
    } else {
        std::fprintf(stderr, "fxscope-cli run: %s\n", e.toString().c_str());
    }
    return code;
}

// --compiled --auto: each addmm whose bias add can ride in the generated kernel after it runs as
// mm + add (compile::splitBiasEpilogues) and *note says how many; the graph itself otherwise.
// --project regions name the original graph's nodes, so it is left as it is.
Result<graph::GraphPtr> graphToCompile(const RunCliOptions& o, const LoadedGraph& g,
                                       std::string* note)
{
    if (!o.autoRegions) {
        return g.graph;
    }
    compile::BiasSplitCounts counts;
    auto split = compile::splitBiasEpilogues(*g.graph, &counts);
    if (!split) {
        return split;
    }
    if (counts.split == 0) {
        return g.graph;
    }
    *note = "addmm: " + std::to_string(counts.split) + " of " + std::to_string(counts.addmms) +
            " bias adds moved into the next kernel (mm + add)";
    return split;
}

// The region's module in the loaded graph's tree, whose ids are the original graph's (a split
// addmm's mm node has none there and is skipped).
std::string loadedModule(const structure::ModuleTree* tree, const graph::Graph& original,
                         const graph::Graph& run, partition::Region r)
{
    if (&original == &run) {
        return regionModule(tree, r); // not rewritten: the ids are the tree's already
    }
    std::vector<graph::NodeId> ids;
    for (graph::NodeId id : r.nodes) {
        if (auto o = original.find(run.node(id).name)) {
            ids.push_back(*o);
        }
    }
    r.nodes = std::move(ids);
    return regionModule(tree, r);
}

// --compiled: the regions compiled as `compile` does, then the graph with them in place.
int runCompiled(const RunCliOptions& o, const LoadedGraph& g, const exec::RunOptions& ro,
                const std::string& note)
{
    std::string splitNote;
    auto toRun = graphToCompile(o, g, &splitNote);
    if (!toRun) {
        return fail(o, toRun.error(), 1);
    }
    const graph::Graph& gr = **toRun;
    compile::GraphCompileOptions co;
    co.compile.device = compile::resolveDevice(
        gr, o.device == "cuda"  ? compile::DeviceChoice::Cuda
            : o.device == "cpu" ? compile::DeviceChoice::Cpu
                                : compile::DeviceChoice::Auto);
    co.fuseConvolutions = o.noConvFusion ? compile::ConvFusion::Off : compile::ConvFusion::Auto;
    co.fuseMatmuls = !o.noMatmulFusion;
    // The adds of summed products stay out of the proposal, so the sums can form; so do the
    // nodes after a convolution that its step takes (conv_fusion.h).
    std::vector<std::string> leftOut;
    if (o.autoRegions) {
        leftOut = compile::autoProposalLeftOut(gr, co);
    }
    auto regions = regionsFromSource(gr, g.sourceBytes, o.project, o.autoRegions, "run",
                                     leftOut);
    if (!regions) {
        return fail(o, regions.error(), 2);
    }
    auto store = openStoreFor(o.cache, "run");
    if (!store) {
        return fail(o, store.error(), 1);
    }
    if (!o.tuning.empty()) {
        auto t = codegen::CudaTuning::read(o.tuning);
        if (!t) {
            Error e = t.error();
            e.message = "--cuda-tuning: " + e.message;
            return fail(o, e, 2);
        }
        co.compile.cudaTuning = *t;
    }
    co.compile.store = store->get();
    co.compile.jobs = o.jobs;
    co.compile.timingRepeats = std::max(5, o.repeat); // as compile's default: enough to judge
                                                      // a region slower than eager
    co.run = ro;
    co.run.convLayout = *compile::resolveConvLayout(o.convLayout, co.compile.device);
    co.run.chooseAddmm = co.compile.device == compile::TargetDevice::Cuda;
    co.cudaGraph = o.cudaGraph;
    co.kernelTime = o.kernelTime;
    co.keepMatmulOperands = !o.noKeptOperands;
    co.directMatmuls = !o.noDirectMatmuls;
    co.batchMatmuls = !o.noBatchedMatmuls;
    auto report = compile::runCompiledGraph(gr, *regions, co);
    if (!report) {
        return fail(o, report.error(), 1);
    }
    if (!report->eager.ok) { // unsupported nodes: nothing ran
        if (o.json) {
            printJson(reportJson(report->eager));
        } else {
            printText(report->eager);
        }
        return 1;
    }
    for (const std::string& n : {note, splitNote}) {
        if (!n.empty()) {
            report->compiled.notes.push_back(n);
        }
    }
    if (o.hostTimes) {
        report->compiled.notes.push_back(kHostTimesNote);
    }
    auto tree = structureOf(g);
    std::vector<std::string> modules;
    for (const auto& r : *regions) {
        modules.push_back(loadedModule(tree ? &*tree : nullptr, *g.graph, gr, r));
    }
    if (o.json) {
        json j = compiledJson(*report, modules);
        j["conv_layout"] = co.run.convLayout == exec::ConvLayout::ChannelsLast ? "channels_last"
                                                                              : "recorded";
        // The compiled run's convolution weights: converted to channels_last, or the eager
        // run's copies reused (ConvWeightCache).
        j["conv_weights"] = {{"converted", report->compiled.convWeightsConverted},
                             {"reused", report->compiled.convWeightsReused}};
        printJson(j);
    } else {
        printCompiledText(*report);
    }
    return report->compiled.ok ? 0 : 1;
}

int runRun(const RunCliOptions& o)
{
    exec::RunOptions ro;
    ro.seed = o.seed;
    ro.repeat = o.repeat;
    ro.inputsFile = o.inputs;
    ro.syncPerNode = !o.hostTimes;
    ro.directViews = !o.dispatchedViews;
    ro.device = o.device == "cpu" ? exec::DevicePref::Cpu
                : o.device == "cuda" ? exec::DevicePref::Cuda
                                     : exec::DevicePref::Auto;
    if (auto s = parseSizes(o.sizes, ro.sizes); !s.ok()) {
        return fail(o, s.error(), 2);
    }
    auto g = loadGraph(o.graph, o.selector);
    if (!g.ok()) {
        return fail(o, g.error(), 2);
    }
    // A TorchScript module's or .pt2 archive's own weights (and the archive's sample inputs
    // unless the user gave inputs or sizes).
    std::string note;
    auto weights = graphWeights(*g, o.inputs.empty() && o.sizes.empty(), &note);
    if (!weights.ok()) {
        return fail(o, weights.error(), 2);
    }
    ro.inputs = *weights;
    if (auto s = completeSizes(*g, ro.sizes); !s.ok()) {
        return fail(o, s.error(), 2);
    }
    if (!o.forward.empty()) {
        auto fw = loadGraph(o.forward, o.forwardSelector);
        if (!fw.ok()) {
            return fail(o, fw.error(), 2);
        }
        ro.forwardGraph = fw->graph;
    }
    if (o.compiled) {
        return runCompiled(o, *g, ro, note);
    }
    // Plain runs keep the graph's layouts unless asked ("auto" is for compiled runs).
    ro.convLayout = *compile::resolveConvLayout(o.convLayout == "auto" ? "recorded" : o.convLayout,
                                                compile::TargetDevice::Cpu);
    auto report = exec::Interpreter::run(*g->graph, ro);
    if (!report.ok()) {
        return fail(o, report.error(), 1);
    }
    if (!note.empty()) {
        report->notes.push_back(note);
    }
    if (o.hostTimes) {
        report->notes.push_back(kHostTimesNote);
    }
    if (o.json) {
        printJson(reportJson(*report));
    } else {
        printText(*report);
    }
    return report->ok ? 0 : 1;
}

} // namespace cmd_run_detail

void addRunCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_run_detail;
    auto options = std::make_shared<RunCliOptions>();
    CLI::App* cmd = app.add_subcommand(
        "run", "Run a graph (graph code, TorchScript .pt, TORCH_TRACE) on the reference engine");
    cmd->add_option("graph", options->graph, "Graph-code file, TorchScript .pt or TORCH_TRACE")
        ->required();
    cmd->add_option("--graph", options->selector,
                    "TORCH_TRACE input: which graph, N or COMPILE_ID:KIND[#N] (see README)");
    auto* forward = cmd->add_option(
        "--from-forward", options->forward,
        "Forward graph to run first; its values feed this (backward) graph");
    cmd->add_option("--forward-graph", options->forwardSelector,
                    "TORCH_TRACE --from-forward: which graph (like --graph)")
        ->needs(forward);
    cmd->add_option("--repeat", options->repeat, "Timed runs (a warm-up run is added when > 1)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--size", options->sizes, "Symbolic size, NAME=INT (repeatable)");
    cmd->add_option("--seed", options->seed, "Seed for synthesised inputs");
    cmd->add_option("--inputs", options->inputs,
                    "Real inputs: a torch.save({name: tensor}) file (names as the placeholders)");
    cmd->add_option("--device", options->device, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_flag("--json", options->json, "Print the JSON contract instead of text");
    auto* compiled = cmd->add_flag(
        "--compiled", options->compiled,
        "Run with the compiled regions in place (as `compile` builds them) next to an eager run");
    auto* project = cmd->add_option("--project", options->project,
                                    "--compiled: regions from a .fxscope project")
                        ->needs(compiled);
    cmd->add_flag("--auto", options->autoRegions, "--compiled: regions from the automatic proposal")
        ->needs(compiled)
        ->excludes(project);
    cmd->add_option("--cache", options->cache,
                    "--compiled: cache database (default as for compile)")
        ->needs(compiled);
    cmd->add_flag("--cuda-graph", options->cudaGraph,
                  "--compiled on CUDA: time both graphs as CUDA graph replays")
        ->needs(compiled);
    cmd->add_flag("--kernel-time", options->kernelTime,
                  "--compiled on CUDA: also sum both graphs' GPU work per run with LibTorch's "
                  "profiler (Kineto; a PyTorch wheel's LibTorch)")
        ->needs(compiled);
    cmd->add_flag("--no-matmul-fusion", options->noMatmulFusion,
                  "--compiled: run every mm node on its own (by default mm nodes outside the "
                  "regions that share an operand run as one product)")
        ->needs(compiled);
    cmd->add_flag("--no-kept-operands", options->noKeptOperands,
                  "--compiled: lay a group's weights side by side every run (by default they are "
                  "joined once and kept while unchanged: one copy of the grouped weights)")
        ->needs(compiled);
    cmd->add_flag("--no-direct-matmuls", options->noDirectMatmuls,
                  "--compiled on CUDA: run float32 matrix products through LibTorch's mm (by "
                  "default the compiled run calls cuBLAS for them directly, as mm does, with "
                  "less host time a call)")
        ->needs(compiled);
    cmd->add_flag("--no-batched-matmuls", options->noBatchedMatmuls,
                  "--compiled on CUDA: make a training step's weight gradients one by one (by "
                  "default float32 products of one shape that only the outputs read run as one "
                  "batched cuBLAS call)")
        ->needs(compiled);
    cmd->add_flag("--no-conv-fusion", options->noConvFusion,
                  "--compiled on CUDA: leave a convolution's batch norm, residual add and relu to "
                  "the regions (by default they run with the convolution as one cuDNN graph)")
        ->needs(compiled);
    cmd->add_flag("--host-times", options->hostTimes,
                  "CUDA: per_node times are the host's work only (no synchronisation per node): "
                  "where the host's time goes when nothing waits on the GPU");
    cmd->add_flag("--dispatched-views", options->dispatchedViews,
                  "Run view operators (t, view, transpose, ...) through LibTorch's dispatcher "
                  "instead of making their aliases directly (same results; for comparisons)");
    cmd->add_option("--conv-layout", options->convLayout,
                    "Convolutions' layout: auto (channels-last for --compiled on CUDA, else "
                    "recorded), recorded or channels-last")
        ->check(CLI::IsMember({"auto", "recorded", "channels-last"}));
    cmd->add_option("--jobs", options->jobs,
                    "--compiled: regions built at once (default 0: the hardware threads, at "
                    "most 8)")
        ->check(CLI::Range(0, 256))
        ->needs(compiled);
    cmd->add_option("--cuda-tuning", options->tuning,
                    "--compiled on CUDA: launch parameters of the generated kernels, as for "
                    "compile ('block=256 unroll=1 row_elements=8')")
        ->needs(compiled);
    cmd->callback([options, &exitCode] {
        try {
            exitCode = runRun(*options);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "fxscope-cli run: %s\n", e.what());
            exitCode = 1;
        }
    });
}

} // namespace fxs::cli
