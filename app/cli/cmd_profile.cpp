// fxscope-cli profile GRAPH [--project P | --auto] [--repeat N] [--trace out.json] [--csv F]
// [--save F] [--eager-only] [--remote URL] [--json]: run-time profile of a graph (per node and per region:
// eager/compiled time, bytes, roofline bound). The JSON shape is a contract (README).
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/graph_input.h"
#include "app/cli/region_source.h"
#include "app/cli/remote_option.h"
#include "app/cli/store_option.h"
#include "core/cache/cache_store.h"
#include "core/trace_profile/chrome_trace.h"
#include "core/profile/module_profile.h"
#include "core/profile/profile_file.h"
#include "core/profile/runtime_profile.h"
#include "core/util/file_reader.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace fxs::cli {
namespace cmd_profile_detail {

using nlohmann::json;

struct ProfileCliOptions {
    std::string graph;
    std::string selector; // --graph, for TORCH_TRACE input
    std::string project;
    bool autoRegions = false;
    int repeat = 5;
    std::uint64_t seed = 0;
    std::string inputs; // --inputs: real inputs file
    std::string trace;
    std::string csv;
    std::string save;
    std::string cache;
    bool eagerOnly = false;
    bool json = false;
    RemoteCliOptions remote;
};

int fail(const std::string& what, int code)
{
    std::cerr << "fxscope-cli profile: " << what << "\n";
    return code;
}

json optMs(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

json modulesJson(const profile::ModuleBreakdown& b)
{
    json modules = json::array();
    for (const auto& m : b.modules) {
        modules.push_back({{"path", m.path}, {"depth", m.depth}, {"nodes", m.nodes},
                           {"eager_ms", m.eagerMs}, {"share", m.share},
                           {"bytes_moved", m.bytesMoved}, {"flops", m.flops}});
    }
    return modules;
}

// The whole graph with its compiled regions in place, when the profile compiled them.
void addCompiledGraph(json& j, const profile::RuntimeProfile& p)
{
    if (!p.compiledGraph) {
        return;
    }
    const profile::CompiledGraphProfile& c = *p.compiledGraph;
    const auto stat = [](const profile::TimeStat& t) {
        return json{{"median_ms", t.medianMs}, {"spread_ms", t.spreadMs}, {"min_ms", t.minMs},
                    {"max_ms", t.maxMs}};
    };
    j["compiled_total"] = stat(c.total);
    j["eager_total"] = stat(c.eager); // the same rounds as compiled_total
    j["regions_used"] = c.regionsUsed;
    j["matmul_groups"] = c.matmulGroups;
    if (c.deviceMs && c.eagerDeviceMs) {
        j["device_ms"] = *c.deviceMs;
        j["eager_device_ms"] = *c.eagerDeviceMs;
    }
}

json profileJson(const profile::RuntimeProfile& p, const profile::ModuleBreakdown& b)
{
    json nodes = json::array();
    for (const auto& n : p.nodes) {
        nodes.push_back({{"name", n.name}, {"target", n.target}, {"region", n.region},
                         {"eager_ms", n.eager.medianMs}, {"spread_ms", n.eager.spreadMs},
                         {"compiled_ms", optMs(n.compiledMs)}, {"bytes", n.bytes},
                         {"bytes_moved", n.bytesMoved}, {"flops", n.flops}, {"share", n.share},
                         {"bound", profile::boundName(n.bound)}, {"efficiency", n.efficiency}});
    }
    json regions = json::array();
    for (const auto& r : p.regions) {
        const double ms = r.compiledMs.value_or(r.eager.medianMs);
        const double gbps = ms > 0 ? double(r.bytesMoved) / (ms * 1e6) : 0.0;
        regions.push_back({{"id", r.id}, {"nodes", r.nodes}, {"eager_ms", r.eager.medianMs},
                           {"spread_ms", r.eager.spreadMs}, {"compiled_ms", optMs(r.compiledMs)},
                           {"compiled_median_ms", r.compiled.medianMs},
                           {"compiled_spread_ms", r.compiled.spreadMs},
                           {"compile_state", r.compileState}, {"bytes_moved", r.bytesMoved},
                           {"flops", r.flops}, {"share", r.share},
                           {"bound", profile::boundName(r.bound)}, {"efficiency", r.efficiency},
                           {"achieved_GBps", gbps},
                           {"copy_share", p.peaks.copyGBps > 0 ? gbps / p.peaks.copyGBps : 0.0}});
    }
    json j{{"graph", p.graph}, {"device", p.device}, {"repeat", p.repeat},
           {"total_ms", p.total.medianMs}, {"peak_bytes", p.peakBytes}, {"nodes", nodes},
           {"regions", regions}, {"copy_GBps", p.peaks.copyGBps},
           {"matmul_GFLOPs", p.peaks.matmulGflops}, {"notes", p.notes},
           {"modules", modulesJson(b)},
           {"unassigned_to_module",
            {{"nodes", b.unassignedNodes}, {"eager_ms", b.unassignedMs},
             {"share", b.unassignedShare}}}};
    addCompiledGraph(j, p);
    return j;
}

// Modules down to depth 2 (roots, their children and grandchildren), indented.
void printModules(const profile::ModuleBreakdown& b)
{
    for (const auto& m : b.modules) {
        if (m.depth <= 2) {
            std::printf("module %*s%-*s %9.4f ms %5.1f%%  %zu nodes\n", m.depth * 2, "",
                        40 - m.depth * 2, m.path.c_str(), m.eagerMs, m.share * 100, m.nodes);
        }
    }
    if (!b.modules.empty()) {
        std::printf("module %-40s %9.4f ms %5.1f%%  %zu nodes\n", "(no module)", b.unassignedMs,
                    b.unassignedShare * 100, b.unassignedNodes);
    }
}

void printHuman(const profile::RuntimeProfile& p)
{
    for (const auto& n : p.notes) {
        std::printf("note: %s\n", n.c_str());
    }
    std::printf("%s on %s, %d runs, median %.3f ms; copy %.1f GB/s, matmul %.1f GFLOP/s\n",
                p.graph.c_str(), p.device.c_str(), p.repeat, p.total.medianMs, p.peaks.copyGBps,
                p.peaks.matmulGflops);
    if (const auto& c = p.compiledGraph; c && c->total.medianMs > 0) {
        const double ratio = c->eager.medianMs / c->total.medianMs;
        std::printf("whole graph: eager %.3f ms, compiled %.3f ms (%.2fx%s), %d of %d regions "
                    "used",
                    c->eager.medianMs, c->total.medianMs, ratio,
                    ratio >= 1 ? " faster" : ", slower", c->regionsUsed, c->regionsTotal);
        if (c->matmulGroups > 0) {
            std::printf(", %d matrix-product groups", c->matmulGroups);
        }
        std::printf("\n");
    }
    for (const auto& n : p.nodes) {
        std::printf("  %-28s %9.4f ms ±%.4f %5.1f%%  %-7s %5.2f  %s\n", n.name.c_str(),
                    n.eager.medianMs, n.eager.spreadMs / 2, n.share * 100,
                    std::string(profile::boundName(n.bound)).c_str(), n.efficiency,
                    n.target.c_str());
    }
    for (const auto& r : p.regions) {
        std::printf("region %-6s %3zu nodes eager %9.4f ms compiled %s  %s-bound, %.0f%% of "
                    "bound\n",
                    r.id.c_str(), r.nodes.size(), r.eager.medianMs,
                    r.compiledMs ? (std::to_string(*r.compiledMs) + " ms").c_str() : "-",
                    std::string(profile::boundName(r.bound)).c_str(), r.efficiency * 100);
    }
}

Status writeOutputs(const ProfileCliOptions& o, const profile::RuntimeProfile& p)
{
    if (!o.trace.empty()) {
        const std::string trace = profile::writeChromeTrace(profile::runtimeProfileTraceEvents(p));
        if (auto s = profile::validateChromeTrace(trace); !s.ok()) {
            return s;
        }
        if (auto s = writeFile(o.trace, trace); !s.ok()) {
            return s;
        }
    }
    if (!o.csv.empty()) {
        if (auto s = writeFile(o.csv, profile::profileCsv(p)); !s.ok()) {
            return s;
        }
    }
    return o.save.empty() ? Status{} : profile::saveProfile(o.save, p);
}

int runProfile(const ProfileCliOptions& o)
{
    auto loaded = loadGraphInput(o.graph, o.selector);
    if (!loaded) {
        return fail(loaded.error().toString(), 2);
    }
    const graph::Graph& g = *loaded->graph;
    auto regions = regionsFromSource(g, loaded->sourceBytes, o.project, o.autoRegions, "profile");
    if (!regions) {
        return fail(regions.error().toString(), 2);
    }
    profile::ProfileOptions po;
    po.repeat = o.repeat;
    po.run.seed = o.seed;
    // A TorchScript module's or .pt2 archive's own weights (and sample inputs, unless given).
    auto weights = graphWeights(*loaded, o.inputs.empty());
    if (!weights) {
        return fail(weights.error().toString(), 2);
    }
    po.run.inputs = *weights;
    if (auto s = completeSizes(*loaded, po.run.sizes); !s) {
        return fail(s.error().toString(), 2);
    }
    po.run.inputsFile = o.inputs;
    po.compileRegions = !o.eagerOnly;
    std::unique_ptr<cache::CacheStore> store;
    std::unique_ptr<remote::RemoteTier> tier;
    if (po.compileRegions && !regions->empty()) {
        auto opened = openRemote(o.remote);
        if (!opened) {
            return fail(opened.error().toString(), 2);
        }
        tier = std::move(*opened);
        po.remote = tier.get();
    }
    if (po.compileRegions && !regions->empty()) {
        auto opened = openStoreFor(o.cache, "profile");
        if (!opened) {
            return fail(opened.error().toString(), 2);
        }
        store = std::move(*opened);
        po.store = store.get();
    }
    auto p = profile::profileGraph(g, *regions, po);
    if (!p) {
        return fail(p.error().toString(), 1);
    }
    if (auto s = writeOutputs(o, *p); !s.ok()) {
        return fail(s.error().toString(), 1);
    }
    // The module view of the profile; a graph whose structure cannot be recovered has none.
    auto tree = structureOf(*loaded);
    if (!tree) {
        p->notes.push_back("no module view: " + tree.error().toString());
    }
    const profile::ModuleBreakdown byModule =
        tree ? profile::profileByModule(*p, g, *tree) : profile::ModuleBreakdown{};
    if (tier) {
        printRemoteWarnings("profile", *tier);
    }
    if (o.json) {
        json j = profileJson(*p, byModule);
        if (tier) {
            j["remote"] = remoteJson(*tier);
        }
        printJson(j);
    } else {
        printHuman(*p);
        printModules(byModule);
    }
    return 0;
}

} // namespace cmd_profile_detail

void addProfileCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_profile_detail;
    auto o = std::make_shared<ProfileCliOptions>();
    auto* cmd = app.add_subcommand("profile", "Run-time profile of a graph's nodes and regions");
    cmd->add_option("graph", o->graph, "Graph-code file, TorchScript .pt or TORCH_TRACE")
        ->required();
    cmd->add_option("--graph", o->selector, "TORCH_TRACE input: which graph (see README)");
    auto* project = cmd->add_option("--project", o->project, "Regions from a .fxscope project");
    cmd->add_flag("--auto", o->autoRegions, "Regions from the automatic proposal")
        ->excludes(project);
    cmd->add_option("--repeat", o->repeat, "Timed runs after one warm-up (default 5)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--seed", o->seed, "Seed for synthesised inputs");
    cmd->add_option("--inputs", o->inputs,
                    "Real inputs: a torch.save({name: tensor}) file (names as the placeholders)");
    cmd->add_option("--trace", o->trace, "Write a Chrome trace (Perfetto, chrome://tracing)")
        ->check(outputFile());
    cmd->add_option("--csv", o->csv, "Write the table as CSV")->check(outputFile());
    cmd->add_option("--save", o->save, "Save the profile (reload and compare in the app)")
        ->check(outputFile());
    cmd->add_option("--cache", o->cache, "Region compiler cache database");
    cmd->add_flag("--eager-only", o->eagerOnly, "Do not compile regions (compiled_ms null, no compiled_total)");
    cmd->add_flag("--json", o->json, "Print the JSON contract instead of text");
    addRemoteOptions(cmd, o->remote);
    cmd->callback([o, &exitCode] { exitCode = runProfile(*o); });
}

} // namespace fxs::cli
