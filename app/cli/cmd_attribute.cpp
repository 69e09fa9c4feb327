// fxscope-cli attribute TRACE_DIR [PROFILE.json[.gz]] [--project P [--cache DB] [--compiled F]]
// [--json | --top N]: where a compiled model's GPU time goes: each kernel of a torch.profiler
// trace joined with the Inductor provenance of the same run's TORCH_TRACE log (call site,
// post-grad and pre-grad nodes, modules), and with a project the time of its regions beside
// fxscope's own compiled cost (attribute_regions.h). TRACE_DIR is a log or a directory; a
// directory may hold the profile trace too.
// The JSON shape is a contract (README "fxscope-cli attribute").
#include "app/cli/attribute_regions.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/profile_input.h"
#include "core/io/torch_trace_reader.h"
#include "core/runtime/attribution.h"
#include "core/runtime/kernel_rates.h"
#include "core/runtime/profile_trace_reader.h"
#include "core/util/file_reader.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace fxs::cli {
namespace cmd_attribute_detail {

using nlohmann::json;
using namespace fxs::runtime;

struct AttributeOptions {
    std::string traceDir;
    std::string profile;
    bool json = false;
    int top = 20;
    RegionCostOptions regions; // project empty: no regions
};

json optionalNumber(const std::optional<double>& v)
{
    return v ? json(*v) : json();
}

json kernelJson(const KernelRow& r, const Attribution& a)
{
    const KernelRates rates = kernelRates(r, a.peaks);
    json j = {{"name", r.name},
              {"handle", r.handle.empty() ? json() : json(r.handle)},
              {"graph", r.graph.empty() ? json() : json(r.graph)},
              {"calls", r.calls},
              {"us", r.us},
              {"share", r.share},
              {"bytes", optionalNumber(rates.bytes)},
              {"GBps", optionalNumber(rates.gbps)},
              {"pct_peak_bw", optionalNumber(rates.pctPeakBw)},
              {"flops", optionalNumber(rates.flops)},
              {"TFLOPs", optionalNumber(rates.tflops)},
              {"post_grad_nodes", r.postNodes},
              {"pre_grad_nodes", r.preNodes},
              {"modules", r.modules}};
    if (rates.pctPeakFlops) {
        j["pct_peak_flops"] = *rates.pctPeakFlops;
        j["peak_kind"] = rates.peakKind;
    }
    j["launches"] = r.launches;
    j["us_per_step"] = a.steps > 0 ? r.us / a.steps : r.us;
    if (!r.op.empty()) {
        j["op"] = r.op;
    }
    if (r.split) {
        j["split_evenly_over_nodes"] = r.postNodes.size();
    }
    if (!r.autotune.empty()) {
        j["autotune"] = r.autotune;
    }
    if (r.compileTimeUs >= 0) {
        j["compile_time_us"] = r.compileTimeUs;
    }
    return j;
}

json attributionJson(const Attribution& a, const ProfileReadResult& read)
{
    json kernels = json::array(), nodes = json::array(), modules = json::array(),
         lost = json::array(), graphs = json::array();
    for (const auto& r : a.kernels) {
        kernels.push_back(kernelJson(r, a));
    }
    for (const auto& n : a.nodes) {
        nodes.push_back({{"graph", n.graph}, {"name", n.name}, {"us", n.us},
                         {"share", a.totalKernelUs > 0 ? n.us / a.totalKernelUs : 0.0},
                         {"kernels", n.kernels}, {"pre_grad_nodes", n.preNodes},
                         {"shared", n.shared}});
    }
    for (const auto& m : a.modules) {
        modules.push_back({{"path", m.path}, {"us", m.us}, {"share", m.share},
                           {"kernels", m.kernels}});
    }
    for (const auto& u : a.unattributed) {
        lost.push_back({{"us", u.us}, {"reason", u.reason}, {"kernels", u.kernels}});
    }
    for (const auto& g : a.graphs) {
        graphs.push_back({{"key", g.key},
                          {"compile_id", g.compileId.empty() ? json() : json(g.compileId)},
                          {"kind", g.kind.empty() ? json() : json(g.kind)}, {"calls", g.calls},
                          {"us", g.us}, {"post_grad_nodes_from", g.postNodesFrom},
                          {"notes", g.notes}});
    }
    json checks = {{"attributed_us", a.attributedUs},
                   {"sum_matches_total", a.sumCheckOk},
                   {"triton_sites_without_post_grad_nodes", a.tritonWithoutNodes}};
    return {{"device", a.device.empty() ? json() : json(a.device)},
            {"peak", a.peaks ? json({{"name", a.peaks->name},
                                     {"bytes_per_s", a.peaks->bytesPerSec},
                                     {"fp32_flops", a.peaks->fp32Flops},
                                     {"tf32_flops", a.peaks->tf32Flops},
                                     {"bf16_flops", a.peaks->bf16Flops}})
                             : json()},
            {"steps", a.steps},
            {"steps_from", a.stepsFrom},
            {"per_step_us", a.perStepUs},
            {"total_kernel_us", a.totalKernelUs},
            {"kernels", std::move(kernels)},
            {"nodes", std::move(nodes)},
            {"modules", std::move(modules)},
            {"unattributed", std::move(lost)},
            {"graphs", std::move(graphs)},
            {"checks", std::move(checks)},
            {"notes", a.notes},
            {"trace", {{"path", read.trace.path},
                       {"events", read.trace.eventsRead},
                       {"events_skipped", read.trace.eventsSkipped},
                       {"error", read.error ? errorJson(*read.error) : json()}}}};
}

void printTable(const Attribution& a, int top)
{
    std::printf("device %s, %d step(s) (%s), kernel time %.1f us (%.1f us/step)\n",
                a.device.empty() ? "?" : a.device.c_str(), a.steps, a.stepsFrom.c_str(),
                a.totalKernelUs, a.totalKernelUs / std::max(a.steps, 1));
    std::printf("%10s %6s %6s  %-40s %s\n", "us", "share", "calls", "handle / op", "kernel");
    int shown = 0;
    for (const auto& r : a.kernels) {
        if (shown++ >= top) {
            break;
        }
        const std::string where = r.handle.empty() ? "[" + r.op + "]" : r.handle;
        std::printf("%10.1f %5.1f%% %6lld  %-40.40s %.60s\n", r.us, 100 * r.share,
                    static_cast<long long>(r.calls), where.c_str(), r.name.c_str());
    }
    for (const auto& u : a.unattributed) {
        std::printf("unattributed %.1f us (%lld kernels): %s\n", u.us,
                    static_cast<long long>(u.kernels), u.reason.c_str());
    }
    std::printf("check: attributed + unattributed = total: %s; Triton sites without post-grad "
                "nodes: %zu\n", a.sumCheckOk ? "yes" : "NO", a.tritonWithoutNodes.size());
}

// The TORCH_TRACE run: the path itself, or a directory's log files (profile traces left out).
io::TraceReadResult readRun(const std::string& path)
{
    if (!isDirectory(path)) {
        return io::readTorchTracePath(path);
    }
    std::vector<std::string> logs;
    if (auto files = listFiles(path)) {
        for (const auto& f : *files) {
            auto head = readFileHead(f);
            if (head && io::looksLikeTorchTrace(*head)) {
                logs.push_back(f);
            }
        }
    }
    return logs.size() == 1 ? io::readTorchTracePath(logs.front()) : io::readTorchTracePath(path);
}

int runAttribute(AttributeOptions o)
{
    if (o.profile.empty()) {
        const auto found = isDirectory(o.traceDir) ? profileTracesIn(o.traceDir)
                                                   : std::vector<std::string>{};
        o.profile = found.empty() ? std::string() : found.front();
        if (o.profile.empty()) {
            std::cerr << "fxscope-cli attribute: no profiler trace given or found in "
                      << o.traceDir << "\n";
            return 2;
        }
    }
    const auto read = readProfileTrace(o.profile);
    if (read.error) {
        std::cerr << "fxscope-cli attribute: " << read.error->toString() << " (kept "
                  << read.trace.eventsRead << " events read before it)\n";
        if (read.trace.events.empty()) {
            return 1;
        }
    }
    const auto run = readRun(o.traceDir);
    if (!run.readSomething) {
        std::cerr << "fxscope-cli attribute: no TORCH_TRACE log could be read from " << o.traceDir
                  << "\n";
    }
    const auto provenance = collectProvenance(run.run);
    const auto attribution = attribute(read.trace, provenance);
    std::optional<ProjectRegions> regions;
    if (!o.regions.project.empty()) {
        auto r = projectRegions(o.regions, attribution, provenance, run.run);
        if (!r) {
            std::cerr << "fxscope-cli attribute: " << r.error().toString() << "\n";
            return 2;
        }
        regions = std::move(*r);
        if (!regions->error.empty()) {
            std::cerr << "fxscope-cli attribute: " << regions->error << "\n";
        } else if (regions->location.by == "node_names") {
            std::cerr << "fxscope-cli attribute: warning: " << regions->location.message << "\n";
        }
    }
    if (o.json) {
        json out = attributionJson(attribution, read);
        if (regions) {
            const json parts = projectRegionsJson(*regions, attribution.kernels);
            for (const auto& [k, v] : parts.items()) {
                out[k] = v;
            }
        }
        printJson(out);
    } else {
        printTable(attribution, o.top);
        if (regions) {
            printProjectRegions(*regions, o.top);
        }
    }
    if (read.error) {
        return 1;
    }
    return regions && !regions->error.empty() ? 3 : 0;
}

} // namespace cmd_attribute_detail

void addAttributeCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_attribute_detail;
    auto opts = std::make_shared<AttributeOptions>();
    auto* cmd = app.add_subcommand(
        "attribute", "Join a torch.profiler trace with the TORCH_TRACE log of the same run: GPU "
                     "time per Inductor kernel, post-grad node, pre-grad node and module");
    cmd->add_option("trace_dir", opts->traceDir, "TORCH_TRACE log file or directory")->required();
    cmd->add_option("profile", opts->profile,
                    "torch.profiler Chrome trace (.json or .json.gz); default: the one in "
                    "TRACE_DIR");
    cmd->add_flag("--json", opts->json, "Print the JSON contract instead of a table");
    cmd->add_option("--top", opts->top, "Rows of the table (without --json)")
        ->check(CLI::PositiveNumber);
    auto* project = cmd->add_option(
        "--project", opts->regions.project,
        ".fxscope project: the GPU time of its regions (regions[], next[])");
    cmd->add_option("--cache", opts->regions.cache,
                    "With --project: region cache to read fxscope's compiled regions from "
                    "(default: the default cache, when it exists)")
        ->needs(project);
    cmd->add_option("--compiled", opts->regions.compiled,
                    "With --project: a `compile --project P --json` output whose regions' "
                    "timings to show")
        ->needs(project);
    cmd->callback([opts, &exitCode] { exitCode = runAttribute(*opts); });
}

} // namespace fxs::cli
