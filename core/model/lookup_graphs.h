// Which graph of a TORCH_TRACE run a cache lookup keys, by the rules of PyTorch's caches: an
// FX-graph lookup keys an Inductor graph, an AOTAutograd lookup the AOT joint graph. Pure
// functions over the run model, shared by the app (lookup ↔ graph links) and the CLI. Not a
// matcher across runs (explain/lookup_matcher).
#pragma once

#include "core/model/run.h"

#include <string_view>
#include <vector>

namespace fxs::model {

// The Dynamo-level kinds: Dynamo's output graph and the pre-grad passes' versions of it
// (torch.nn.functional calls, before AOTAutograd traces them to ATen).
bool isPreGradKind(std::string_view kind);

// Indices into run.graphs of the graphs of `kind` with compile id `cid`, in log order.
std::vector<int> graphsOfKind(const Run& run, const CompileId& cid, std::string_view kind);

// For each lookup of `run` (same order as run.lookups), the index into run.graphs of the graph
// it keys, or -1. fx_graph lookups: the i-th lookup of a compile id keys the i-th
// inductor_post_grad_graph of that compile id (else before_post_grad_graph, else AOT forward or
// inference for i = 0 and AOT backward for i = 1). aotautograd lookups key the AOT joint graph
// (else AOT forward, AOT inference, then the Dynamo graph).
std::vector<int> graphsKeyedByLookups(const Run& run);

} // namespace fxs::model
