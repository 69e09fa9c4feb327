#include "app/cli/attribute_regions.h"

#include "app/cli/store_option.h"
#include "core/cache/cache_key.h"
#include "core/cache/cache_store.h"
#include "core/cache/reason.h"
#include "core/cache/region_canon.h"
#include "core/partition/project_file.h"
#include "core/util/file_reader.h"
#include "core/util/json_parse.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

namespace fxs::cli {

namespace {

using nlohmann::json;
using runtime::RegionNodes;

std::optional<double> numberAt(const json& j, const char* key)
{
    return j.contains(key) && j[key].is_number() ? std::optional<double>(j[key].get<double>())
                                                 : std::nullopt;
}

std::string textAt(const json& j, const char* key)
{
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The regions of a `compile --json` output by id.
Result<std::map<std::string, json>> compiledRegions(const std::string& path)
{
    std::map<std::string, json> out;
    if (path.empty()) {
        return out;
    }
    auto text = readFile(path, ReadOptions{.maxBytes = std::size_t(256) << 20});
    if (!text) {
        return text.error();
    }
    const json j = parseJsonOrDiscarded(*text);
    if (!j.is_object() || !j.contains("regions") || !j["regions"].is_array()) {
        Error e = makeError(ErrorCode::Parse, "not the output of `fxscope-cli compile --json`");
        e.where = path;
        e.expected = "a JSON object with \"regions\": [...]";
        return e;
    }
    for (const auto& r : j["regions"]) {
        if (r.is_object() && r.contains("id") && r["id"].is_string()) {
            out[r["id"].get<std::string>()] = r;
        }
    }
    return out;
}

FxscopeCost costFromCompile(const json& r)
{
    FxscopeCost c;
    c.source = "compile_json";
    c.state = textAt(r, "state");
    c.reason = textAt(r, "reason");
    c.detail = textAt(r, "headline");
    c.target = textAt(r, "target");
    c.compileMs = numberAt(r, "compile_ms");
    const bool ran = c.state == "hit" || c.state == "miss" || c.state == "fallback";
    if (ran) {
        c.compiledMs = numberAt(r, "compiled_ms");
        c.eagerMs = numberAt(r, "eager_ms");
    }
    if (c.state == "fallback") {
        c.wins = false;
    } else if (c.compiledMs && c.eagerMs && (c.state == "hit" || c.state == "miss")) {
        c.wins = *c.compiledMs < *c.eagerMs;
    }
    return c;
}

std::string targetOf(const cache::EntryInfo& e)
{
    const auto* arch = cache::findComponent(e.components, cache::kLabelCudaArch);
    return arch ? arch->text : std::string("host");
}

// The entry a reader of this trace cares for: one built for a GPU when the trace ran on one
// (else any), the most recently used.
const cache::EntryInfo* pickEntry(const std::vector<cache::EntryInfo>& entries, bool gpu)
{
    const cache::EntryInfo* best = nullptr;
    auto better = [&](const cache::EntryInfo& e) {
        const bool eGpu = targetOf(e) != "host";
        const bool bGpu = targetOf(*best) != "host";
        if (eGpu != bGpu) {
            return eGpu == gpu;
        }
        return std::max(e.lastHitMs, e.createdMs) > std::max(best->lastHitMs, best->createdMs);
    };
    for (const auto& e : entries) {
        if (!best || better(e)) {
            best = &e;
        }
    }
    return best;
}

FxscopeCost costFromEntry(const cache::EntryInfo& e, int entries)
{
    FxscopeCost c;
    c.source = "cache";
    c.state = std::string(cache::entryStatusName(e.status));
    c.reason = std::string(cache::reasonName(e.statusCode));
    c.detail = e.statusReason;
    c.target = targetOf(e);
    c.compileMs = e.compileMs;
    c.entries = entries;
    // A region judged slower than eager keeps both timings in its status reason.
    double cm = 0, cs = 0, em = 0;
    if (e.statusCode == cache::Reason::SlowerThanEager &&
        std::sscanf(e.statusReason.c_str(), "compiled %lf ms (spread %lf) vs eager %lf ms", &cm,
                    &cs, &em) == 3) {
        c.compiledMs = cm;
        c.eagerMs = em;
    }
    if (e.status == cache::EntryStatus::Verified) {
        c.wins = true;
    } else if (e.status == cache::EntryStatus::Bad) {
        c.wins = false;
    }
    return c;
}

// The region's canonical digest on the graph, as `compile` keys it (cache_key.h "region").
std::string regionDigestOn(const graph::Graph& g, const RegionNodes& r)
{
    std::vector<graph::NodeId> ids;
    for (const auto& n : r.nodes) {
        const auto id = g.find(n);
        if (id && !g.node(*id).isPlaceholder() && !g.node(*id).isOutput()) {
            ids.push_back(*id);
        }
    }
    if (ids.empty()) {
        return {};
    }
    cache::KeyBuilder key;
    key.add(cache::kLabelRegion, cache::canonicalizeRegion(g, ids).text);
    return cache::regionDigest(key.components());
}

// The store to read: --cache, else the default one; never created just to be read.
std::unique_ptr<cache::CacheStore> openCache(const std::string& given, ProjectRegions& out)
{
    std::string path = given;
    if (path.empty()) {
        auto def = cache::defaultCachePath();
        if (!def) {
            out.notes.push_back("no region cache: " + def.error().toString());
            return {};
        }
        path = *def;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        out.notes.push_back("no region cache at " + path + ": fxscope costs only from --compiled");
        return {};
    }
    auto store = openStoreFor(path, "attribute");
    if (!store || !*store) {
        out.notes.push_back("the region cache at " + path + " could not be read" +
                            (store ? std::string() : ": " + store.error().toString()));
        return {};
    }
    out.cachePath = path;
    return std::move(*store);
}

void addCosts(ProjectRegions& out, const std::vector<RegionNodes>& regions,
              const graph::Graph* g, cache::CacheStore* store,
              const std::map<std::string, json>& compiled, bool gpu)
{
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
        auto& row = out.rows[i];
        if (auto it = compiled.find(row.time.id); it != compiled.end()) {
            // Ids repeat across projects: a region of another size is another region.
            const auto n = numberAt(it->second, "nodes");
            if (!n || *n == static_cast<double>(row.time.nodes)) {
                row.fxscope = costFromCompile(it->second);
                continue;
            }
            out.notes.push_back("--compiled: region " + row.time.id + " has " +
                                std::to_string(static_cast<long long>(*n)) +
                                " nodes there, the project's has " +
                                std::to_string(row.time.nodes) + ": not used");
        }
        if (!store || !g) {
            continue;
        }
        const std::string digest = regionDigestOn(*g, regions[i]);
        auto entries = digest.empty() ? Result<std::vector<cache::EntryInfo>>(
                                            std::vector<cache::EntryInfo>{})
                                      : store->entriesOfRegion(digest);
        if (!entries) {
            out.notes.push_back("region " + row.time.id + ": the cache could not be read: " +
                                entries.error().toString());
        } else if (const auto* e = pickEntry(*entries, gpu)) {
            row.fxscope = costFromEntry(*e, static_cast<int>(entries->size()));
        }
    }
}

} // namespace

Result<ProjectRegions> projectRegions(const RegionCostOptions& options,
                                      const runtime::Attribution& attribution,
                                      const runtime::RunProvenance& provenance,
                                      const model::Run& run)
{
    auto project = partition::loadProject(options.project);
    if (!project) {
        return project.error();
    }
    auto compiled = compiledRegions(options.compiled);
    if (!compiled) {
        return compiled.error();
    }
    std::vector<RegionNodes> regions;
    for (const auto& r : project->regions) {
        regions.push_back({r.id, r.name, r.nodes});
    }
    ProjectRegions out;
    out.project = options.project;
    const auto times = runtime::timesByGraph(attribution, provenance, run);
    out.location = runtime::locateRegionGraph(run, times, project->sourceSha256, regions);
    if (!out.location.artifact) {
        out.error = "the project's graph (" + project->sourcePath + ") is not in the TORCH_TRACE "
                    "log: " + out.location.message;
        return out;
    }
    const std::size_t at = *out.location.artifact;
    const auto it = std::find_if(times.begin(), times.end(),
                                 [&](const runtime::GraphTimes& t) { return t.artifact == at; });
    const runtime::GraphTimes* graphTimes = it == times.end() ? nullptr : &*it;
    if (!graphTimes) {
        out.notes.push_back("no kernel of the profile trace ran for graph " +
                            out.location.selector + " (is the trace of this run?)");
    }
    for (auto& t : runtime::regionTimes(attribution, graphTimes, regions, out.location.selector)) {
        out.rows.push_back({std::move(t), std::nullopt});
    }
    auto store = openCache(options.cache, out);
    const auto g = run.graphs[at].parsedGraph();
    addCosts(out, regions, g.get(), store.get(), *compiled, !attribution.device.empty());
    return out;
}

namespace {

json optionalJson(const std::optional<double>& v)
{
    return v ? json(*v) : json();
}

json costJson(const std::optional<FxscopeCost>& c)
{
    if (!c) {
        return json();
    }
    json j = {{"source", c->source},
              {"state", c->state},
              {"compiled_ms", optionalJson(c->compiledMs)},
              {"eager_ms", optionalJson(c->eagerMs)},
              {"reason", c->reason},
              {"detail", c->detail},
              {"target", c->target},
              {"compile_ms", optionalJson(c->compileMs)},
              {"wins", c->wins ? json(*c->wins) : json()}};
    if (c->source == "cache") {
        j["entries"] = c->entries;
    }
    return j;
}

json rowJson(const RegionCostRow& r, const std::vector<runtime::KernelRow>& kernels)
{
    const auto& t = r.time;
    json handles = json::array();
    for (const auto k : t.kernels) {
        handles.push_back(kernels[k].handle.empty() ? kernels[k].name : kernels[k].handle);
    }
    json unmatched = json::array();
    for (std::size_t i = 0; i < t.unmatched.size() && i < 20; ++i) {
        unmatched.push_back(t.unmatched[i]);
    }
    return {{"id", t.id},
            {"name", t.name},
            {"graph", t.graph},
            {"nodes", t.nodes},
            {"matched_nodes", t.matchedNodes},
            {"unmatched_nodes", t.unmatched.size()},
            {"unmatched_examples", std::move(unmatched)},
            {"us", t.us},
            {"share", t.share},
            {"kernels", t.kernels.size()},
            {"kernel_handles", std::move(handles)},
            {"shared_kernels", t.sharedKernels},
            {"launches", t.launches},
            {"fxscope", costJson(r.fxscope)}};
}

// Regions with measured time whose fxscope compile is not known to win, largest first.
std::vector<const RegionCostRow*> nextRows(const ProjectRegions& p)
{
    std::vector<const RegionCostRow*> out;
    for (const auto& r : p.rows) {
        const bool wins = r.fxscope && r.fxscope->wins.value_or(false);
        if (r.time.us > 0 && !wins) {
            out.push_back(&r);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const RegionCostRow* a, const RegionCostRow* b) {
        return a->time.us > b->time.us;
    });
    return out;
}

} // namespace

nlohmann::json projectRegionsJson(const ProjectRegions& p,
                                  const std::vector<runtime::KernelRow>& kernels)
{
    json regions = json::array(), next = json::array();
    for (const auto& r : p.rows) {
        regions.push_back(rowJson(r, kernels));
    }
    for (const auto* r : nextRows(p)) {
        next.push_back({{"id", r->time.id},
                        {"name", r->time.name},
                        {"us", r->time.us},
                        {"share", r->time.share},
                        {"fxscope_state", r->fxscope ? json(r->fxscope->state) : json()}});
    }
    const auto& l = p.location;
    json project = {{"path", p.project},
                    {"graph", l.artifact ? json(l.selector) : json()},
                    {"graph_index", l.artifact ? json(*l.artifact) : json()},
                    {"matched_by", l.by.empty() ? json() : json(l.by)},
                    {"nodes_in_graph", l.nodesFound},
                    {"nodes", l.nodesTotal},
                    {"message", l.message},
                    {"cache", p.cachePath.empty() ? json() : json(p.cachePath)},
                    {"notes", p.notes},
                    {"error", p.error.empty() ? json() : json(p.error)}};
    return {{"project", std::move(project)},
            {"regions", std::move(regions)},
            {"next", std::move(next)}};
}

void printProjectRegions(const ProjectRegions& p, int top)
{
    if (!p.error.empty()) {
        std::printf("regions: %s\n", p.error.c_str());
        return;
    }
    std::printf("regions of %s on graph %s (by %s, %zu of %zu nodes in the graph), by time:\n",
                p.project.c_str(), p.location.selector.c_str(), p.location.by.c_str(),
                p.location.nodesFound, p.location.nodesTotal);
    std::printf("%10s %6s %7s %8s %9s  %-8s %-24s %s\n", "us", "share", "kernels", "launches",
                "matched", "id", "name", "fxscope");
    std::vector<const RegionCostRow*> rows;
    for (const auto& r : p.rows) {
        rows.push_back(&r);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const RegionCostRow* a, const RegionCostRow* b) {
        return a->time.us > b->time.us;
    });
    rows.resize(std::min(rows.size(), static_cast<std::size_t>(std::max(top, 0))));
    for (const auto* rp : rows) {
        const RegionCostRow& r = *rp;
        const auto& t = r.time;
        std::string fx = r.fxscope ? r.fxscope->state : std::string("-");
        if (r.fxscope && r.fxscope->compiledMs && r.fxscope->eagerMs) {
            char buf[64];
            std::snprintf(buf, sizeof buf, " %.3f ms vs eager %.3f ms", *r.fxscope->compiledMs,
                          *r.fxscope->eagerMs);
            fx += buf;
        }
        const std::string matched = std::to_string(t.matchedNodes) + "/" + std::to_string(t.nodes);
        std::printf("%10.1f %5.1f%% %7zu %8lld %9s  %-8.8s %-24.24s %s\n", t.us, 100 * t.share,
                    t.kernels.size(), static_cast<long long>(t.launches), matched.c_str(),
                    t.id.c_str(), t.name.c_str(), fx.c_str());
    }
    std::string next;
    const auto ranked = nextRows(p);
    for (std::size_t i = 0; i < ranked.size() && i < static_cast<std::size_t>(top); ++i) {
        next += (next.empty() ? "" : ", ") + ranked[i]->time.id;
    }
    if (ranked.size() > static_cast<std::size_t>(top)) {
        next += ", ... (" + std::to_string(ranked.size()) + " in all)";
    }
    std::printf("compile next: %s\n", next.empty() ? "(none)" : next.c_str());
    for (const auto& n : p.notes) {
        std::printf("note: %s\n", n.c_str());
    }
}

} // namespace fxs::cli
