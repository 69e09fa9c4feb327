// Profiler traces among the inputs of fxscope-cli commands: which paths (or files of a
// directory) sniff as torch.profiler Chrome traces, and the summary `inspect` shows of one.
// Not the reader (core/runtime/profile_trace_reader.h) nor the join (core/runtime/attribution.h).
#pragma once

#include "core/runtime/profile_trace_files.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fxs::cli {

// Which paths are profiler traces: core's rule (core/runtime/profile_trace_files.h).
using runtime::isProfileTrace;
using runtime::profileTracesIn;

struct ProfileSummary {
    nlohmann::json json; // {path, events, kernels, launches, cpu_ops, annotations,
                         //  compiled_graph_calls, kernel_us, devices, error}
    bool ok = false;     // read to the end without an error
};
ProfileSummary summarizeProfileTrace(const std::string& path);
void printProfileSummary(const nlohmann::json& summary);

} // namespace fxs::cli
