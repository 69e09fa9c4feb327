// fxscope-cli compile GRAPH [--project P | --auto] [--cache DB] [--json]: compiles the graph's
// regions with fxscope's code generator (through the artifact cache), runs them next to the
// eager engine and reports per region hit / miss / fallback with timings. Contract: README.
#include "app/cli/commands.h"
#include "app/cli/region_source.h"
#include "core/cache/cache_store.h"
#include "core/compile/region_compiler.h"
#include "core/exec/interpreter.h"
#include "core/io/graph_code_parser.h"
#include "core/util/file_reader.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <set>

namespace fxs::cli {
namespace {

using nlohmann::json;

struct CompileCliOptions {
    std::string graph;
    std::string project;
    bool autoRegions = false;
    std::string cache;
    bool json = false;
    int repeat = 5;
    std::uint64_t seed = 0;
};

int fail(const std::string& what)
{
    std::cerr << "fxscope-cli compile: " << what << "\n";
    return 1;
}

json outcomeJson(const compile::RegionOutcome& r)
{
    return {{"id", r.id},
            {"nodes", r.nodes},
            {"state", compile::regionStateName(r.state)},
            {"headline", r.headline},
            {"key", r.key},
            {"compile_ms", r.compileMs},
            {"eager_ms", r.eagerMs},
            {"compiled_ms", r.compiledMs},
            {"max_abs_err", r.maxAbsErr}};
}

void printHuman(const std::vector<compile::RegionOutcome>& outs, double eager, double compiled)
{
    for (const auto& r : outs) {
        std::printf("%-5s %3d nodes  %-8s compile %8.1f ms  eager %8.3f ms  compiled %8.3f ms"
                    "  err %.2g\n      %s\n",
                    r.id.c_str(), r.nodes, std::string(compile::regionStateName(r.state)).c_str(),
                    r.compileMs, r.eagerMs, r.compiledMs, r.maxAbsErr, r.headline.c_str());
    }
    std::printf("total eager %.3f ms, compiled %.3f ms (%.2fx)\n", eager, compiled,
                compiled > 0 ? eager / compiled : 0.0);
}

int runCompile(const CompileCliOptions& o)
{
    auto text = readFile(o.graph);
    if (!text) {
        return fail(text.error().toString());
    }
    auto parsed = io::parseGraphCode(*text, o.graph);
    if (!parsed.graph) {
        return fail(o.graph + ": no graph code found");
    }
    const graph::Graph& g = *parsed.graph;
    auto regions = regionsFromSource(g, *text, o.project, o.autoRegions, "compile");
    if (!regions) {
        return fail(regions.error().toString());
    }
    cache::StoreOptions so;
    so.path = o.cache;
    auto store = cache::CacheStore::open(so);
    if (!store) {
        return fail(store.error().toString());
    }
    // One eager run of the whole graph gives every region its inputs.
    exec::RunOptions ro;
    ro.seed = o.seed;
    ro.perNodeTiming = false;
    std::set<std::string> keep;
    for (const auto& r : *regions) {
        for (graph::NodeId in : r.inputs) {
            keep.insert(g.node(in).name);
        }
    }
    ro.keep.assign(keep.begin(), keep.end());
    auto run = exec::Interpreter::run(g, ro);
    if (!run || !run->ok) {
        return fail(run ? "the eager engine cannot run this graph (unsupported ops)"
                        : run.error().toString());
    }
    compile::CompileOptions co;
    co.store = store->get();
    co.timingRepeats = o.repeat;
    compile::RegionCompiler compiler(co);
    std::vector<compile::RegionOutcome> outs;
    double eager = 0;
    double compiled = 0;
    json list = json::array();
    for (const auto& r : *regions) {
        outs.push_back(compiler.compileAndRun(g, {r.id, r.nodes, r.options}, run->kept));
        eager += outs.back().eagerMs;
        compiled += outs.back().compiledMs;
        list.push_back(outcomeJson(outs.back()));
    }
    if (o.json) {
        std::cout << json{{"regions", list},
                          {"total_eager_ms", eager},
                          {"total_compiled_ms", compiled}}
                         .dump(2)
                  << "\n";
    } else {
        printHuman(outs, eager, compiled);
    }
    return 0;
}

} // namespace

void addCompileCommand(CLI::App& app, int& exitCode)
{
    auto o = std::make_shared<CompileCliOptions>();
    auto* cmd = app.add_subcommand("compile", "Compile a graph's regions and compare with eager");
    cmd->add_option("GRAPH", o->graph, "Printed graph code (print_readable / TORCH_LOGS)")
        ->required();
    auto* project = cmd->add_option("--project", o->project, "Regions from a .fxscope project");
    cmd->add_flag("--auto", o->autoRegions, "Regions from the automatic proposal")
        ->excludes(project);
    cmd->add_option("--cache", o->cache, "Cache database (default: $FXSCOPE_CACHE_DIR/cache.db, "
                                         "$XDG_CACHE_HOME/fxscope/cache.db, ~/.cache/...)");
    cmd->add_flag("--json", o->json, "JSON output (contract in README)");
    cmd->add_option("--repeat", o->repeat, "Timed runs per region (default 5)");
    cmd->add_option("--seed", o->seed, "Seed of the synthesised inputs");
    cmd->callback([o, &exitCode] {
        try {
            exitCode = runCompile(*o);
        } catch (const std::exception& e) {
            exitCode = fail(e.what());
        }
    });
}

} // namespace fxs::cli
