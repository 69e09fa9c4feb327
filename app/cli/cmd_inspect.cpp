// fxscope-cli inspect PATH... [--json]: what the loader read from graph-code files, TorchScript
// .pt modules and TORCH_TRACE logs/directories: each graph with its node counts and op
// histogram, each cache lookup, and every problem found. The JSON shape is a contract (README
// "fxscope-cli inspect").
#include "app/cli/commands.h"
#include "app/cli/graph_summaries.h"
#include "app/cli/json_output.h"
#include "app/cli/profile_input.h"
#include "core/io/loader.h"
#include "core/util/file_reader.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace fxs::cli {

namespace cmd_inspect_detail {

using nlohmann::json;

struct InspectOptions {
    std::vector<std::string> paths;
    bool json = false;
};

json idOrNull(const model::CompileId& id)
{
    return id.valid() ? json(id.toString()) : json();
}

json optionalInt(const std::optional<std::int64_t>& v)
{
    return v ? json(*v) : json();
}

json exportJson(const model::ExportedProgram& p)
{
    json inputs = json::array();
    for (const auto& in : p.inputs) {
        inputs.push_back({{"name", in.name},
                          {"kind", std::string(model::exportInputKindName(in.kind))},
                          {"target", in.target.empty() ? json() : json(in.target)}});
    }
    json outputs = json::array();
    for (const auto& out : p.outputs) {
        outputs.push_back({{"name", out.name.empty() ? json() : json(out.name)},
                           {"kind", std::string(model::exportOutputKindName(out.kind))},
                           {"target", out.target.empty() ? json() : json(out.target)}});
    }
    json ranges = json::array();
    for (const auto& r : p.ranges) {
        const auto hint = p.symbolHints.find(r.symbol);
        ranges.push_back({{"symbol", r.symbol},
                          {"min", optionalInt(r.min)},
                          {"max", optionalInt(r.max)},
                          {"hint", hint != p.symbolHints.end() ? json(hint->second) : json()}});
    }
    return {{"schema_version", std::to_string(p.schemaMajor) + "." + std::to_string(p.schemaMinor)},
            {"torch_version", p.torchVersion.empty() ? json() : json(p.torchVersion)},
            {"layout", p.layout},
            {"inputs", std::move(inputs)},
            {"outputs", std::move(outputs)},
            {"range_constraints", std::move(ranges)},
            {"weights", p.weights.size()}};
}

json graphJson(const model::GraphArtifact& g, const GraphSummary& summary)
{
    json j{{"source", g.file}, {"compile_id", idOrNull(g.compileId)}, {"kind", g.kind}};
    j.update(summary.json);
    if (g.exported) {
        j["export"] = exportJson(*g.exported);
    }
    return j;
}

json lookupJson(const model::CacheLookup& l)
{
    return {{"compile_id", idOrNull(l.compileId)},
            {"cache", std::string(model::cacheKindName(l.cache))},
            {"state", std::string(model::cacheStateName(l.state))},
            {"key", l.key ? json(*l.key) : json()},
            {"components", l.components.size()},
            {"reason", l.bypassReason.empty() ? json() : json(l.bypassReason)}};
}

// The message without the location: "what (expected X, found Y)".
std::string messageOf(const Diagnostic& d)
{
    const std::string full = d.toString();
    const std::string where = d.where() + ": ";
    return full.compare(0, where.size(), where) == 0 ? full.substr(where.size()) : full;
}

json resultJson(const io::LoadResult& result, const std::vector<GraphSummary>& summaries)
{
    json graphs = json::array();
    json lookups = json::array();
    json errors = json::array();
    std::size_t next = 0;
    for (const auto& run : result.runs) {
        for (const auto& g : run.graphs) {
            graphs.push_back(graphJson(g, summaries[next++]));
        }
        for (const auto& l : run.lookups) {
            lookups.push_back(lookupJson(l));
        }
    }
    for (const auto& g : result.graphs) {
        graphs.push_back(graphJson(g, summaries[next++]));
    }
    for (const auto& d : result.diagnostics.items()) {
        if (d.severity != Severity::Note) {
            errors.push_back({{"where", d.where()},
                              {"message", messageOf(d)},
                              {"severity", d.severity == Severity::Error ? "error" : "warning"}});
        }
    }
    json unknownKinds = json::object();
    json links = json::array();
    for (const auto& run : result.runs) {
        for (const auto& [kind, n] : run.unknownKinds) {
            unknownKinds[kind] = unknownKinds.value(kind, 0) + n;
        }
        for (const auto& t : run.texts) {
            if (t.kind == "link") {
                links.push_back({{"name", t.filename}, {"url", t.text}});
            }
        }
    }
    return {{"graphs", std::move(graphs)},
            {"cache_events", std::move(lookups)},
            {"errors", std::move(errors)},
            {"unknown_kinds", std::move(unknownKinds)},
            {"links", std::move(links)},
            {"problems", problemCountJson(result.diagnostics)}};
}

void printGraph(const model::GraphArtifact& g, const GraphSummary& summary)
{
    const std::string id = g.compileId.valid() ? g.compileId.toString() : "-";
    if (!summary.parsed) {
        std::printf("  graph %-6s %-26s (not parsed)  %s:%d\n", id.c_str(), g.kind.c_str(),
                    g.file.c_str(), g.line);
        return;
    }
    const json& j = summary.json;
    std::printf("  graph %-6s %-26s nodes=%zu call_function=%zu placeholders=%zu  %s:%d\n",
                id.c_str(), g.kind.c_str(), j["nodes"].get<std::size_t>(),
                j["call_function_nodes"].get<std::size_t>(),
                j["placeholders"].get<std::size_t>(), g.file.c_str(), g.line);
    for (const auto& s : j["subgraphs"]) {
        const std::string hop = s["hop"].is_null() ? "-" : s["hop"].get<std::string>();
        std::printf("    subgraph %-28s %-26s nodes=%zu calls=%zu\n",
                    s["name"].get<std::string>().c_str(), hop.c_str(),
                    s["nodes"].get<std::size_t>(), s["calls"].get<std::size_t>());
    }
}

void printLookup(const model::CacheLookup& l)
{
    const std::string id = l.compileId.valid() ? l.compileId.toString() : "-";
    std::printf("  cache %-6s %-11s %-8s key=%s components=%zu%s%s\n", id.c_str(),
                std::string(model::cacheKindName(l.cache)).c_str(),
                std::string(model::cacheStateName(l.state)).c_str(),
                l.key ? l.key->c_str() : "-", l.components.size(),
                l.bypassReason.empty() ? "" : " reason=",
                abbreviate(l.bypassReason, 100).c_str());
}

void printHuman(const io::LoadResult& result, const std::vector<GraphSummary>& summaries)
{
    std::size_t next = 0;
    for (const auto& run : result.runs) {
        std::printf("run %s (%zu file(s), %zu bytes, %zu graphs, %zu cache lookups, %zu "
                    "chromium events)\n",
                    run.path.c_str(), run.files.size(), run.bytes, run.graphs.size(),
                    run.lookups.size(), run.events.size());
        for (const auto& g : run.graphs) {
            printGraph(g, summaries[next++]);
        }
        for (const auto& l : run.lookups) {
            printLookup(l);
        }
    }
    for (const auto& g : result.graphs) {
        std::printf("file %s\n", g.file.c_str());
        printGraph(g, summaries[next++]);
    }
    for (const auto& d : result.diagnostics.items()) {
        if (d.severity != Severity::Note) {
            std::printf("%s\n", d.toString().c_str());
        }
    }
}

int runInspect(const InspectOptions& options)
{
    // Profiler traces are read by core/runtime, everything else by the loader; a directory
    // goes to the loader (its logs) and has its profiler traces summarised too.
    std::vector<std::string> loaderPaths;
    json profiles = json::array();
    bool profileOk = false;
    for (const auto& path : options.paths) {
        const bool dir = isDirectory(path);
        for (const auto& trace : profileTracesIn(path)) {
            auto summary = summarizeProfileTrace(trace);
            profileOk = profileOk || summary.ok;
            profiles.push_back(std::move(summary.json));
        }
        if (dir || !isProfileTrace(path)) {
            loaderPaths.push_back(path);
        }
    }
    // Graphs are counted, not kept: parsed on every core after the load, then dropped.
    io::LoadOptions load;
    load.deferGraphParsing = true;
    io::LoadResult result =
        loaderPaths.empty() ? io::LoadResult{} : io::loadPaths(loaderPaths, load);
    const std::vector<GraphSummary> summaries = summariseGraphs(result);
    if (options.json) {
        json out = resultJson(result, summaries);
        if (!profiles.empty()) { // only then: the key set of other inputs stays as it was
            out["profile_traces"] = std::move(profiles);
        }
        printJson(out);
    } else {
        printHuman(result, summaries);
        for (const auto& p : profiles) {
            printProfileSummary(p);
        }
    }
    if (!result.readSomething() && !profileOk) {
        const auto& items = result.diagnostics.items();
        std::cerr << "fxscope-cli inspect: nothing could be read"
                  << (items.empty() ? std::string() : ": " + items.front().toString()) << "\n";
        return 1;
    }
    return 0;
}

} // namespace cmd_inspect_detail

void addInspectCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_inspect_detail;
    auto options = std::make_shared<InspectOptions>();
    CLI::App* cmd = app.add_subcommand(
        "inspect", "Read graph-code files, TorchScript .pt files and TORCH_TRACE logs or "
                   "directories; list graphs, cache lookups and problems");
    cmd->add_option("paths", options->paths, "Files or directories to read")->required();
    cmd->add_flag("--json", options->json, "Print the JSON contract instead of text");
    cmd->callback([options, &exitCode] { exitCode = runInspect(*options); });
}

} // namespace fxs::cli
