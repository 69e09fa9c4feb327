// fxscope-cli explain RUN_A [RUN_B] [--json]: why each compile-cache lookup of RUN_B hit,
// missed or bypassed compared with RUN_A (or, with one RUN, with earlier lookups of that run).
// RUN is a TORCH_TRACE file or directory. The --json shape is a contract (README).
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "core/explain/explainer.h"
#include "core/io/torch_trace_reader.h"
#include "core/util/strings.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace fxs::cli {
namespace cmd_explain_detail {

using nlohmann::json;

constexpr std::size_t kHumanDiffRows = 5;
constexpr std::size_t kHumanNodeRows = 5;

struct ExplainOptions {
    std::vector<std::string> runs;
    bool json = false;
};

json orNull(const std::optional<std::string>& s)
{
    return s ? json(*s) : json(nullptr);
}

json diffRowJson(const explain::ComponentChange& c)
{
    return {{"component", c.component},
            {"family", c.family},
            {"change", explain::changeKindName(c.change)},
            {"a", c.change == explain::ChangeKind::OnlyB ? json(nullptr) : json(c.a)},
            {"b", c.change == explain::ChangeKind::OnlyA ? json(nullptr) : json(c.b)},
            {"summary", c.summary}};
}

json nodeSideJson(const std::string& op, const std::string& target, const std::string& args,
                  const std::string& meta)
{
    return {{"op", op}, {"target", target}, {"args", args}, {"meta", meta}};
}

json graphDiffJson(const explain::GraphDiff& g)
{
    json nodes = json::array();
    for (const auto& n : g.nodes) {
        const bool hasA = n.change != explain::NodeChangeKind::Added;
        const bool hasB = n.change != explain::NodeChangeKind::Removed;
        nodes.push_back(
            {{"name", n.name},
             {"body", n.body.empty() ? json(nullptr) : json(n.body)},
             {"change", explain::nodeChangeKindName(n.change)},
             {"fields", n.fields},
             {"a", hasA ? nodeSideJson(n.opA, n.targetA, n.argsA, n.metaA) : json(nullptr)},
             {"b", hasB ? nodeSideJson(n.opB, n.targetB, n.argsB, n.metaB) : json(nullptr)}});
    }
    return {{"parsed", g.parsed},        {"summary", g.summary()},
            {"nodes_a", g.nodesA},       {"nodes_b", g.nodesB},
            {"unchanged", g.unchanged},  {"nodes", std::move(nodes)},
            {"line_diff", g.lineDiff}};
}

json lookupJson(const explain::LookupExplanation& e)
{
    json diff = json::array();
    for (const auto& c : e.diff.changes) {
        diff.push_back(diffRowJson(c));
    }
    json j = {
        {"index", e.index},
        {"compile_id", e.compileId.valid() ? json(e.compileId.toString()) : json(nullptr)},
        {"cache", model::cacheKindName(e.cache)},
        {"state", model::cacheStateName(e.state)},
        {"detailed_status", e.detailedStatus},
        {"key", orNull(e.key)},
        {"matched_index", e.partner ? json(*e.partner) : json(nullptr)},
        {"match", explain::matchKindName(e.matchKind)},
        {"matched_key", orNull(e.partnerKey)},
        {"matched_state",
         e.partnerState ? json(model::cacheStateName(*e.partnerState)) : json(nullptr)},
        {"cost_ns", e.costNs ? json(*e.costNs) : json(nullptr)},
        {"verdict", explain::verdictName(e.verdict)},
        {"headline", e.headline},
        {"diff", std::move(diff)},
    };
    j["graph_diff"] = e.graphDiff ? graphDiffJson(*e.graphDiff) : json(nullptr);
    return j;
}

void printGraphDiff(const explain::GraphDiff& g)
{
    std::cout << "    graph: " << g.summary() << "\n";
    std::size_t shown = 0;
    for (const auto& n : g.nodes) {
        if (shown++ == kHumanNodeRows) {
            std::cout << "      ... " << g.nodes.size() - kHumanNodeRows << " more nodes\n";
            break;
        }
        std::cout << "      " << explain::nodeChangeKindName(n.change) << " "
                  << (n.body.empty() ? n.name : n.body + "/" + n.name);
        if (n.change == explain::NodeChangeKind::Changed) {
            std::cout << " (" << join(n.fields, ", ") << "): " << n.targetA << n.argsA
                      << " \u2192 " << n.targetB << n.argsB;
        } else {
            const bool added = n.change == explain::NodeChangeKind::Added;
            const std::string& op = added ? n.opB : n.opA;
            std::cout << " (" << op << ")";
            if (op != "placeholder") {
                std::cout << ": " << (added ? n.targetB + n.argsB : n.targetA + n.argsA);
            }
        }
        std::cout << "\n";
    }
    for (std::size_t k = 0; k < g.lineDiff.size() && k < kHumanNodeRows; ++k) {
        std::cout << "      " << g.lineDiff[k] << "\n";
    }
}

void printLookup(const explain::LookupExplanation& e, bool within)
{
    std::cout << "[" << e.index << "] " << (e.compileId.valid() ? e.compileId.toString() : "-")
              << " " << model::cacheKindName(e.cache) << " " << model::cacheStateName(e.state);
    if (e.key) {
        std::cout << "  key " << e.key->substr(0, 12);
    }
    if (e.partner) {
        std::cout << "  vs " << (within ? "#" : "A[") << *e.partner << (within ? "" : "]") << " "
                  << model::cacheStateName(*e.partnerState);
    }
    std::cout << "\n    " << e.headline << "\n";
    std::size_t shown = 0;
    for (const auto& c : e.diff.changes) {
        if (shown++ == kHumanDiffRows) {
            std::cout << "    ... " << e.diff.changes.size() - kHumanDiffRows << " more\n";
            break;
        }
        std::cout << "    " << explain::changeKindName(c.change) << "  " << c.component << ": "
                  << c.summary << "\n";
    }
    if (e.graphDiff) {
        printGraphDiff(*e.graphDiff);
    }
}

void printHuman(const explain::Explanation& ex, const std::vector<std::string>& runs)
{
    if (ex.within) {
        std::cout << "run " << runs[0] << ": " << ex.lookups.size() << " cache lookups\n\n";
    } else {
        std::cout << "A: " << runs[0] << " (" << ex.lookupsA << " lookups)\nB: " << runs[1]
                  << " (" << ex.lookups.size() << " lookups)\n\n";
    }
    for (const auto& e : ex.lookups) {
        printLookup(e, ex.within);
    }
    std::cout << "\n" << ex.lookups.size() << " lookups: " << ex.count(model::CacheState::Hit)
              << " hit, " << ex.count(model::CacheState::Miss) << " miss, "
              << ex.count(model::CacheState::Bypass) << " bypass, "
              << ex.count(model::CacheState::Disabled) << " disabled\n";
}

Result<model::Run> readRun(const std::string& path)
{
    io::TraceReadOptions options;
    options.parseGraphs = false; // only cache events are needed
    auto r = io::readTorchTracePath(path, options);
    if (!r.readSomething) {
        std::string why = r.diagnostics.empty() ? std::string("no TORCH_TRACE envelope found")
                                                : r.diagnostics.items().front().toString();
        return makeError(ErrorCode::Io, "cannot read run " + path + ": " + why);
    }
    return std::move(r.run);
}

int runExplain(const ExplainOptions& o)
{
    std::vector<model::Run> runs;
    for (const auto& path : o.runs) {
        auto run = readRun(path);
        if (!run) {
            std::cerr << "fxscope-cli explain: " << run.error().message << "\n";
            return 1;
        }
        runs.push_back(std::move(*run));
    }
    auto ex = runs.size() == 1 ? explain::explainWithin(runs[0])
                               : explain::explainRuns(runs[0], runs[1]);
    if (!ex) {
        std::cerr << "fxscope-cli explain: " << ex.error().toString() << "\n";
        return 1;
    }
    if (!o.json) {
        printHuman(*ex, o.runs);
        return 0;
    }
    json lookups = json::array();
    for (const auto& e : ex->lookups) {
        lookups.push_back(lookupJson(e));
    }
    json out = {{"mode", ex->within ? "within" : "compare"},
                {"run_a", o.runs[0]},
                {"run_b", o.runs.back()},
                {"lookups", std::move(lookups)}};
    printJson(out);
    return 0;
}

} // namespace cmd_explain_detail

void addExplainCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_explain_detail;
    auto opts = std::make_shared<ExplainOptions>();
    CLI::App* sub = app.add_subcommand(
        "explain", "Explain compile-cache hits and misses: RUN_B against RUN_A, or within one RUN");
    sub->add_option("runs", opts->runs, "RUN_A [RUN_B]: TORCH_TRACE files or directories")
        ->required()
        ->expected(1, 2);
    sub->add_flag("--json", opts->json, "Print the JSON contract described in README");
    sub->callback([opts, &exitCode]() { exitCode = runExplain(*opts); });
}

} // namespace fxs::cli
