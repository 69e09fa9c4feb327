// Pure region edits behind the app's undo commands: each takes the current region list and
// returns the new one, or a refusal that says why and which nodes to highlight (the path that
// would close a cycle, the node that blocks a merge). No state, no undo stack, no Qt.
#pragma once

#include "core/partition/region.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxs::partition {

struct EditResult {
    std::optional<std::vector<Region>> regions; // the new list when the edit is accepted
    std::string refusal;                        // why not, when refused
    std::vector<graph::NodeId> highlight;       // the offending path or nodes, when refused
    bool ok() const { return regions.has_value(); }
};

// The ids of accepted regions: "r<N>" with N one past the largest in use.
std::string nextRegionId(const std::vector<Region>& regions);

// Checks the whole list: nodes exist, no placeholder/output, no node in two regions, getitems
// with their producer, and the contracted graph acyclic. Empty refusal when valid.
EditResult validateRegions(const graph::Graph& graph, const std::vector<Region>& regions);

// A new region of `nodes` (multi-output nodes bring their getitems along); refused for an
// empty set, placeholders/output, nodes already in a region, a getitem without its producer,
// or a cycle (highlight: its path). The region gets nextRegionId and `name`.
EditResult createRegion(const graph::Graph& graph, const std::vector<Region>& regions,
                        std::vector<graph::NodeId> nodes, std::string name = {});
// Several new regions in one edit, in order, each as createRegion (named by its pair's first);
// refused as a whole (nothing created) when any is refused, the refusal naming that region.
EditResult createRegions(const graph::Graph& graph, const std::vector<Region>& regions,
                         std::vector<std::pair<std::string, std::vector<graph::NodeId>>> named);
EditResult renameRegion(const std::vector<Region>& regions, std::string_view id,
                        std::string name);
EditResult deleteRegion(const std::vector<Region>& regions, std::string_view id);
// Merges b into a (a keeps its id, name and place). Refused when the annotations or options
// differ (highlight: b's first node) or the union would form a cycle (highlight: the path).
EditResult mergeRegions(const graph::Graph& graph, const std::vector<Region>& regions,
                        std::string_view a, std::string_view b);
// Moves `moveOut` (and getitems of moved producers) from region `id` into a new region with
// the same annotation and options. Refused when moveOut is empty, not inside, or everything,
// or when either part would form a cycle.
EditResult splitRegion(const graph::Graph& graph, const std::vector<Region>& regions,
                       std::string_view id, std::vector<graph::NodeId> moveOut);
// The nodes a region grown from `seed` would hold: the seed's maximal acyclic region of
// supported ops (auto_proposal.h) among nodes in no region. Empty when seed is in a region,
// a placeholder/output or unsupported.
std::vector<graph::NodeId> growToRegion(const graph::Graph& graph,
                                        const std::vector<Region>& regions, graph::NodeId seed);

} // namespace fxs::partition
