// How the app names and orders graph artifacts ("aot_forward_graph" -> "AOT forward") and which
// graph a cache lookup keys. Pure functions over core's run model; no Qt widgets, no state.
// Not a parser: the kinds are whatever the TORCH_TRACE importer stored.
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

// For each lookup of `run` (same order as run.lookups), the index into run.graphs of the graph
// it keys, or -1. fx_graph lookups: the i-th lookup of a compile id keys the i-th
// inductor_post_grad_graph of that compile id (else before_post_grad_graph, else AOT forward or
// inference for i = 0 and AOT backward for i = 1). aotautograd lookups key the AOT joint graph
// (else AOT forward, AOT inference, then the Dynamo graph).
std::vector<int> graphsKeyedByLookups(const model::Run& run);

// Label of run.graphs[index] within its compile id: the kind label plus " (forward)" /
// " (backward)" when a training compile has two graphs of that kind, or " #n" otherwise.
QString graphDisplayName(const model::Run& run, int index);

} // namespace fxs::views
