#include "core/diagnose/nested_remedy.h"

#include "core/diagnose/findings.h"
#include "core/io/torch_trace_reader.h"
#include "core/structure/structure.h"

namespace fxs::diagnose {

namespace {

const model::GraphArtifact* dynamoGraph(const model::Run& run, int rank,
                                        const model::CompileId& id)
{
    for (const auto& g : run.graphs) {
        if (g.kind == "dynamo_output_graph" && g.rank == rank &&
            g.compileId.withoutAttempt() == id.withoutAttempt()) {
            return &g;
        }
    }
    return nullptr;
}

// The graph, parsed now when the run kept its code (a parse of our own: the run is not
// changed, and nothing is kept).
graph::GraphPtr parsed(const model::GraphArtifact& g)
{
    if (g.graph) {
        return g.graph;
    }
    if (g.deferred) {
        return g.deferred->get().graph;
    }
    return g.code.empty() ? nullptr : io::deferParse(g.code, g.file)->get().graph;
}

// "model.layers.*" for instances model.layers.0, model.layers.1, ...
std::string pattern(const std::string& path)
{
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(0, dot) + ".*";
}

} // namespace

void addNestedRegionRemedies(const std::vector<const model::Run*>& runs,
                             std::vector<Finding>& findings)
{
    for (auto& f : findings) {
        const auto& link = f.link;
        if (f.remedy || link.kind != Link::Kind::Compile || f.costS < kNestedRemedyMinSeconds ||
            link.run < 0 || std::size_t(link.run) >= runs.size()) {
            continue;
        }
        const auto* g = dynamoGraph(*runs[std::size_t(link.run)], link.rank, link.compileId);
        const graph::GraphPtr graph = g ? parsed(*g) : nullptr;
        if (!graph) {
            continue;
        }
        const auto tree = structure::recoverStructure(*graph);
        if (!tree.ok() || tree->repeatedBlocks.empty() ||
            tree->repeatedBlocks.front().instances.size() < kNestedRemedyMinInstances) {
            continue;
        }
        const auto& block = tree->repeatedBlocks.front();
        const std::string where = pattern(tree->module(block.instances.front()).path);
        f.remedy = Remedy{"plan_nested_regions",
                          "Plan nested regions (" + std::to_string(block.instances.size()) +
                              " identical blocks " + where + "; " + costText(f.costS) +
                              " cold): compile one block and reuse it for the others "
                              "(Regions › Plan Nested Regions, or fxscope-cli partition --nested)",
                          "plan_nested_regions"};
    }
}

} // namespace fxs::diagnose
