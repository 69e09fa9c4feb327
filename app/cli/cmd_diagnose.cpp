// fxscope-cli diagnose RUN... [--json]: why start-up was slow — findings ranked by cost, the
// cold-start breakdown per frame, recompiles, graph breaks, cache classes and rank divergence.
// RUN is a TORCH_TRACE log (.log or .log.gz) or a directory of per-rank logs. The --json shape
// is a contract (README).
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/trace_runs.h"
#include "core/diagnose/diagnosis.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace fxs::cli {
namespace cmd_diagnose_detail {

using nlohmann::json;

struct DiagnoseOptions {
    std::vector<std::string> runs;
    bool json = false;
};

json rankJson(int rank)
{
    return rank >= 0 ? json(rank) : json(nullptr);
}

json idJson(const model::CompileId& id)
{
    return id.valid() ? json(id.toString()) : json(nullptr);
}

json idsJson(const std::vector<model::CompileId>& ids)
{
    json out = json::array();
    for (const auto& id : ids) {
        out.push_back(id.toString());
    }
    return out;
}

json framesJson(const diagnose::Diagnosis& d)
{
    json out = json::array();
    for (const auto& f : d.frames) {
        out.push_back({{"rank", rankJson(f.rank)},
                       {"frame_id", f.frameId},
                       {"compile_ids", idsJson(f.compileIds)},
                       {"total_s", f.totalS},
                       {"phases",
                        {{"dynamo_s", f.phases.dynamoS},
                         {"aot_s", f.phases.aotS},
                         {"inductor_s", f.phases.inductorS},
                         {"cache_s", f.phases.cacheS}}},
                       {"run", f.run},
                       {"function", f.function},
                       {"source", {{"file", f.file}, {"line", f.line}}},
                       {"from_metrics", f.fromMetrics}});
    }
    return out;
}

json recompilesJson(const diagnose::Diagnosis& d)
{
    json out = json::array();
    for (const auto& r : d.recompiles) {
        out.push_back({{"rank", rankJson(r.rank)},
                       {"compile_id", idJson(r.compileId)},
                       {"reason", r.reason},
                       {"input", r.input},
                       {"source", {{"file", r.sourceFile}, {"line", r.sourceLine},
                                   {"code", r.sourceCode}}},
                       {"action", r.action},
                       {"cost_s", r.costS},
                       {"run", r.run},
                       {"reasons", r.reasons},
                       {"failed_entry", r.failedEntry},
                       {"guard", r.guard}});
    }
    return out;
}

json graphBreaksJson(const diagnose::Diagnosis& d)
{
    json out = json::array();
    for (const auto& b : d.graphBreaks) {
        json ranks = json::array();
        for (int r : b.ranks) {
            ranks.push_back(rankJson(r));
        }
        out.push_back({{"reason", b.reason},
                       {"gb_id", b.gbId.empty() ? json(nullptr) : json(b.gbId)},
                       {"source", b.source},
                       {"user_frame", {{"file", b.userFrame.file}, {"line", b.userFrame.line},
                                       {"code", b.userFrame.code}}},
                       {"count", b.count},
                       {"compile_ids", idsJson(b.compileIds)},
                       {"explanation", b.explanation},
                       {"hints", b.hints},
                       {"ranks", ranks},
                       {"cost_s", b.costS}});
    }
    return out;
}

json userFrameJson(const diagnose::UserFrame& f)
{
    return {{"file", f.file}, {"line", f.line}, {"code", f.code}};
}

json failuresJson(const diagnose::Diagnosis& d)
{
    json out = json::array();
    for (const auto& f : d.failures) {
        out.push_back({{"rank", rankJson(f.rank)},
                       {"compile_id", idJson(f.compileId)},
                       {"frame", f.frame},
                       {"fail_type", f.failType},
                       {"reason", f.reason},
                       {"user_frame", userFrameJson(f.userFrame)},
                       {"run", f.run},
                       {"cost_s", f.costS},
                       {"error", f.error}});
    }
    return out;
}

json exportFailuresJson(const diagnose::Diagnosis& d)
{
    json out = json::array();
    for (const auto& f : d.exportFailures) {
        out.push_back({{"rank", rankJson(f.rank)},
                       {"compile_id", idJson(f.compileId)},
                       {"kind", f.kind},
                       {"failure_type", f.failureType},
                       {"reason", f.reason},
                       {"expr", f.expr},
                       {"op", f.op},
                       {"user_frame", userFrameJson(f.userFrame)},
                       {"run", f.run}});
    }
    return out;
}

json cacheJson(const diagnose::Diagnosis& d)
{
    json out = json::array();
    for (const auto& c : d.cache) {
        out.push_back({{"rank", rankJson(c.rank)},
                       {"compile_id", idJson(c.compileId)},
                       {"cache", model::cacheKindName(c.cache)},
                       {"class", diagnose::cacheClassName(c.cls)},
                       {"headline", c.headline},
                       {"run", c.run},
                       {"lookup", c.lookup},
                       {"key", c.key ? json(*c.key) : json(nullptr)},
                       {"cost_s", c.costS},
                       {"components_missing", c.componentsMissing}});
    }
    return out;
}

json divergenceJson(const diagnose::Diagnosis& d)
{
    json out = json::array();
    for (const auto& v : d.divergence) {
        json detail = json::object();
        for (const auto& [rank, what] : v.detail) {
            detail[std::to_string(rank)] = what;
        }
        out.push_back({{"compile_id", idJson(v.compileId)},
                       {"what", v.what},
                       {"detail", detail},
                       {"run", v.run}});
    }
    return out;
}

json diagnosisJson(const diagnose::Diagnosis& d)
{
    json runs = json::array();
    for (const auto& r : d.runs) {
        runs.push_back({{"source", r.source}, {"ranks", r.ranks}});
    }
    json findings = json::array();
    for (const auto& f : d.findings) {
        json remedy = nullptr;
        if (f.remedy) {
            remedy = {{"kind", f.remedy->kind},
                      {"text", f.remedy->text},
                      {"action", f.remedy->action.empty() ? json(nullptr)
                                                          : json(f.remedy->action)}};
        }
        findings.push_back({{"severity", diagnose::severityName(f.severity)},
                            {"cost_s", f.costS},
                            {"text", f.text},
                            {"where", f.where},
                            {"remedy", std::move(remedy)}});
    }
    return {{"runs", std::move(runs)},
            {"frames", framesJson(d)},
            {"recompiles", recompilesJson(d)},
            {"graph_breaks", graphBreaksJson(d)},
            {"failures", failuresJson(d)},
            {"export_failures", exportFailuresJson(d)},
            {"cache", cacheJson(d)},
            {"divergence", divergenceJson(d)},
            {"findings", std::move(findings)}};
}

std::string rankPrefix(int rank)
{
    return rank >= 0 ? "rank " + std::to_string(rank) + " " : std::string();
}

void printHuman(const diagnose::Diagnosis& d)
{
    std::printf("Findings (largest cost first):\n");
    for (const auto& f : d.findings) {
        std::printf("  %-7s %8.2f s  %s%s%s\n", std::string(diagnose::severityName(f.severity)).c_str(),
                    f.costS, f.text.c_str(), f.where.empty() ? "" : "  @ ", f.where.c_str());
        if (f.remedy) {
            std::printf("  %-7s %10s  \u2192 %s\n", "", "", f.remedy->text.c_str());
        }
    }
    std::printf("\nFrames:\n");
    for (const auto& f : d.frames) {
        std::printf("  %sframe %d %-24s %7.2f s  dynamo %.2f  aot %.2f  inductor %.2f  cache %.2f\n",
                    rankPrefix(f.rank).c_str(), f.frameId, f.function.c_str(), f.totalS,
                    f.phases.dynamoS, f.phases.aotS, f.phases.inductorS, f.phases.cacheS);
    }
    std::printf("\nCache lookups:\n");
    for (const auto& c : d.cache) {
        std::printf("  %s%-5s %-11s %-12s %s\n", rankPrefix(c.rank).c_str(),
                    c.compileId.toString().c_str(),
                    std::string(model::cacheKindName(c.cache)).c_str(),
                    std::string(diagnose::cacheClassName(c.cls)).c_str(), c.headline.c_str());
    }
    for (const auto& v : d.divergence) {
        std::printf("\nDivergence at %s: %s\n", v.compileId.toString().c_str(), v.what.c_str());
        for (const auto& [rank, what] : v.detail) {
            std::printf("  rank %d: %s\n", rank, what.c_str());
        }
    }
}

int runDiagnose(const DiagnoseOptions& o)
{
    std::vector<model::Run> runs;
    Diagnostics problems;
    if (!readTraceRuns("diagnose", o.runs, runs, problems)) {
        return 1;
    }
    auto d = diagnoseRuns(runs);
    if (!d) {
        std::cerr << "fxscope-cli diagnose: " << d.error().toString() << "\n";
        return 1;
    }
    if (o.json) {
        json out = diagnosisJson(*d);
        out["problems"] = problemCountJson(problems);
        printJson(out);
    } else {
        printHuman(*d);
    }
    return 0;
}

} // namespace cmd_diagnose_detail

void addDiagnoseCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_diagnose_detail;
    auto opts = std::make_shared<DiagnoseOptions>();
    CLI::App* sub = app.add_subcommand(
        "diagnose", "Why start-up was slow: recompiles, graph breaks, cache classes, cold start");
    sub->add_option("runs", opts->runs,
                    "RUN...: TORCH_TRACE logs (.log, .log.gz) or directories of per-rank logs")
        ->required();
    sub->add_flag("--json", opts->json, "Print the JSON contract described in README");
    sub->callback([opts, &exitCode]() { exitCode = runDiagnose(*opts); });
}

} // namespace fxs::cli
