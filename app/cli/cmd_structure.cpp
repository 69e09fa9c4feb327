// fxscope-cli structure GRAPH [--graph SEL] [--json]: the module tree of one graph (graph code,
// a TorchScript .pt, or one graph of a TORCH_TRACE, whose AOT graphs get the module paths of the
// Dynamo graph of their compile), identical modules and repeated blocks. The JSON shape is a
// contract (README "fxscope-cli structure").
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/graph_input.h"
#include "core/structure/structure.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace fxs::cli {
namespace cmd_structure_detail {

using nlohmann::json;
using structure::kNoModule;
using structure::ModuleId;
using structure::ModuleTree;

struct StructureCliOptions {
    std::string graph;
    std::string selector;
    bool json = false;
};

json moduleJson(const ModuleTree& t, ModuleId m)
{
    const auto& mod = t.module(m);
    json children = json::array();
    for (ModuleId c : mod.children) {
        children.push_back(moduleJson(t, c));
    }
    return {{"path", mod.path},
            {"nodes", mod.totalNodes},
            {"identical_to",
             mod.identicalTo == kNoModule ? json() : json(t.module(mod.identicalTo).path)},
            {"children", std::move(children)}};
}

json graphJson(const LoadedGraph& in, const std::string& path)
{
    if (!in.run) {
        return {{"source", path}, {"compile_id", json()}, {"kind", "graph"},
                {"nodes", in.graph->size()}};
    }
    const auto& art = in.run->graphs[in.runGraphIndex];
    return {{"source", art.file + ":" + std::to_string(art.line)},
            {"compile_id", art.compileId.valid() ? json(art.compileId.toString()) : json()},
            {"kind", art.kind},
            {"nodes", in.graph->size()}};
}

json treeJson(const LoadedGraph& in, const std::string& path, const ModuleTree& t)
{
    json modules = json::array();
    for (ModuleId r : t.roots) {
        modules.push_back(moduleJson(t, r));
    }
    json blocks = json::array();
    for (const auto& b : t.repeatedBlocks) {
        json instances = json::array();
        for (ModuleId m : b.instances) {
            instances.push_back({{"label", t.module(m).path}, {"nodes", t.module(m).totalNodes}});
        }
        blocks.push_back({{"nodes_each", b.nodesEach}, {"instances", std::move(instances)}});
    }
    return {{"graph", graphJson(in, path)},
            {"source", structure::sourceName(t.source)},
            {"match", structure::matchStrengthName(t.strength)},
            {"modules", std::move(modules)},
            {"repeated_blocks", std::move(blocks)},
            {"unassigned_nodes", t.unassigned},
            {"notes", t.notes}};
}

void printModule(const ModuleTree& t, ModuleId m, int indent)
{
    const auto& mod = t.module(m);
    std::cout << std::string(static_cast<std::size_t>(indent) * 2, ' ') << mod.path << "  ("
              << mod.totalNodes << " nodes)";
    if (mod.identicalTo != kNoModule) {
        std::cout << "  identical to " << t.module(mod.identicalTo).path << "\n";
        return; // its children mirror the first one's
    }
    std::cout << "\n";
    for (ModuleId c : mod.children) {
        printModule(t, c, indent + 1);
    }
}

void printText(const LoadedGraph& in, const ModuleTree& t)
{
    std::cout << "graph: " << in.graph->size() << " nodes\n"
              << "structure: " << structure::sourceName(t.source) << " (match "
              << structure::matchStrengthName(t.strength) << "), " << t.modules.size()
              << " modules, " << t.unassigned << " unassigned nodes\n";
    for (ModuleId r : t.roots) {
        printModule(t, r, 1);
    }
    for (const auto& b : t.repeatedBlocks) {
        std::cout << "repeated: " << b.instances.size() << " x " << b.nodesEach << " nodes: "
                  << t.module(b.instances.front()).path << " ... "
                  << t.module(b.instances.back()).path << "\n";
    }
    for (const auto& n : t.notes) {
        std::cout << "note: " << n << "\n";
    }
}

int runStructure(const StructureCliOptions& o)
{
    auto loaded = loadGraphInput(o.graph, o.selector);
    if (!loaded.ok()) {
        std::cerr << "fxscope-cli structure: " << loaded.error().toString() << "\n";
        return loaded.error().code == ErrorCode::Invalid ? 2 : 1;
    }
    auto tree = structureOf(*loaded);
    if (!tree.ok()) {
        std::cerr << "fxscope-cli structure: " << tree.error().toString() << "\n";
        return 1;
    }
    if (o.json) {
        printJson(treeJson(*loaded, o.graph, *tree));
    } else {
        printText(*loaded, *tree);
    }
    return 0;
}

} // namespace cmd_structure_detail

void addStructureCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_structure_detail;
    auto opts = std::make_shared<StructureCliOptions>();
    auto* cmd = app.add_subcommand(
        "structure", "Recover a graph's module tree (module paths, identical modules, repeated "
                     "blocks) from its names, its compile's Dynamo graph, or repetition");
    cmd->add_option("graph", opts->graph,
                    "Graph-code file, TorchScript .pt, or TORCH_TRACE log/directory")
        ->required();
    cmd->add_option("--graph", opts->selector,
                    "TORCH_TRACE graph: index N or COMPILE_ID:KIND[#N] (see `inspect --json`)");
    cmd->add_flag("--json", opts->json, "Print the JSON contract instead of text");
    cmd->callback([opts, &exitCode] { exitCode = runStructure(*opts); });
}

} // namespace fxs::cli
