#include "core/partition/region.h"

#include "core/graph/op_category.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace fxs::partition {

using graph::Graph;
using graph::NodeId;

bool Region::contains(NodeId id) const
{
    return std::find(nodes.begin(), nodes.end(), id) != nodes.end();
}

std::vector<std::string> regionInputNames(const Graph& graph, const std::vector<Region>& regions)
{
    std::set<std::string> keep;
    for (const auto& r : regions) {
        for (NodeId in : r.inputs) {
            keep.insert(graph.node(in).name);
        }
    }
    return {keep.begin(), keep.end()};
}

std::optional<std::int64_t> valueBytes(const Graph& graph, NodeId id)
{
    const auto& node = graph.node(id);
    if (const auto* meta = node.tensorMeta()) {
        return meta->nbytes();
    }
    if (!node.multiOutput) {
        return std::nullopt;
    }
    std::int64_t sum = 0;
    for (NodeId user : node.users) {
        const auto* meta = graph.node(user).tensorMeta();
        const auto bytes = meta ? meta->nbytes() : std::nullopt;
        if (graph.node(user).getitemOf != id || !bytes) {
            return std::nullopt;
        }
        sum += *bytes;
    }
    return sum;
}

void computeRegionStats(const Graph& graph, Region& region)
{
    std::sort(region.nodes.begin(), region.nodes.end());
    region.nodes.erase(std::unique(region.nodes.begin(), region.nodes.end()), region.nodes.end());
    // Proportional to the region, not the graph: a proposal computes this for every region.
    auto inside = [&](NodeId id) {
        return std::binary_search(region.nodes.begin(), region.nodes.end(), id);
    };
    region.inputs.clear();
    region.outputs.clear();
    region.opMix.clear();
    region.bytesIn = region.bytesOut = 0;
    region.bytesExact = true;
    std::unordered_set<NodeId> isInput;
    auto addBytes = [&](std::int64_t& total, NodeId id) {
        const auto bytes = valueBytes(graph, id);
        if (bytes) {
            total += *bytes;
        } else {
            region.bytesExact = false;
        }
    };
    for (NodeId id : region.nodes) {
        const auto& node = graph.node(id);
        ++region.opMix[std::string(graph::opCategoryName(graph::categorize(node)))];
        for (NodeId in : node.inputs) {
            if (!inside(in) && isInput.insert(in).second) {
                region.inputs.push_back(in);
                addBytes(region.bytesIn, in);
            }
        }
        const bool usedOutside = std::any_of(node.users.begin(), node.users.end(),
                                             [&](NodeId u) { return !inside(u); });
        if (usedOutside) {
            region.outputs.push_back(id);
            addBytes(region.bytesOut, id);
        }
    }
}

std::string_view reasonCode(ExclusionReason r)
{
    switch (r) {
    case ExclusionReason::NotAnnotated: return "not_annotated";
    case ExclusionReason::UnsupportedOp: return "unsupported_op";
    case ExclusionReason::WouldFormCycle: return "would_form_cycle";
    case ExclusionReason::OtherDevice: return "other_device";
    case ExclusionReason::UserExcluded: return "user_excluded";
    case ExclusionReason::TupleOutside: return "tuple_outside";
    case ExclusionReason::NothingToFuse: return "nothing_to_fuse";
    case ExclusionReason::NotLowered: return "not_lowered";
    }
    return "unknown";
}

const Region* Partition::regionOf(NodeId id) const
{
    for (const auto& r : regions) {
        if (r.contains(id)) {
            return &r;
        }
    }
    return nullptr;
}

std::vector<int> regionIndexOfNodes(const Graph& graph, const std::vector<Region>& regions)
{
    std::vector<int> index(graph.size(), -1);
    for (std::size_t r = regions.size(); r-- > 0;) { // the first region wins, as in regionOf
        for (NodeId id : regions[r].nodes) {
            index[id] = static_cast<int>(r);
        }
    }
    return index;
}

std::string describePath(const Graph& graph, const std::vector<NodeId>& path,
                         const std::vector<Region>& regions, const std::vector<int>& indexOfNode)
{
    std::string out;
    for (NodeId id : path) {
        if (!out.empty()) {
            out += " → ";
        }
        out += graph.node(id).name;
        if (const int r = indexOfNode[id]; r >= 0) {
            out += " (" + regions[std::size_t(r)].label() + ")";
        }
    }
    return out;
}

std::string describePath(const Graph& graph, const std::vector<NodeId>& path,
                         const std::vector<Region>& regions)
{
    return describePath(graph, path, regions, regionIndexOfNodes(graph, regions));
}

} // namespace fxs::partition
