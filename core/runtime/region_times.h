// Measured kernel time of regions drawn over one graph of a TORCH_TRACE run (a `.fxscope`
// project's regions as node-name lists): the graph located in the run — by the SHA-256 of its
// text when the project names it exactly, else by node names, said which — and each region's
// time summed from that graph's node times (graph_times.h), kernels shared across the region's
// boundary counted by the per-node share the attribution already splits. Not the project file
// (core/partition) and not fxscope's own compiled costs (the region cache).
#pragma once

#include "core/model/run.h"
#include "core/runtime/attribution.h"
#include "core/runtime/graph_times.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::runtime {

struct RegionNodes {
    std::string id;
    std::string name;               // module path or label, when the project has one
    std::vector<std::string> nodes; // node names of the graph the regions are drawn over
};

struct GraphLocation {
    std::optional<std::size_t> artifact; // index into run.graphs; nullopt: not in the run
    std::string selector;                // "0/0:aot_forward_graph" ("#N" past the first)
    std::string by;                      // "sha256" or "node_names"
    std::size_t nodesFound = 0;          // regions' nodes the located graph has
    std::size_t nodesTotal = 0;          // regions' nodes in all
    std::string message; // not found: why, with the best candidate; node names: what was assumed
};

// The graph of the run the regions are drawn over: the parsed graph whose text has SHA-256
// sha256Hex; else the parsed graph holding most of the regions' node names, accepted when it
// holds more than half of them (ties: the one with kernel time in `times`, then the first).
GraphLocation locateRegionGraph(const model::Run& run, const std::vector<GraphTimes>& times,
                                std::string_view sha256Hex,
                                const std::vector<RegionNodes>& regions);

// The selector `--graph` takes for run.graphs[index]: "COMPILE_ID:KIND", "#N" for the N-th
// (0-based) graph of that label past the first.
std::string graphSelector(const model::Run& run, std::size_t index);

struct RegionTime {
    std::string id;
    std::string name;
    std::string graph;         // the located graph's selector
    std::size_t nodes = 0;     // the region's nodes
    std::size_t matchedNodes = 0; // those with attributed kernel time on the graph
    std::vector<std::string> unmatched; // the others, in the region's order
    double us = 0;             // sum of the matched nodes' times (shared kernels by share)
    double share = 0;          // of the trace's total kernel time
    std::vector<std::size_t> kernels; // distinct kernel rows touching it (Attribution::kernels)
    std::int64_t launches = 0; // launches of those kernel rows, each counted whole
    std::size_t sharedKernels = 0; // of those, rows that also compute nodes outside the region
};

// One row per region, in the given order. times: the located graph's node times, null when
// no kernel time landed on it (every node is then unmatched).
std::vector<RegionTime> regionTimes(const Attribution& attribution, const GraphTimes* times,
                                    const std::vector<RegionNodes>& regions,
                                    const std::string& graphSelector);

} // namespace fxs::runtime
