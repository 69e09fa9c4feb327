// The few compilation_metrics fields diagnose needs, read from a run's metrics JSON: the
// compiled function, compile times, restarts and graph breaks. Internal to core/diagnose.
#pragma once

#include "core/model/run.h"

#include <string>
#include <vector>

namespace fxs::diagnose {

struct CompileMetrics {
    model::CompileId compileId; // without attempt
    int rank = -1;
    bool backward = false; // bwd_compilation_metrics
    std::string function;  // co_name
    std::string file;      // co_filename
    int firstLine = 0;     // co_firstlineno
    double entireFrameS = 0.0;  // entire_frame_compile_time_s (forward); duration (backward)
    double backendS = 0.0;      // backend_compile_time_s
    double inductorS = 0.0;     // inductor_compile_time_s
    double restartS = 0.0;      // dynamo_time_before_restart_s
    std::vector<std::string> restartReasons;
    std::string recompileReason; // recompile_reason
    int graphBreaks = 0;         // num_graph_breaks
    std::string failType;        // fail_type ("BackendCompilerFailed"); empty when it compiled
    std::string failReason;      // fail_reason
    std::string failUserFile;    // fail_user_frame_filename
    int failUserLine = 0;        // fail_user_frame_lineno
    // The phases' *_cumulative_compile_time_us (older logs, and a fallback for chromium
    // events that are damaged), in seconds; 0 when not logged.
    double dynamoCumulativeS = 0.0;
    double aotCumulativeS = 0.0;
    double inductorCumulativeS = 0.0;
};

// compilation_metrics and bwd_compilation_metrics of the run (the *_runtime kinds are left
// out: they are per call, not per compile). Unreadable JSON is skipped.
std::vector<CompileMetrics> readCompileMetrics(const model::Run& run);

} // namespace fxs::diagnose
