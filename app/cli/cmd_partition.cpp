// fxscope-cli partition GRAPH [--graph SEL] [--project P | --auto] [--json] [--plan out.json]:
// the regions of a graph (graph code, TorchScript .pt, one graph of a TORCH_TRACE) from its
// annotations, a project file or the automatic proposal, what was left out and why, and
// optionally the region plan for tools/python/fxscope_regions.py. With --nested PLAN instead:
// the nested-region plan of its repeated blocks for tools/python/fxscope_nested.py.
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/graph_input.h"
#include "core/partition/auto_proposal.h"
#include "core/partition/partitioner.h"
#include "core/partition/project_file.h"
#include "core/partition/region_plan.h"
#include "core/structure/nested_plan.h"
#include "core/util/file_reader.h"
#include "core/util/json_parse.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>

namespace fxs::cli {

namespace cmd_partition_detail {

using json = nlohmann::ordered_json;
using partition::Partition;
using partition::Region;

struct PartitionOptions {
    std::string graph;
    std::string selector; // --graph, for TORCH_TRACE input
    std::string project;
    bool proposal = false;
    bool json = false;
    std::string plan;
    std::string saveProject;
    std::string nested; // --nested: the nested-region plan to write
    std::vector<std::string> exclude;
    int minNodes = 2;
};

json names(const graph::Graph& g, const std::vector<graph::NodeId>& ids)
{
    json out = json::array();
    for (auto id : ids) {
        out.push_back(g.node(id).name);
    }
    return out;
}

json objectOrNull(const std::string& text)
{
    const json j = text.empty() ? json() : parseOrderedJsonOrDiscarded(text);
    return j.is_discarded() ? json() : j;
}

json regionJson(const graph::Graph& g, const Region& r)
{
    return {{"id", r.id},
            {"name", r.name},
            {"annotation", objectOrNull(r.annotation.value_or(""))},
            {"options", objectOrNull(r.options)},
            {"nodes", names(g, r.nodes)},
            {"inputs", names(g, r.inputs)},
            {"outputs", names(g, r.outputs)},
            {"node_count", r.nodeCount()},
            {"op_mix", r.opMix},
            {"bytes_in", r.bytesIn},
            {"bytes_out", r.bytesOut},
            {"bytes_exact", r.bytesExact}};
}

json partitionJson(const graph::Graph& g, const Partition& p, const std::string& mode)
{
    json regions = json::array();
    for (const auto& r : p.regions) {
        regions.push_back(regionJson(g, r));
    }
    json excluded = json::array();
    for (const auto& ex : p.excluded) {
        json e = {{"node", g.node(ex.node).name},
                  {"reason", ex.message},
                  {"code", std::string(partition::reasonCode(ex.reason))}};
        if (!ex.path.empty()) {
            e["path"] = names(g, ex.path);
        }
        excluded.push_back(std::move(e));
    }
    json splits = json::array();
    for (const auto& s : p.splits) {
        splits.push_back({{"regions", {s.regionA, s.regionB}},
                          {"path", names(g, s.path)},
                          {"message", s.message}});
    }
    return {{"mode", mode},
            {"regions", std::move(regions)},
            {"excluded", std::move(excluded)},
            {"splits", std::move(splits)}};
}

json rematchJson(const partition::Rematch& m)
{
    json missing = json::array();
    for (const auto& u : m.missingNodes) {
        missing.push_back({{"region", u.region}, {"node", u.node}});
    }
    json invalid = json::array();
    for (const auto& r : m.invalidRegions) {
        invalid.push_back({{"region", r.region}, {"reason", r.reason}});
    }
    return {{"source_changed", m.sourceChanged},
            {"missing_nodes", std::move(missing)},
            {"empty_regions", m.emptyRegions},
            {"invalid_regions", std::move(invalid)}};
}

std::string byteText(std::int64_t bytes, bool exact)
{
    char buf[32];
    const char* prefix = exact ? "" : ">=";
    if (bytes >= 1'000'000) {
        std::snprintf(buf, sizeof buf, "%s%.2f MB", prefix, static_cast<double>(bytes) / 1e6);
    } else if (bytes >= 1'000) {
        std::snprintf(buf, sizeof buf, "%s%.1f kB", prefix, static_cast<double>(bytes) / 1e3);
    } else {
        std::snprintf(buf, sizeof buf, "%s%lld B", prefix, static_cast<long long>(bytes));
    }
    return buf;
}

void printHuman(const graph::Graph& g, const Partition& p)
{
    for (const auto& r : p.regions) {
        std::printf("%s  %zu nodes  in %zu (%s)  out %zu (%s)  %s\n", r.label().c_str(),
                    r.nodeCount(), r.inputs.size(), byteText(r.bytesIn, r.bytesExact).c_str(),
                    r.outputs.size(), byteText(r.bytesOut, r.bytesExact).c_str(),
                    r.annotation.value_or("").c_str());
        std::printf("    nodes: %s\n", join(names(g, r.nodes).get<std::vector<std::string>>(),
                                             ", ").c_str());
    }
    std::map<std::string, int> reasons;
    for (const auto& ex : p.excluded) {
        ++reasons[std::string(partition::reasonCode(ex.reason))];
    }
    std::printf("%zu region(s); %zu node(s) left out", p.regions.size(), p.excluded.size());
    for (const auto& [code, n] : reasons) {
        std::printf(" [%s: %d]", code.c_str(), n);
    }
    std::printf("\n");
    for (const auto& s : p.splits) {
        std::printf("split %s / %s: %s\n", s.regionA.c_str(), s.regionB.c_str(), s.message.c_str());
    }
}

int fail(const std::string& message)
{
    std::cerr << "fxscope-cli partition: " << message << "\n";
    return 1;
}

} // namespace cmd_partition_detail

namespace cmd_partition_detail {

// Project mode: the project's regions re-matched to the graph; nodes outside are "user
// excluded" since the user drew the regions.
Partition fromProject(const graph::Graph& g, const partition::Rematch& m)
{
    Partition p;
    p.regions = m.regions;
    for (const auto& node : g.nodes()) {
        if (!node.isPlaceholder() && !node.isOutput() && !p.regionOf(node.id)) {
            p.excluded.push_back({node.id, partition::ExclusionReason::UserExcluded,
                                  "not in any region of the project", {}});
        }
    }
    return p;
}

// The partition the options ask for; rematch is set in project mode. Empty error on success.
std::string choosePartition(const PartitionOptions& o, const graph::Graph& g,
                            const std::string& text, Partition& p, std::string& mode,
                            std::optional<partition::Rematch>& rematch)
{
    if (!o.project.empty()) {
        auto project = partition::loadProject(o.project);
        if (!project) {
            return project.error().toString();
        }
        rematch = partition::rematchProject(*project, g, text);
        p = fromProject(g, *rematch);
        mode = "project";
    } else if (o.proposal) {
        partition::ProposalOptions opts;
        opts.excludedNodes = o.exclude;
        opts.minNodes = o.minNodes;
        p = partition::proposeRegions(g, opts);
        mode = "auto";
    } else {
        p = partition::partitionByAnnotation(g);
        mode = "annotations";
    }
    return {};
}

// Writes --plan and --save-project; empty on success, else the error.
std::string writeFiles(const PartitionOptions& o, const graph::Graph& g, const std::string& text,
                       const Partition& p)
{
    if (!o.plan.empty()) {
        if (auto s = writeFile(o.plan, partition::makeRegionPlan(g, p.regions, o.graph, text));
            !s) {
            return s.error().toString();
        }
    }
    if (!o.saveProject.empty()) {
        const auto project = partition::makeProject(g, p.regions, o.graph, text);
        if (auto s = partition::saveProject(o.saveProject, project); !s) {
            return s.error().toString();
        }
    }
    return {};
}

void printRematch(const partition::Rematch& m)
{
    if (!m.clean()) {
        std::printf("project no longer matches: %zu missing node(s), %zu empty and %zu invalid "
                    "region(s)\n",
                    m.missingNodes.size(), m.emptyRegions.size(), m.invalidRegions.size());
    }
}

// The --json summary: the plan file's regions (without notes) and skipped groups.
json nestedSummary(const PartitionOptions& o, const structure::NestedPlan& plan,
                   const std::string& planText)
{
    const json file = parseOrderedJsonOrDiscarded(planText);
    json regions = json::array();
    for (const auto& r : file.at("regions")) {
        regions.push_back({{"id", r.at("id")},
                           {"instances", r.at("instances")},
                           {"module_class", r.at("module_class")},
                           {"nodes_each", r.at("nodes_each")}});
    }
    return {{"mode", "nested"},
            {"graph", o.graph},
            {"plan", o.nested},
            {"structure_source", std::string(structure::sourceName(plan.source))},
            {"region_count", plan.regions.size()},
            {"instance_count", plan.instanceCount()},
            {"regions", std::move(regions)},
            {"skipped", file.at("skipped")}};
}

void printNested(const structure::NestedPlan& plan, const std::string& path)
{
    for (const auto& r : plan.regions) {
        std::printf("%s  %zu x %zu nodes  %s ... %s  class %s\n", r.id.c_str(),
                    r.instances.size(), r.nodesEach, r.instances.front().c_str(),
                    r.instances.back().c_str(),
                    r.moduleClass.empty() ? "unknown" : r.moduleClass.c_str());
    }
    for (const auto& s : plan.skipped) {
        const std::string code(structure::nestedSkipCode(s.reason));
        std::printf("skipped [%s] %s%s%s\n", code.c_str(), join(s.modules, ", ").c_str(),
                    s.modules.empty() ? "" : ": ", s.message.c_str());
    }
    std::printf("%zu nested region(s), %zu instance(s); plan written to %s\n",
                plan.regions.size(), plan.instanceCount(), path.c_str());
}

// --nested: the module tree's repeated blocks as a nested-region plan.
int runNested(const PartitionOptions& o, const LoadedGraph& loaded)
{
    auto tree = structureOf(loaded);
    if (!tree) {
        return fail(tree.error().toString());
    }
    const structure::NestedPlan plan = structure::planNestedRegions(*loaded.graph, *tree);
    const std::string text = structure::nestedPlanJson(
        plan, *loaded.graph, {o.graph, o.selector, loaded.sourceBytes});
    if (auto s = writeFile(o.nested, text); !s) {
        return fail(s.error().toString());
    }
    if (o.json) {
        json out = nestedSummary(o, plan, text);
        json warnings = json::array();
        for (const auto& d : loaded.diagnostics.items()) {
            warnings.push_back(d.toString());
        }
        out["warnings"] = std::move(warnings);
        printJson(out);
    } else {
        printNested(plan, o.nested);
    }
    return 0;
}

int runPartition(const PartitionOptions& o)
{
    auto loaded = loadGraphInput(o.graph, o.selector);
    if (!loaded) {
        return fail(loaded.error().toString());
    }
    if (!o.nested.empty()) {
        return runNested(o, *loaded);
    }
    const graph::Graph& g = *loaded->graph;
    const std::string& text = loaded->sourceBytes;
    Partition p;
    std::string mode;
    std::optional<partition::Rematch> rematch;
    std::string error = choosePartition(o, g, text, p, mode, rematch);
    if (error.empty()) {
        error = writeFiles(o, g, text, p);
    }
    if (!error.empty()) {
        return fail(error);
    }
    if (o.json) {
        json out = partitionJson(g, p, mode);
        out["graph"] = o.graph;
        json warnings = json::array();
        for (const auto& d : loaded->diagnostics.items()) {
            warnings.push_back(d.toString());
        }
        out["warnings"] = std::move(warnings);
        if (rematch) {
            out["project"] = rematchJson(*rematch);
        }
        printJson(out);
    } else {
        printHuman(g, p);
        if (rematch) {
            printRematch(*rematch);
        }
    }
    return rematch && !rematch->clean() ? 3 : 0;
}

} // namespace cmd_partition_detail

void addPartitionCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_partition_detail;
    auto opts = std::make_shared<PartitionOptions>();
    auto* cmd = app.add_subcommand(
        "partition", "Regions of a graph: from its annotations, a project, or --auto");
    cmd->add_option("GRAPH", opts->graph,
                    "Printed graph code (print_readable / TORCH_LOGS), TorchScript .pt or "
                    "TORCH_TRACE file/directory")
        ->required();
    cmd->add_option("--graph", opts->selector,
                    "TORCH_TRACE input: which graph, N or COMPILE_ID:KIND[#N] (see README)");
    auto* project = cmd->add_option("--project", opts->project, ".fxscope project with regions");
    auto* proposal = cmd->add_flag("--auto", opts->proposal,
                                   "Propose regions of supported ops instead of annotations");
    project->excludes(proposal);
    cmd->add_flag("--json", opts->json, "Print the JSON contract documented in README");
    auto* plan =
        cmd->add_option("--plan", opts->plan, "Write a region plan for fxscope_regions.py")
            ->check(outputFile());
    auto* save = cmd->add_option("--save-project", opts->saveProject,
                                 "Write the regions as a .fxscope project")
                     ->check(outputFile());
    auto* nested = cmd->add_option(
                          "--nested", opts->nested,
                          "Write a nested-region plan of the repeated blocks for fxscope_nested.py "
                          "instead")
                       ->check(outputFile());
    nested->excludes(project)->excludes(proposal)->excludes(plan)->excludes(save);
    cmd->add_option("--exclude", opts->exclude, "With --auto: node names to keep out")
        ->needs(proposal);
    cmd->add_option("--min-nodes", opts->minNodes, "With --auto: smallest region kept (2)")
        ->needs(proposal);
    cmd->callback([opts, &exitCode] { exitCode = runPartition(*opts); });
}

} // namespace fxs::cli
