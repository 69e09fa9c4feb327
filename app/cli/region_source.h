// Where `compile` and `profile` take their regions from: a project file (re-matched against
// the graph, unmatched nodes reported on stderr), the automatic proposal, or the graph's own
// compile_with_inductor annotations. keepOut: node names the automatic proposal leaves out
// (run --compiled's summed products).
#pragma once

#include "core/graph/graph.h"
#include "core/partition/region.h"
#include "core/util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::cli {

Result<std::vector<partition::Region>> regionsFromSource(const graph::Graph& g,
                                                         const std::string& graphText,
                                                         const std::string& project,
                                                         bool autoRegions,
                                                         std::string_view command,
                                                         std::vector<std::string> keepOut = {});

} // namespace fxs::cli
