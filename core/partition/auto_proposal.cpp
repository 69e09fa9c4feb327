#include "core/partition/auto_proposal.h"

#include "core/codegen/lowering.h"
#include "core/graph/op_category.h"
#include "core/partition/partitioner.h"
#include "core/partition/region_former.h"

#include <algorithm>
#include <map>

namespace fxs::partition {

using graph::Graph;
using graph::Node;
using graph::NodeId;

bool isSupportedByRegionCompiler(const Graph& graph, NodeId id)
{
    return !codegen::nodeRefusal(graph, id).has_value();
}

namespace {

std::optional<graph::Device> nodeDevice(const Graph& graph, const Node& node)
{
    if (const auto* meta = node.tensorMeta()) {
        return meta->device;
    }
    for (NodeId user : node.users) {
        const auto& u = graph.node(user);
        if (u.getitemOf == node.id && u.tensorMeta() && u.tensorMeta()->device) {
            return u.tensorMeta()->device;
        }
    }
    return std::nullopt;
}

bool isCallNode(const Node& node) { return !node.isPlaceholder() && !node.isOutput(); }

// Why a node may not be in any region, before the cycle rule; nullopt when it may.
std::optional<Exclusion> ruleOut(const Graph& graph, const Node& node,
                                 const std::optional<graph::Device>& device,
                                 const ProposalOptions& options)
{
    Exclusion ex;
    ex.node = node.id;
    const auto& names = options.excludedNodes;
    if (std::find(names.begin(), names.end(), node.name) != names.end()) {
        ex.reason = ExclusionReason::UserExcluded;
        ex.message = "excluded by the user";
        return ex;
    }
    if (auto refusal = codegen::nodeRefusal(graph, node.id)) {
        if (refusal->kind == codegen::RefusalKind::Op) {
            ex.reason = ExclusionReason::UnsupportedOp;
            ex.message = "unsupported op: '" + node.target + "' (" +
                         std::string(graph::opCategoryName(graph::categorize(node))) +
                         ") is not lowered by the code generator";
        } else {
            ex.reason = ExclusionReason::NotLowered;
            ex.message = "not lowered by the code generator: " + refusal->message;
        }
        return ex;
    }
    const auto dev = nodeDevice(graph, node);
    if (device && dev && *dev != *device) {
        ex.reason = ExclusionReason::OtherDevice;
        ex.message = "its value is on " + dev->toString() + "; regions run on " +
                     device->toString();
        return ex;
    }
    return std::nullopt;
}

bool worthCompiling(const Region& r, int minNodes)
{
    if (static_cast<int>(r.nodeCount()) < minNodes) {
        return false;
    }
    return r.opMix.count("pointwise") > 0 || r.opMix.count("reduction") > 0;
}

// Why the nodes of a dropped region are left out (one sentence for all of them); refusal: the
// first refusal that involved the region, or null.
Exclusion dropped(const Graph& graph, const Region& r, const Refusal* refusal,
                  const std::vector<Region>& kept, const std::vector<int>& keptIndex)
{
    Exclusion ex;
    if (refusal) {
        ex.reason = ExclusionReason::WouldFormCycle;
        ex.path = refusal->path;
        ex.message = "would form a cycle: joining its neighbours closes the path " +
                     describePath(graph, refusal->path, kept, keptIndex);
        return ex;
    }
    ex.reason = ExclusionReason::NothingToFuse;
    ex.message = r.opMix.size() == 1 && r.opMix.count("view/reshape")
                     ? "only view ops around it; nothing to compute"
                     : "no supported neighbour to fuse with (region of " +
                           std::to_string(r.nodeCount()) + " node(s))";
    return ex;
}

} // namespace

std::optional<graph::Device> mainDevice(const Graph& graph)
{
    std::map<std::string, std::pair<int, graph::Device>> counts;
    std::vector<std::string> order;
    for (const auto& node : graph.nodes()) {
        const auto* meta = node.tensorMeta();
        if (!isCallNode(node) || !meta || !meta->device) {
            continue;
        }
        auto [it, added] = counts.try_emplace(meta->device->toString(), 0, *meta->device);
        if (added) {
            order.push_back(it->first);
        }
        ++it->second.first;
    }
    std::optional<graph::Device> best;
    int bestCount = 0;
    for (const auto& key : order) {
        if (counts[key].first > bestCount) {
            bestCount = counts[key].first;
            best = counts[key].second;
        }
    }
    return best;
}

namespace {

// Keeps the formed regions worth compiling (numbered r0, r1, ...) and gives every node of a
// dropped one its reason. Returns, per formed region, its index among the kept or -1.
std::vector<int> keepWorthwhile(const Graph& graph, const FormedRegions& formed, int minNodes,
                                Partition& out, std::vector<std::optional<Exclusion>>& reasons)
{
    std::vector<Region> all;
    std::vector<int> keptIndex(formed.regions.size(), -1);
    for (std::size_t i = 0; i < formed.regions.size(); ++i) {
        Region r;
        r.nodes = formed.regions[i];
        computeRegionStats(graph, r);
        if (worthCompiling(r, minNodes)) {
            keptIndex[i] = static_cast<int>(out.regions.size());
            r.id = "r" + std::to_string(out.regions.size());
            out.regions.push_back(r);
        }
        all.push_back(std::move(r));
    }
    const std::vector<int> indexOfNode = regionIndexOfNodes(graph, out.regions);
    std::vector<const Refusal*> firstRefusal(formed.regions.size(), nullptr);
    for (const auto& refusal : formed.refusals) {
        for (int r : {refusal.into, refusal.other}) {
            if (!firstRefusal[std::size_t(r)]) {
                firstRefusal[std::size_t(r)] = &refusal;
            }
        }
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (keptIndex[i] >= 0) {
            continue;
        }
        Exclusion ex = dropped(graph, all[i], firstRefusal[i], out.regions, indexOfNode);
        for (NodeId id : all[i].nodes) {
            ex.node = id;
            reasons[id] = ex;
        }
    }
    return keptIndex;
}

// Refusals between kept regions, renumbered to the kept indices.
FormedRegions keptRefusals(const FormedRegions& formed, const std::vector<int>& keptIndex)
{
    FormedRegions kept;
    for (auto refusal : formed.refusals) {
        if (keptIndex[refusal.into] >= 0 && keptIndex[refusal.other] >= 0) {
            refusal.into = keptIndex[refusal.into];
            refusal.other = keptIndex[refusal.other];
            kept.refusals.push_back(std::move(refusal));
        }
    }
    return kept;
}

} // namespace

Partition proposeRegions(const Graph& graph, const ProposalOptions& options)
{
    const auto device = options.device ? options.device : mainDevice(graph);
    std::vector<int> groupOf(graph.size(), -1);
    std::vector<std::optional<Exclusion>> reasons(graph.size());
    for (const auto& node : graph.nodes()) {
        if (!isCallNode(node) || node.getitemOf != graph::kNoNode) {
            continue; // getitems follow their producer
        }
        reasons[node.id] = ruleOut(graph, node, device, options);
        groupOf[node.id] = reasons[node.id] ? -1 : 0;
    }
    const FormedRegions formed = formRegions(graph, groupOf);
    Partition out;
    const auto keptIndex = keepWorthwhile(graph, formed, options.minNodes, out, reasons);
    std::vector<char> inside(graph.size(), 0);
    for (const auto& r : out.regions) {
        for (NodeId id : r.nodes) {
            inside[id] = 1;
        }
    }
    for (const auto& node : graph.nodes()) {
        if (isCallNode(node) && node.getitemOf != graph::kNoNode && !reasons[node.id] &&
            !inside[node.id]) {
            reasons[node.id] = Exclusion{
                node.id, ExclusionReason::TupleOutside,
                "unpacks '" + graph.node(node.getitemOf).name +
                    "', which is outside every region; a getitem stays with its producer",
                {}};
        }
        if (reasons[node.id]) {
            out.excluded.push_back(std::move(*reasons[node.id]));
        }
    }
    out.splits = splitNotes(graph, out.regions, keptRefusals(formed, keptIndex));
    return out;
}

} // namespace fxs::partition
