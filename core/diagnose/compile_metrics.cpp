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
