// fxscope-cli compile-profile TRACE [--json] [--trace out.json]: where compile time went, per
// compile id, from a TORCH_TRACE run's chromium events and cache lookups.
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "core/io/loader.h"
#include "core/trace_profile/chrome_trace.h"
#include "core/trace_profile/compile_profile.h"
#include "core/util/file_reader.h"
#include "core/util/json_parse.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace fxs::cli {

namespace cmd_compile_profile_detail {

using nlohmann::json;

struct CompileProfileOptions {
    std::string trace;
    bool json = false;
    std::string chromeTrace;
};

json phaseJson(const profile::Phase& p)
{
    json children = json::array();
    for (const auto& c : p.children) {
        children.push_back(phaseJson(c));
    }
    json j{{"name", p.name}, {"ms", p.ms()}, {"children", std::move(children)}};
    if (p.unterminated) {
        j["unterminated"] = true;
    }
    return j;
}

json profileJson(const profile::CompileProfileResult& result)
{
    json compiles = json::array();
    for (const auto& c : result.compiles) {
        json phases = json::array();
        for (const auto& p : c.phases) {
            phases.push_back(phaseJson(p));
        }
        json cache = json::array();
        for (const auto& t : c.cache) {
            cache.push_back({{"cache", t.cache}, {"state", t.state}, {"ms", t.ms},
                             {"saved", t.saved}, {"key", t.key.empty() ? json() : json(t.key)}});
        }
        json metrics = json::array();
        for (const auto& m : c.metrics) {
            json parsed = parseJsonOrDiscarded(m.json);
            metrics.push_back({{"kind", m.kind},
                               {"metrics", parsed.is_discarded() ? json(m.json) : parsed}});
        }
        const std::string id = c.compileId.toString();
        compiles.push_back({{"compile_id", id.empty() ? json() : json(id)},
                            {"total_ms", c.totalMs},
                            {"phases", std::move(phases)},
                            {"cache", std::move(cache)},
                            {"metrics", std::move(metrics)}});
    }
    json problems = json::array();
    for (const auto& d : result.diagnostics.items()) {
        problems.push_back({{"where", d.where()}, {"message", d.message}});
    }
    return json{{"compiles", std::move(compiles)}, {"warnings", std::move(problems)}};
}

void printPhase(const profile::Phase& p, int depth, double parentMs)
{
    if (depth > 3 || (depth > 0 && p.ms() < parentMs * 0.02)) {
        return; // keep the human view short: top levels and phases over 2% of their parent
    }
    std::printf("  %*s%-*s %10.1f ms\n", depth * 2, "", 48 - depth * 2, p.name.c_str(), p.ms());
    for (const auto& c : p.children) {
        printPhase(c, depth + 1, p.ms());
    }
}

void printHuman(const profile::CompileProfileResult& result)
{
    for (const auto& c : result.compiles) {
        std::printf("compile %s: %.1f ms\n", c.compileId.toString().c_str(), c.totalMs);
        for (const auto& p : c.phases) {
            printPhase(p, 0, p.ms());
        }
        for (const auto& t : c.cache) {
            std::printf("  cache %-11s %-8s %10.1f ms %s\n", t.cache.c_str(), t.state.c_str(),
                        t.ms, t.saved ? "saved" : "spent");
        }
    }
}

int runCompileProfile(const CompileProfileOptions& o)
{
    auto loaded = io::loadPaths({o.trace});
    if (loaded.runs.empty()) {
        std::cerr << "fxscope-cli: " << o.trace << ": no TORCH_TRACE run could be read";
        if (!loaded.diagnostics.empty()) {
            std::cerr << " (" << loaded.diagnostics.items().front().toString() << ")";
        }
        std::cerr << "\n";
        return 1;
    }
    const auto result = profile::buildCompileProfile(loaded.runs.front());
    if (!o.chromeTrace.empty()) {
        const std::string trace =
            profile::writeChromeTrace(profile::compileProfileTraceEvents(result));
        if (auto s = writeFile(o.chromeTrace, trace); !s) {
            std::cerr << "fxscope-cli: " << s.error().toString() << "\n";
            return 1;
        }
    }
    if (o.json) {
        printJson(profileJson(result));
    } else {
        printHuman(result);
    }
    return 0;
}

} // namespace cmd_compile_profile_detail

void addCompileProfileCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_compile_profile_detail;
    auto opts = std::make_shared<CompileProfileOptions>();
    auto* cmd = app.add_subcommand("compile-profile",
                                   "Compile-time profile of a TORCH_TRACE run per compile id");
    cmd->add_option("TRACE", opts->trace, "TORCH_TRACE file or directory")->required();
    cmd->add_flag("--json", opts->json, "Print the JSON contract documented in README");
    cmd->add_option("--trace", opts->chromeTrace, "Also write a Chrome trace (Perfetto) JSON")
        ->check(outputFile());
    cmd->callback([opts, &exitCode] { exitCode = runCompileProfile(*opts); });
}

} // namespace fxs::cli
