// Measured kernel time laid on the graphs of a run, for drawing: for each graph of the run that
// belongs to a compiled graph of an attribution, the time and the kernel rows of each of its
// nodes. Post-grad side: the compile's inductor_post_grad_graph (and before_post_grad_graph) and
// its AOT forward, backward or inference graph, by post-grad node name. Pre-grad side: the
// Dynamo graph and the pre-grad graphs of the compile, by pre-grad node name, summed over the
// compile's forward and backward. A kernel's time splits evenly over its post-grad nodes, a
// post-grad node's over its pre-grad nodes, as in the attribution's sums. Not the join itself.
#pragma once

#include "core/model/run.h"
#include "core/runtime/attribution.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace fxs::runtime {

struct NodeTime {
    double us = 0;
    std::vector<std::size_t> kernels; // indices into Attribution::kernels, ascending
};

struct GraphTimes {
    std::size_t artifact = 0; // index into run.graphs
    bool preGrad = false;     // nodes named as the pre-grad graph's (else the post-grad graph's)
    std::vector<std::string> keys; // FX graph cache keys of the compiled graphs drawn on it
    std::map<std::string, NodeTime> nodes; // by node name
    double us = 0;                         // the sum over nodes
};

// Every graph of run that some kernel row of attribution lands on, in run.graphs order.
// provenance must be the one attribution was made from (collectProvenance(run)); graphs not
// parsed are matched by kind and order within their compile.
std::vector<GraphTimes> timesByGraph(const Attribution& attribution,
                                     const RunProvenance& provenance, const model::Run& run);

// How many distinct compiled graphs the trace calls whose FX cache key the run logged: which of
// several loaded runs a trace was recorded with.
std::size_t knownGraphKeys(const ProfileTrace& trace, const model::Run& run);

} // namespace fxs::runtime
