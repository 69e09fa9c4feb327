#include "core/structure/structure.h"

#include "core/structure/aot_mapping.h"
#include "core/structure/module_path.h"
#include "core/structure/module_tree_builder.h"
#include "core/structure/node_assignment.h"
#include "core/structure/repeated_blocks.h"
#include "core/structure/shared_values.h"
#include "core/structure/structural_hash.h"

#include <exception>

namespace fxs::structure {
namespace {

using graph::Graph;
using graph::Node;
using graph::NodeId;
using graph::OpKind;

template <class F>
Result<ModuleTree> guarded(const CancelToken& cancel, F&& f)
{
    try {
        if (cancel.isCancelled()) {
            return makeError(ErrorCode::Cancelled, "structure recovery cancelled");
        }
        ModuleTree tree = f();
        if (cancel.isCancelled()) {
            return makeError(ErrorCode::Cancelled, "structure recovery cancelled");
        }
        return tree;
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("structure recovery failed: ") + e.what());
    }
}

// Source 1: nn_module_stack on the nodes. False when no node carries it.
bool placeFromMetadata(const Graph& g, ModuleTreeBuilder& b)
{
    bool any = false;
    for (const Node& n : g.nodes()) {
        if (!n.moduleStack.empty() && !n.moduleStack.back().path.empty()) {
            b.assign(n.id, b.moduleFor(n.moduleStack.back().path));
            any = true;
        }
    }
    return any;
}

std::optional<ParamPath> inputPathOf(const Node& n)
{
    if (n.op == OpKind::Placeholder) {
        auto p = parseDynamoName(n.target);
        return p ? p : parseDynamoName(n.name);
    }
    auto p = parseDynamoName(n.target);
    return p ? p : parseDottedTarget(n.target);
}

// Source 2: Dynamo placeholder names, get_attr and call_module targets. False when none names
// a module.
bool placeFromNames(const Graph& g, ModuleTreeBuilder& b)
{
    bool any = false;
    for (const Node& n : g.nodes()) {
        if (n.op == OpKind::Placeholder || n.op == OpKind::GetAttr) {
            if (const auto p = inputPathOf(n); p && !p->module.empty()) {
                b.addInput(n.id, p->path(), p->module, MatchStrength::Name);
                any = true;
            }
        } else if (n.op == OpKind::CallModule) {
            if (const auto path = modulePathOfTarget(n.target)) {
                b.assign(n.id, b.moduleFor(*path));
                any = true;
            }
        }
    }
    return any;
}

// Source 4: "block N" modules from repeated runs of node signatures.
ModuleTree fromRepetition(const Graph& g, const StructureOptions& options, const CancelToken& cancel)
{
    ModuleTreeBuilder b(g);
    const auto signatures = nodeSignatures(g);
    const auto runs = findBlockRuns(g, signatures, options.minBlockNodes, options.minInstances, cancel);
    std::size_t index = 0;
    for (const auto& run : runs) {
        for (const auto& block : run.blocks) {
            const ModuleId m = b.moduleFor("block " + std::to_string(index++));
            for (NodeId id : block) {
                b.assign(id, m);
            }
        }
    }
    return b.finish(index == 0 ? Source::None : Source::Repetition, MatchStrength::Name);
}

ModuleTree recoverOwn(const Graph& g, const StructureOptions& options, const CancelToken& cancel)
{
    {
        ModuleTreeBuilder b(g);
        if (placeFromMetadata(g, b)) {
            assignNodes(g, b);
            hoistSharedValues(g, b);
            return b.finish(Source::ExportMetadata, MatchStrength::Name);
        }
    }
    ModuleTreeBuilder b(g);
    if (placeFromNames(g, b)) {
        assignNodes(g, b);
        hoistSharedValues(g, b);
        return b.finish(Source::Names, MatchStrength::Name);
    }
    if (options.findRepetition) {
        return fromRepetition(g, options, cancel);
    }
    return ModuleTreeBuilder(g).finish(Source::None, MatchStrength::Name);
}

bool hasNames(const ModuleTree& t)
{
    return t.source == Source::Names || t.source == Source::ExportMetadata;
}

// The graph of this kind of the same compile and rank: the last before index, else the first.
std::optional<std::size_t> companion(const model::Run& run, std::size_t index, std::string_view kind)
{
    const auto& self = run.graphs[index];
    std::optional<std::size_t> found;
    for (std::size_t k = 0; k < run.graphs.size(); ++k) {
        const auto& g = run.graphs[k];
        if (k == index || g.kind != kind || g.compileId != self.compileId || g.rank != self.rank ||
            !g.parsedGraph()) {
            continue;
        }
        if (k < index || !found) {
            found = k;
        }
        if (k > index) {
            break;
        }
    }
    return found;
}

std::string_view fwMetadataOf(const model::Run& run, const model::GraphArtifact& art)
{
    for (const auto& t : run.texts) {
        if (t.kind == "aot_forward_graph_fw_metadata" && t.compileId == art.compileId &&
            t.rank == art.rank) {
            return t.text;
        }
    }
    return {};
}

ModuleTree recoverInRun(const model::Run& run, std::size_t index, const StructureOptions& options,
                        const CancelToken& cancel, int depth)
{
    const model::GraphArtifact& art = run.graphs[index];
    const graph::GraphPtr graph = art.parsedGraph(); // parsed: checked by the caller
    const Graph& g = *graph;
    StructureOptions noRepetition = options;
    noRepetition.findRepetition = false;
    ModuleTree own = recoverOwn(g, noRepetition, cancel);
    if (hasNames(own)) {
        return own;
    }
    ModuleTreeBuilder b(g);
    std::optional<MatchStrength> strength;
    const auto dynamo = companion(run, index, "dynamo_output_graph");
    const auto forward = companion(run, index, "aot_forward_graph");
    const graph::GraphPtr fwGraph = forward ? run.graphs[*forward].parsedGraph() : nullptr;
    if (fwGraph && depth == 0 && isBackwardOf(g, *fwGraph)) {
        const ModuleTree fwTree = recoverInRun(run, *forward, noRepetition, cancel, depth + 1);
        if (fwTree.source == Source::AotMapping) {
            strength = mapBackwardInputs(g, *fwGraph, fwTree, b);
        }
    } else if (dynamo) {
        const graph::GraphPtr dynamoGraph = run.graphs[*dynamo].parsedGraph();
        const Graph& dg = *dynamoGraph;
        const ModuleTree dynamoTree = recoverOwn(dg, noRepetition, cancel);
        if (hasNames(dynamoTree)) {
            strength = mapAotInputs(g, dg, dynamoTree, fwMetadataOf(run, art), b);
        }
    }
    if (!strength) {
        return options.findRepetition ? recoverOwn(g, options, cancel) : own;
    }
    assignNodes(g, b);
    hoistSharedValues(g, b);
    return b.finish(Source::AotMapping, *strength);
}

} // namespace

Result<ModuleTree> recoverStructure(const Graph& graph, const StructureOptions& options,
                                    const CancelToken& cancel)
{
    return guarded(cancel, [&] { return recoverOwn(graph, options, cancel); });
}

Result<ModuleTree> recoverRunGraphStructure(const model::Run& run, std::size_t graphIndex,
                                            const StructureOptions& options,
                                            const CancelToken& cancel)
{
    if (graphIndex >= run.graphs.size() || !run.graphs[graphIndex].parsedGraph()) {
        return makeError(ErrorCode::Invalid, "no parsed graph at index " + std::to_string(graphIndex),
                         run.path);
    }
    return guarded(cancel, [&] { return recoverInRun(run, graphIndex, options, cancel, 0); });
}

std::vector<std::size_t> graphsReadFor(const model::Run& run, std::size_t graphIndex)
{
    if (graphIndex >= run.graphs.size()) {
        return {};
    }
    // Every candidate companion() may pick: it takes the nearest readable one, which is known
    // only once they are parsed.
    std::vector<std::size_t> out{graphIndex};
    const auto& self = run.graphs[graphIndex];
    for (std::size_t k = 0; k < run.graphs.size(); ++k) {
        const auto& g = run.graphs[k];
        if (k != graphIndex && g.compileId == self.compileId && g.rank == self.rank &&
            (g.kind == "dynamo_output_graph" || g.kind == "aot_forward_graph")) {
            out.push_back(k);
        }
    }
    return out;
}

} // namespace fxs::structure
