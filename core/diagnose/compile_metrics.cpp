#include "core/diagnose/compile_metrics.h"

#include <simdjson.h>

namespace fxs::diagnose {

namespace {

// The metrics are JSON objects of a few dozen KB each, one per frame and rank: read with
// simdjson's DOM (a log of 64 ranks holds ~90 MB of them).
using json = simdjson::dom::object;

double number(const json& j, const char* key)
{
    double v = 0.0;
    return j.at_key(key).get_double().get(v) == simdjson::SUCCESS ? v : 0.0;
}

std::string text(const json& j, const char* key)
{
    std::string_view v;
    return j.at_key(key).get_string().get(v) == simdjson::SUCCESS ? std::string(v)
                                                                  : std::string();
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
    simdjson::dom::array reasons;
    if (j.at_key("restart_reasons").get_array().get(reasons) == simdjson::SUCCESS) {
        for (const auto r : reasons) {
            std::string_view reason;
            if (r.get_string().get(reason) == simdjson::SUCCESS) {
                c.restartReasons.emplace_back(reason);
            }
        }
    }
    return c;
}

} // namespace

std::vector<CompileMetrics> readCompileMetrics(const model::Run& run)
{
    std::vector<CompileMetrics> out;
    simdjson::dom::parser parser;
    for (const auto& m : run.metrics) {
        if ((m.kind != "compilation_metrics" && m.kind != "bwd_compilation_metrics") ||
            !m.compileId.valid()) {
            continue;
        }
        json j;
        if (parser.parse(m.json).get_object().get(j) != simdjson::SUCCESS) {
            continue; // not a JSON object: nothing to read (the reader said so when it was cut)
        }
        out.push_back(fromJson(j, m));
    }
    return out;
}

} // namespace fxs::diagnose
