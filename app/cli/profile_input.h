// Profiler traces among the inputs of fxscope-cli commands: which paths (or files of a
// directory) sniff as torch.profiler Chrome traces, and the summary `inspect` shows of one.
// Not the reader (core/runtime/profile_trace_reader.h) nor the join (core/runtime/attribution.h).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fxs::cli {

// True when path is a regular file whose (inflated) head looks like a Chrome trace.
bool isProfileTrace(const std::string& path);
// The profiler traces a path names: itself, or the files of a directory that sniff as one.
std::vector<std::string> profileTracesIn(const std::string& path);

struct ProfileSummary {
    nlohmann::json json; // {path, events, kernels, launches, cpu_ops, annotations,
                         //  compiled_graph_calls, kernel_us, devices, error}
    bool ok = false;     // read to the end without an error
};
ProfileSummary summarizeProfileTrace(const std::string& path);
void printProfileSummary(const nlohmann::json& summary);

} // namespace fxs::cli
