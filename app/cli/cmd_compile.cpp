// fxscope-cli compile GRAPH [--project P | --auto] [--cache DB] [--remote URL] [--json]
// [--dump DIR] [--jobs N]: compiles the graph's regions with fxscope's code generator (through
// the artifact cache, and its remote tier when given; the builds on N threads), runs them next
// to the eager engine and reports per region hit / miss / fallback with timings and its
// numbered reason. Contract: README.
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/graph_input.h"
#include "app/cli/interrupt.h"
#include "app/cli/region_source.h"
#include "app/cli/remote_option.h"
#include "app/cli/store_option.h"
#include "core/cache/cache_store.h"
#include "core/compile/graph_compile.h"
#include "core/cuda/device.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace fxs::cli {
namespace cmd_compile_detail {

using nlohmann::json;

struct CompileCliOptions {
    std::string graph;
    std::string selector; // --graph, for TORCH_TRACE input
    std::string project;
    bool autoRegions = false;
    std::string cache;
    bool json = false;
    int repeat = 5;
    int jobs = 0; // --jobs: builds at once (0: automatic)
    bool retime = false;
    std::uint64_t seed = 0;
    std::string inputs; // --inputs: real inputs file
    std::string dump;   // --dump: where each region's schedule, IR, source and pass times go
    std::string device = "auto";
    std::string convLayout = "auto"; // --conv-layout (compile::resolveConvLayout)
    bool noRun = false;
    std::string arch;   // --arch sm_90
    std::string tuning; // --cuda-tuning
    std::string forward;         // --from-forward: the forward graph that feeds this backward one
    std::string forwardSelector; // --forward-graph
    RemoteCliOptions remote;
};

int fail(const std::string& what)
{
    std::cerr << "fxscope-cli compile: " << what << "\n";
    return 1;
}

int usage(const std::string& what)
{
    std::cerr << "fxscope-cli compile: " << what << "\n";
    return 2;
}

json outcomeJson(const compile::RegionOutcome& r)
{
    return {{"id", r.id},
            {"nodes", r.nodes},
            {"extern_nodes", r.externNodes},
            {"kernels", r.kernels},
            {"state", compile::regionStateName(r.state)},
            {"reason_code", static_cast<int>(r.reason)},
            {"reason", cache::reasonName(r.reason)},
            {"headline", r.headline},
            {"key", r.key},
            {"compile_ms", r.compileMs},
            {"eager_ms", r.eagerMs},
            {"compiled_ms", r.compiledMs},
            {"max_abs_err", r.maxAbsErr},
            {"device", r.device},
            {"target", r.target},
            {"timing", r.timing},
            {"timings_from_cache", r.timingsFromEntry},
            {"eager_spread_ms", r.eagerSpreadMs},
            {"compiled_spread_ms", r.compiledSpreadMs},
            {"eager_b2b_ms", r.eagerBackToBackMs},
            {"compiled_b2b_ms", r.compiledBackToBackMs},
            {"bytes_moved", r.bytesMoved},
            {"achieved_GBps", r.compiledMs > 0 ? double(r.bytesMoved) / (r.compiledMs * 1e6) : 0.0},
            {"resources", r.resources}};
}

void printHuman(const std::vector<compile::RegionOutcome>& outs, double eager, double compiled)
{
    for (const auto& r : outs) {
        std::printf("%-5s %3d nodes  %-8s compile %8.1f ms  eager %8.3f ms  compiled %8.3f ms"
                    "  err %.2g\n      %s [%s]\n",
                    r.id.c_str(), r.nodes, std::string(compile::regionStateName(r.state)).c_str(),
                    r.compileMs, r.eagerMs, r.compiledMs, r.maxAbsErr, r.headline.c_str(),
                    std::string(cache::reasonName(r.reason)).c_str());
    }
    std::printf("total eager %.3f ms, compiled %.3f ms (%.2fx)\n", eager, compiled,
                compiled > 0 ? eager / compiled : 0.0);
}

int runCompile(const CompileCliOptions& o)
{
    auto loaded = loadGraphInput(o.graph, o.selector);
    if (!loaded) {
        return fail(loaded.error().toString());
    }
    const graph::Graph& g = *loaded->graph;
    auto regions = regionsFromSource(g, loaded->sourceBytes, o.project, o.autoRegions, "compile");
    if (!regions) {
        return fail(regions.error().toString());
    }
    auto store = openStoreFor(o.cache, "compile");
    if (!store) {
        return fail(store.error().toString());
    }
    auto tier = openRemote(o.remote);
    if (!tier) {
        return fail(tier.error().toString());
    }
    compile::GraphCompileOptions co;
    co.compile.remote = tier->get();
    const auto choice = o.device == "cuda" ? compile::DeviceChoice::Cuda
                        : o.device == "cpu" ? compile::DeviceChoice::Cpu
                                            : compile::DeviceChoice::Auto;
    co.compile.device = compile::resolveDevice(g, choice);
    co.compile.buildOnly = o.noRun;
    if (!o.arch.empty()) {
        co.compile.cudaArch = cuda::parseArch(o.arch);
        if (co.compile.cudaArch == 0) {
            return usage("--arch: expected an architecture such as sm_90, found '" + o.arch + "'");
        }
    }
    if (!o.tuning.empty()) {
        auto t = codegen::CudaTuning::read(o.tuning);
        if (!t) {
            return usage("--cuda-tuning: " + t.error().message);
        }
        co.compile.cudaTuning = *t;
    }
    co.compile.store = store->get();
    co.compile.timingRepeats = o.repeat;
    co.compile.jobs = o.jobs;
    co.compile.retime = o.retime;
    co.compile.dumpDir = o.dump;
    co.run.seed = o.seed;
    co.run.convLayout = *compile::resolveConvLayout(o.convLayout, co.compile.device);
    co.run.chooseAddmm = co.compile.device == compile::TargetDevice::Cuda;
    // A TorchScript module's or .pt2 archive's own weights (and sample inputs, unless given).
    auto weights = graphWeights(*loaded, o.inputs.empty());
    if (!weights) {
        return fail(weights.error().toString());
    }
    co.run.inputs = *weights;
    if (auto s = completeSizes(*loaded, co.run.sizes); !s) {
        return fail(s.error().toString());
    }
    co.run.inputsFile = o.inputs;
    if (!o.forward.empty()) {
        // A backward graph's inputs are the forward's saved values and tangents (as `run`
        // feeds them): synthesised ones need not be what backward ops accept.
        auto fw = loadGraphInput(o.forward, o.forwardSelector);
        if (!fw) {
            return fail(fw.error().toString());
        }
        if (fw->diagnostics.errorCount() > 0) {
            return fail(o.forward + ": the forward graph has parse errors");
        }
        co.run.forwardGraph = fw->graph;
    }
    auto report = compile::compileGraphRegions(g, *regions, co, interruptToken());
    if (!report) {
        return fail(report.error().toString());
    }
    const int status = report->cancelled ? kInterruptedExit : 0;
    const double eager = report->totalEagerMs;
    const double compiled = report->totalCompiledMs;
    const std::vector<compile::RegionOutcome>& outs = report->regions;
    json list = json::array();
    for (const auto& r : outs) {
        list.push_back(outcomeJson(r));
    }
    if (*tier) {
        printRemoteWarnings("compile", **tier);
    }
    if (o.json) {
        json j = {{"device", std::string(compile::targetDeviceName(co.compile.device))},
                  {"regions", list},
                  {"total_eager_ms", eager},
                  {"total_compiled_ms", compiled}};
        if (*tier) {
            j["remote"] = remoteJson(**tier);
        }
        if (report->cancelled) { // interrupted: the regions done before the signal
            j["cancelled"] = true;
        }
        printJson(j);
    } else {
        printHuman(outs, eager, compiled);
        if (report->cancelled) {
            std::printf("cancelled after %zu of %zu regions\n", outs.size(), regions->size());
        }
    }
    return status;
}

} // namespace cmd_compile_detail

void addCompileCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_compile_detail;
    auto o = std::make_shared<CompileCliOptions>();
    auto* cmd = app.add_subcommand("compile", "Compile a graph's regions and compare with eager");
    cmd->add_option("GRAPH", o->graph, "Graph code, TorchScript .pt or TORCH_TRACE")->required();
    cmd->add_option("--graph", o->selector, "TORCH_TRACE input: which graph (see README)");
    auto* project = cmd->add_option("--project", o->project, "Regions from a .fxscope project");
    cmd->add_flag("--auto", o->autoRegions, "Regions from the automatic proposal")
        ->excludes(project);
    cmd->add_option("--cache", o->cache, "Cache database (default: $FXSCOPE_CACHE_DIR/cache.db, "
                                         "$XDG_CACHE_HOME/fxscope/cache.db, ~/.cache/...)");
    cmd->add_flag("--json", o->json, "JSON output (contract in README)");
    cmd->add_option("--repeat", o->repeat, "Timed runs per region (default 5)");
    cmd->add_option("--jobs", o->jobs,
                    "Regions built at once (default 0: the hardware threads, at most 8); "
                    "verification and timing stay one region at a time")
        ->check(CLI::Range(0, 256));
    cmd->add_flag("--retime", o->retime,
                  "Time the regions that hit verified cache entries again (default: the "
                  "timings saved with the entry on this device), and judge anew those found "
                  "slower than eager before");
    cmd->add_option("--seed", o->seed, "Seed of the synthesised inputs");
    cmd->add_option("--inputs", o->inputs,
                    "Real inputs: a torch.save({name: tensor}) file (names as the placeholders)");
    cmd->add_option("--dump", o->dump,
                    "Write each region's schedule, loop IR, C++ source and pass times to DIR "
                    "(also: $FXSCOPE_DUMP_CODEGEN)");
    cmd->add_option("--device", o->device,
                    "cuda, cpu or auto (default: CUDA when the graph was recorded on CUDA and "
                    "a GPU is present)")
        ->check(CLI::IsMember({"cuda", "cpu", "auto"}));
    cmd->add_option("--conv-layout", o->convLayout,
                    "Convolutions' layout in the eager run that feeds the regions: auto "
                    "(channels-last on CUDA, as run --compiled; else recorded), recorded or "
                    "channels-last")
        ->check(CLI::IsMember({"auto", "recorded", "channels-last"}));
    cmd->add_flag("--no-run", o->noRun,
                  "Generate, build and cache only (no eager run, no verification); regions "
                  "report state 'built'. Works for --device cuda without a GPU");
    cmd->add_option("--arch", o->arch, "CUDA architecture to build for (default: the GPU's, "
                                       "else sm_90)");
    cmd->add_option("--cuda-tuning", o->tuning,
                    "CUDA launch parameters, e.g. 'block=256 unroll=1 row_elements=8'");
    auto* forward = cmd->add_option(
        "--from-forward", o->forward,
        "Forward graph to run first; its saved values and tangents feed this backward graph");
    cmd->add_option("--forward-graph", o->forwardSelector,
                    "TORCH_TRACE --from-forward: which graph (like --graph)")
        ->needs(forward);
    addRemoteOptions(cmd, o->remote);
    cmd->callback([o, &exitCode] {
        try {
            exitCode = runCompile(*o);
        } catch (const std::exception& e) {
            exitCode = fail(e.what());
        }
    });
}

} // namespace fxs::cli
