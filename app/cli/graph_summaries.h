// What `inspect` says about each graph of a load result (node counts, op histogram, subgraphs),
// computed so that a large log costs little: graphs whose parse was put off are parsed on every
// core, each distinct payload once, and their IR is dropped as soon as it has been counted, so
// at most one graph per thread is alive at a time. Not a cache: nothing outlives the call.
#pragma once

#include "core/io/loader.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace fxs::cli {

struct GraphSummary {
    nlohmann::json json;   // {nodes, call_function_nodes, placeholders, outputs, ops, subgraphs}
    bool parsed = false;   // false: the graph could not be read (counts are 0)
};

// One summary per graph, in the order of result.runs' graphs then result.graphs. The parser's
// problems for graphs parsed here are added to result.diagnostics, each file's in line order
// among that file's other problems (as an import that parsed every graph would list them).
std::vector<GraphSummary> summariseGraphs(io::LoadResult& result);

} // namespace fxs::cli
