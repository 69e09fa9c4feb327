// How the app names and orders graph artifacts ("aot_forward_graph" -> "AOT forward"). Pure
// functions over core's run model; no Qt widgets, no state. Which graph a cache lookup keys is
// core's (core/model/lookup_graphs). Not a parser: the kinds are whatever the importer stored.
#pragma once

#include "core/model/run.h"

#include <QString>

#include <string_view>
#include <vector>

namespace fxs::views {

// Sort rank of a graph kind inside one compile id: Dynamo first, then pre-grad, AOT joint,
// forward/inference, backward, post-grad; unknown kinds last.
int graphKindOrder(std::string_view kind);
// Short human label: "Dynamo", "AOT joint", "Post-grad", ...; unknown kinds verbatim.
QString graphKindLabel(std::string_view kind);

// Label of run.graphs[index] within its compile id: the kind label plus " (forward)" /
// " (backward)" when a training compile has two graphs of that kind on its rank, or " #n"
// otherwise; "rank 1 · Dynamo" when the run holds graphs of more than one rank.
QString graphDisplayName(const model::Run& run, int index);
// The ranks the run's graphs come from, ascending (empty: none says).
std::vector<int> runRanks(const model::Run& run);

} // namespace fxs::views
