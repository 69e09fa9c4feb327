// Internal to core/runtime's attribution: where each kernel went (the join's output) and the
// passes that sum it into rows. Not a public header.
#pragma once

#include "core/runtime/attribution.h"

#include <string>
#include <vector>

namespace fxs::runtime {

class LaunchIndex;

struct Placement {
    const CompiledGraph* graph = nullptr;
    int site = 0;             // call-site n within graph
    std::string op;           // outside compiled graphs: the enclosing annotation or cpu_op
    std::string unattributed; // the reason, when neither
    int step = 0;
    std::int64_t call = -1; // index of the graph call it ran in
};

// kernels: event indices of the trace's kernels; where: one placement per kernel.
void sumKernelRows(const ProfileTrace& trace, const RunProvenance& prov,
                   const std::vector<std::size_t>& kernels, const std::vector<Placement>& where,
                   Attribution& out);
void sumNodesAndModules(const RunProvenance& prov, Attribution& out);
void describeGraphs(const ProfileTrace& trace, const RunProvenance& prov, const LaunchIndex& index,
                    Attribution& out);
void runChecks(const ProfileTrace& trace, const RunProvenance& prov,
               const std::vector<std::size_t>& kernels, const std::vector<Placement>& where,
               Attribution& out);

} // namespace fxs::runtime
