#include "core/partition/region_edit.h"

#include "core/partition/auto_proposal.h"
#include "core/partition/contraction.h"
#include "core/partition/region_former.h"
#include "core/util/strings.h"

#include <algorithm>

namespace fxs::partition {

using graph::Graph;
using graph::NodeId;

namespace {

EditResult refuse(std::string why, std::vector<NodeId> highlight = {})
{
    EditResult r;
    r.refusal = std::move(why);
    r.highlight = std::move(highlight);
    return r;
}

EditResult accept(std::vector<Region> regions)
{
    EditResult r;
    r.regions = std::move(regions);
    return r;
}

std::ptrdiff_t indexOf(const std::vector<Region>& regions, std::string_view id)
{
    for (std::size_t i = 0; i < regions.size(); ++i) {
        if (regions[i].id == id) {
            return static_cast<std::ptrdiff_t>(i);
        }
    }
    return -1;
}

// Adds the getitems that unpack any multi-output node of the set; sorts and deduplicates.
void withGetitems(const Graph& graph, std::vector<NodeId>& nodes)
{
    const std::size_t n = nodes.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (nodes[i] < graph.size() && graph.node(nodes[i]).multiOutput) {
            for (NodeId user : graph.node(nodes[i]).users) {
                if (graph.node(user).getitemOf == nodes[i]) {
                    nodes.push_back(user);
                }
            }
        }
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
}

// Node-level rules for a region's node set; `self` is the region's own index (or -1).
std::optional<EditResult> nodeProblem(const Graph& graph, const std::vector<Region>& regions,
                                      const std::vector<NodeId>& nodes, std::ptrdiff_t self)
{
    if (nodes.empty()) {
        return refuse("a region needs at least one node");
    }
    for (NodeId id : nodes) {
        if (id >= graph.size()) {
            return refuse("no node #" + std::to_string(id) + " in the graph");
        }
        const auto& node = graph.node(id);
        if (node.isPlaceholder() || node.isOutput()) {
            return refuse("'" + node.name + "' is a graph " +
                              (node.isOutput() ? "output" : "input") + "; those stay outside",
                          {id});
        }
        for (std::size_t i = 0; i < regions.size(); ++i) {
            if (static_cast<std::ptrdiff_t>(i) != self && regions[i].contains(id)) {
                return refuse("'" + node.name + "' is already in " + regions[i].label(), {id});
            }
        }
        if (node.getitemOf != graph::kNoNode &&
            !std::binary_search(nodes.begin(), nodes.end(), node.getitemOf)) {
            return refuse("'" + node.name + "' unpacks '" + graph.node(node.getitemOf).name +
                              "', which would stay outside; a getitem goes with its producer",
                          {id, node.getitemOf});
        }
    }
    return std::nullopt;
}

// The first cycle through one of the regions `check` (indices into regions).
std::optional<EditResult> cycleProblem(const Graph& graph, const std::vector<Region>& regions,
                                       const std::vector<std::size_t>& check)
{
    Contraction c(graph);
    for (const auto& r : regions) {
        const int idx = c.addRegion();
        for (NodeId id : r.nodes) {
            c.assign(id, idx);
        }
    }
    for (std::size_t i : check) {
        if (auto path = c.cycleThrough(static_cast<int>(i))) {
            return refuse(regions[i].label() + " would form a cycle: the path " +
                              describePath(graph, *path, regions) + " leaves it and comes back",
                          *path);
        }
    }
    return std::nullopt;
}

} // namespace

std::string nextRegionId(const std::vector<Region>& regions)
{
    std::int64_t next = 0;
    for (const auto& r : regions) {
        if (r.id.size() > 1 && r.id[0] == 'r') {
            if (const auto n = parseInt(std::string_view(r.id).substr(1))) {
                next = std::max(next, *n + 1);
            }
        }
    }
    return "r" + std::to_string(next);
}

EditResult validateRegions(const Graph& graph, const std::vector<Region>& regions)
{
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < regions.size(); ++i) {
        auto nodes = regions[i].nodes;
        std::sort(nodes.begin(), nodes.end());
        if (auto problem = nodeProblem(graph, regions, nodes, static_cast<std::ptrdiff_t>(i))) {
            problem->refusal = regions[i].label() + ": " + problem->refusal;
            return *problem;
        }
        all.push_back(i);
    }
    if (auto problem = cycleProblem(graph, regions, all)) {
        return *problem;
    }
    return accept(regions);
}

EditResult createRegion(const Graph& graph, const std::vector<Region>& regions,
                        std::vector<NodeId> nodes, std::string name)
{
    withGetitems(graph, nodes);
    if (auto problem = nodeProblem(graph, regions, nodes, -1)) {
        return *problem;
    }
    auto next = regions;
    Region r;
    r.id = nextRegionId(regions);
    r.name = std::move(name);
    r.nodes = std::move(nodes);
    computeRegionStats(graph, r);
    next.push_back(std::move(r));
    if (auto problem = cycleProblem(graph, next, {next.size() - 1})) {
        return *problem;
    }
    return accept(std::move(next));
}

EditResult createRegions(const Graph& graph, const std::vector<Region>& regions,
                         std::vector<std::pair<std::string, std::vector<NodeId>>> named)
{
    if (named.empty()) {
        return refuse("no region to create");
    }
    std::vector<Region> next = regions;
    for (auto& [name, nodes] : named) {
        EditResult one = createRegion(graph, next, std::move(nodes), name);
        if (!one.ok()) {
            one.refusal = "'" + name + "': " + one.refusal;
            return one;
        }
        next = std::move(*one.regions);
    }
    return accept(std::move(next));
}

EditResult renameRegion(const std::vector<Region>& regions, std::string_view id, std::string name)
{
    const auto i = indexOf(regions, id);
    if (i < 0) {
        return refuse("no region '" + std::string(id) + "'");
    }
    auto next = regions;
    next[i].name = std::move(name);
    return accept(std::move(next));
}

EditResult deleteRegion(const std::vector<Region>& regions, std::string_view id)
{
    const auto i = indexOf(regions, id);
    if (i < 0) {
        return refuse("no region '" + std::string(id) + "'");
    }
    auto next = regions;
    next.erase(next.begin() + i);
    return accept(std::move(next));
}

EditResult mergeRegions(const Graph& graph, const std::vector<Region>& regions,
                        std::string_view a, std::string_view b)
{
    const auto ia = indexOf(regions, a);
    const auto ib = indexOf(regions, b);
    if (ia < 0 || ib < 0 || ia == ib) {
        return refuse(ia == ib && ia >= 0 ? "a region cannot merge with itself"
                                          : "no region '" + std::string(ia < 0 ? a : b) + "'");
    }
    const Region& ra = regions[ia];
    const Region& rb = regions[ib];
    if (ra.annotation != rb.annotation || (!ra.options.empty() && !rb.options.empty() &&
                                           ra.options != rb.options)) {
        return refuse(ra.label() + " and " + rb.label() +
                          " carry different annotations or options; they compile separately",
                      {rb.nodes.front()});
    }
    auto next = regions;
    Region& merged = next[ia];
    merged.nodes.insert(merged.nodes.end(), rb.nodes.begin(), rb.nodes.end());
    if (merged.options.empty()) {
        merged.options = rb.options;
    }
    computeRegionStats(graph, merged);
    next.erase(next.begin() + ib);
    const std::size_t at = static_cast<std::size_t>(ia < ib ? ia : ia - 1);
    if (auto problem = cycleProblem(graph, next, {at})) {
        return *problem;
    }
    return accept(std::move(next));
}

EditResult splitRegion(const Graph& graph, const std::vector<Region>& regions, std::string_view id,
                       std::vector<NodeId> moveOut)
{
    const auto i = indexOf(regions, id);
    if (i < 0) {
        return refuse("no region '" + std::string(id) + "'");
    }
    withGetitems(graph, moveOut);
    const Region& whole = regions[i];
    for (NodeId n : moveOut) {
        if (!whole.contains(n)) {
            return refuse("node #" + std::to_string(n) + " is not in " + whole.label(), {n});
        }
    }
    if (moveOut.empty() || moveOut.size() >= whole.nodes.size()) {
        return refuse("a split must leave nodes on both sides");
    }
    auto next = regions;
    Region part = whole;
    part.id = nextRegionId(regions);
    part.name.clear();
    part.nodes = moveOut;
    std::erase_if(next[i].nodes, [&](NodeId n) {
        return std::binary_search(moveOut.begin(), moveOut.end(), n);
    });
    std::sort(next[i].nodes.begin(), next[i].nodes.end());
    for (auto* r : {&next[i], &part}) {
        if (auto problem = nodeProblem(graph, {}, r->nodes, -1)) {
            return *problem;
        }
    }
    computeRegionStats(graph, next[i]);
    computeRegionStats(graph, part);
    next.insert(next.begin() + i + 1, std::move(part));
    if (auto problem = cycleProblem(graph, next, {static_cast<std::size_t>(i),
                                                  static_cast<std::size_t>(i) + 1})) {
        return *problem;
    }
    return accept(std::move(next));
}

std::vector<NodeId> growToRegion(const Graph& graph, const std::vector<Region>& regions,
                                 NodeId seed)
{
    if (seed >= graph.size() || !isSupportedByRegionCompiler(graph, seed)) {
        return {};
    }
    std::vector<int> groupOf(graph.size(), -1);
    for (const auto& node : graph.nodes()) {
        if (isSupportedByRegionCompiler(graph, node.id)) {
            groupOf[node.id] = 0;
        }
    }
    for (const auto& r : regions) {
        for (NodeId id : r.nodes) {
            if (id == seed) {
                return {};
            }
            groupOf[id] = -1;
        }
    }
    for (const auto& nodes : formRegions(graph, groupOf).regions) {
        if (std::binary_search(nodes.begin(), nodes.end(), seed)) {
            return nodes;
        }
    }
    return {};
}

} // namespace fxs::partition
