// A region of a graph: a set of nodes that is compiled as one unit, with what the partitioner
// and the views need to show about it (inputs, outputs, op mix, estimated traffic). Plain data
// plus the functions that derive the statistics; no partitioning policy lives here.
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fxs::partition {

struct Region {
    std::string id;   // stable within one partition or project: "r0", "r1", ...
    std::string name; // user label; empty means "show the id"
    // The node annotation the region came from as a JSON object text, e.g.
    // {"compile_with_inductor":0}; nullopt for regions made by hand or by the proposal.
    std::optional<std::string> annotation;
    // Compile options as a JSON object text, e.g. {"inductor_configs":{"max_autotune":true}};
    // empty when the region has none.
    std::string options;

    std::vector<graph::NodeId> nodes;   // graph order
    std::vector<graph::NodeId> inputs;  // nodes outside read inside, order of first use
    std::vector<graph::NodeId> outputs; // region nodes read outside or returned, graph order
    std::map<std::string, int> opMix;   // op category name ("pointwise", ...) -> node count
    std::int64_t bytesIn = 0;           // sum of TensorMeta::nbytes over inputs
    std::int64_t bytesOut = 0;          // sum over outputs
    bool bytesExact = true;             // false when some input/output had no concrete size

    std::size_t nodeCount() const { return nodes.size(); }
    const std::string& label() const { return name.empty() ? id : name; }
    bool contains(graph::NodeId id) const;
};

// Fills inputs, outputs, opMix and bytes from region.nodes (which it sorts into graph order).
void computeRegionStats(const graph::Graph& graph, Region& region);

// The names of every node some region reads as an input, sorted and unique: what an eager run
// keeps so the regions can be compiled and timed on real values afterwards.
std::vector<std::string> regionInputNames(const graph::Graph& graph,
                                          const std::vector<Region>& regions);

// Bytes of a node's value: its tensor meta, or for a multi-output node the sum over the
// getitem users that unpack it. nullopt when unknown or symbolic.
std::optional<std::int64_t> valueBytes(const graph::Graph& graph, graph::NodeId id);

// Why a node is not inside any region. Persisted in JSON by name (reasonCode()).
enum class ExclusionReason : std::uint8_t {
    NotAnnotated,   // annotation mode: the node carries no region annotation
    UnsupportedOp,  // proposal: the region compiler does not support the op
    WouldFormCycle, // proposal: joining its neighbours' region would make the graph cyclic
    OtherDevice,    // proposal: the node's value lives on another device than the regions
    UserExcluded,   // the user excluded it
    TupleOutside,   // a getitem whose tuple-producing node is outside every region
    NothingToFuse,  // proposal: a region too small or only views; not worth compiling
    NotLowered,     // proposal: the op is lowered, but not with this node's dtype or shapes
};

std::string_view reasonCode(ExclusionReason r); // "not_annotated", "unsupported_op", ...

struct Exclusion {
    graph::NodeId node = graph::kNoNode;
    ExclusionReason reason = ExclusionReason::NotAnnotated;
    std::string message;              // full sentence for users
    std::vector<graph::NodeId> path;  // WouldFormCycle: the path that closes the cycle
};

// A place where nodes that could have formed one region were kept apart, and why.
struct SplitNote {
    std::string regionA;             // region ids after renumbering
    std::string regionB;
    std::vector<graph::NodeId> path; // leaves regionA and re-enters it through regionB's side
    std::string message;
};

struct Partition {
    std::vector<Region> regions;      // ordered by first node
    std::vector<Exclusion> excluded;  // call nodes outside every region, graph order
    std::vector<SplitNote> splits;
    // The region holding node id, or nullptr.
    const Region* regionOf(graph::NodeId id) const;
};

// "a (r0) → mm → b (r0)": node names joined by arrows, each tagged with its region's id when
// regionOf says it has one.
std::string describePath(const graph::Graph& graph, const std::vector<graph::NodeId>& path,
                         const std::vector<Region>& regions);
// For describing many paths: the index into regions of each node's region (-1: none), made
// once, and describePath with it (linear in the path, not in the graph).
std::vector<int> regionIndexOfNodes(const graph::Graph& graph, const std::vector<Region>& regions);
std::string describePath(const graph::Graph& graph, const std::vector<graph::NodeId>& path,
                         const std::vector<Region>& regions, const std::vector<int>& indexOfNode);

} // namespace fxs::partition
