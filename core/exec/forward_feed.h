// INTERNAL to core/exec: feeding a backward graph from its forward graph (--from-forward).
// Decides, for every backward placeholder, which forward value it receives or that it is a
// tangent to synthesise, before anything runs.
#pragma once

#include "core/graph/graph.h"
#include "core/util/result.h"

#include <string>
#include <vector>

namespace fxs::exec::detail {

struct FeedSource {
    graph::NodeId bwInput = graph::kNoNode;
    bool tangent = false;       // synthesise it (meta below)
    graph::NodeId fwNode = graph::kNoNode; // !tangent: the forward value it receives
    graph::ValueMeta meta;      // tangent: the shape to synthesise
    std::string rule;           // "aot-comment", "name", "tangent"
};

struct FeedPlan {
    std::vector<FeedSource> sources;  // one per backward placeholder, in order
    std::vector<graph::NodeId> fwKeep; // forward nodes whose values must survive the run
};

// Rules, first match wins: AOT comments (`# SavedForBackwardsAOTOutput(idx=..)` against the
// forward's output comments, `# PlainAOTInput(idx=..)` against its inputs, `# TangentAOTInput`),
// then the forward node of the same name, then `tangents_k` (meta from the backward placeholder,
// else the k-th forward output not passed by name). An input matching nothing is an Error
// naming it.
Result<FeedPlan> matchBackwardInputs(const graph::Graph& fw, const graph::Graph& bw);

} // namespace fxs::exec::detail
