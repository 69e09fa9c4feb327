// The join of a profiler trace with a TORCH_TRACE run: each GPU kernel → its launch
// (correlation) → the `CompiledFxGraph` call it ran under (time containment on the launching
// thread) → that graph's FX key, compile id and kind → its `name:N` call site → post-grad nodes
// → pre-grad nodes → modules; kernels outside compiled graphs go to their enclosing annotation or
// cpu_op. Sums per kernel, node and module; nothing dropped: the rest is listed with a reason.
#pragma once

#include "core/runtime/graph_provenance.h"
#include "core/runtime/kernel_numbers.h"
#include "core/runtime/profile_trace.h"

#include <optional>
#include <string>
#include <vector>

namespace fxs::runtime {

struct KernelRow {
    std::string name;   // kernel name(s) of the call site, " + "-joined by time
    std::string handle; // "triton_poi_fused_add_0:3"; "" outside compiled graphs
    std::string graph;  // FX graph cache key; "" outside compiled graphs
    std::string op;     // outside compiled graphs: the enclosing annotation or cpu_op
    std::int64_t calls = 0; // call-site executions (a site's launches in one graph call: 1)
    std::int64_t launches = 0;
    double us = 0;
    double share = 0; // of total kernel time
    std::optional<double> bytes; // per call
    std::optional<double> flops; // per call
    std::string flopsPeakKind;   // "fp32", "tf32", "bf16"
    std::vector<std::string> postNodes;
    std::vector<std::string> preNodes;
    std::vector<std::string> modules;
    bool split = false; // its time is split evenly over several post-grad nodes
    std::string autotune;
    std::int64_t compileTimeUs = -1;
};

struct NodeRow {
    std::string graph;
    std::string name;
    double us = 0;
    std::vector<std::string> kernels; // handles
    std::vector<std::string> preNodes;
    bool shared = false; // some of its kernels are shared with other nodes
};

struct ModuleRow {
    std::string path;
    double us = 0;
    double share = 0;
    std::vector<std::string> kernels; // handles
};

struct Unattributed {
    std::string reason;
    double us = 0;
    std::int64_t kernels = 0;
};

struct GraphRow {
    std::string key;
    std::string compileId;
    std::string kind;
    std::int64_t calls = 0;
    double us = 0;
    std::string postNodesFrom;
    std::vector<std::string> notes;
};

struct Attribution {
    std::string device;
    std::optional<DevicePeaks> peaks;
    int steps = 0;
    std::string stepsFrom; // "ProfilerStep#N", or how they were inferred
    std::vector<double> perStepUs;
    double totalKernelUs = 0;
    double attributedUs = 0;
    std::vector<KernelRow> kernels; // by time, largest first
    std::vector<NodeRow> nodes;
    std::vector<ModuleRow> modules;
    std::vector<Unattributed> unattributed;
    std::vector<GraphRow> graphs;
    bool sumCheckOk = false;                       // attributed + unattributed = total (0.1 %)
    std::vector<std::string> tritonWithoutNodes;   // handles of Triton sites with no node
    std::vector<std::string> notes;
};

// Never fails: what cannot be joined is listed in unattributed or notes.
Attribution attribute(const ProfileTrace& trace, const RunProvenance& provenance);

} // namespace fxs::runtime
