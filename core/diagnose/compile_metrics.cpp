#include "core/diagnose/compile_metrics.h"

#include "core/util/json_parse.h"

#include <nlohmann/json.hpp>

namespace fxs::diagnose {

namespace {

using nlohmann::json;

double number(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string text(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void readFailure(const json& j, CompileMetrics& c)
{
    c.failType = text(j, "fail_type");
    c.failReason = text(j, "fail_reason");
    c.failUserFile = text(j, "fail_user_frame_filename");
    c.failUserLine = static_cast<int>(number(j, "fail_user_frame_lineno"));
}

// Logs whose *_compile_time_s are absent (2.5+ log the cumulative µs fields instead): the
// entire frame, its backend and Inductor's part, from the cumulative fields.
void useCumulativeTimes(CompileMetrics& c)
{
    if (c.backward) {
        return;
    }
    if (c.entireFrameS <= 0.0) {
        c.entireFrameS = c.dynamoCumulativeS;
    }
    if (c.backendS <= 0.0) {
        c.backendS = c.aotCumulativeS;
    }
    if (c.inductorS <= 0.0) {
        c.inductorS = c.inductorCumulativeS;
    }
}

CompileMetrics fromJson(const json& j, const model::CompilationMetrics& m)
{
    CompileMetrics c;
    c.compileId = m.compileId.withoutAttempt();
    c.rank = m.rank;
    c.backward = m.kind == "bwd_compilation_metrics";
    c.function = text(j, "co_name");
    c.file = text(j, "co_filename");
    c.firstLine = static_cast<int>(number(j, "co_firstlineno"));
    c.entireFrameS = c.backward ? number(j, "duration_us") / 1e6
                                : number(j, "entire_frame_compile_time_s");
    c.backendS = number(j, "backend_compile_time_s");
    c.inductorS = number(j, "inductor_compile_time_s");
    c.restartS = number(j, "dynamo_time_before_restart_s");
    c.recompileReason = text(j, "recompile_reason");
    c.graphBreaks = static_cast<int>(number(j, "num_graph_breaks"));
    readFailure(j, c);
    c.dynamoCumulativeS = number(j, "dynamo_cumulative_compile_time_us") / 1e6;
    c.aotCumulativeS = number(j, "aot_autograd_cumulative_compile_time_us") / 1e6;
    c.inductorCumulativeS = number(j, "inductor_cumulative_compile_time_us") / 1e6;
    useCumulativeTimes(c);
    if (const auto it = j.find("restart_reasons"); it != j.end() && it->is_array()) {
        for (const auto& r : *it) {
            if (r.is_string()) {
                c.restartReasons.push_back(r.get<std::string>());
            }
        }
    }
    return c;
}

} // namespace

std::vector<CompileMetrics> readCompileMetrics(const model::Run& run)
{
    std::vector<CompileMetrics> out;
    for (const auto& m : run.metrics) {
        if (m.kind != "compilation_metrics" && m.kind != "bwd_compilation_metrics") {
            continue;
        }
        const json j = parseJsonOrDiscarded(m.json);
        if (j.is_discarded() || !j.is_object() || !m.compileId.valid()) {
            continue;
        }
        out.push_back(fromJson(j, m));
    }
    return out;
}

} // namespace fxs::diagnose
