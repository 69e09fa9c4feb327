// fxscope-cli run GRAPH [--graph SEL] [--from-forward FW] [--repeat N] [--size s0=8] [--json]:
// runs a graph (graph code, a TorchScript .pt, one graph of a TORCH_TRACE) on the reference
// engine and reports timing, peak memory and output summaries. The JSON shape is a contract
// (README "fxscope-cli run").
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/graph_input.h"
#include "core/exec/interpreter.h"
#include "core/util/int_expr.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

namespace fxs::cli {
namespace cmd_run_detail {

using nlohmann::json;

struct RunCliOptions {
    std::string graph;
    std::string selector;        // --graph
    std::string forward;
    std::string forwardSelector; // --forward-graph
    std::string inputs;
    std::string device = "auto";
    std::vector<std::string> sizes;
    int repeat = 1;
    std::uint64_t seed = 0;
    bool json = false;
};

// The graph at path, with parse errors fatal: a graph that lost statements would run wrong.
Result<LoadedGraph> loadGraph(const std::string& path, const std::string& selector)
{
    auto loaded = loadGraphInput(path, selector);
    if (!loaded.ok() || loaded->diagnostics.errorCount() == 0) {
        return loaded;
    }
    for (const auto& d : loaded->diagnostics.items()) {
        if (d.severity == Severity::Error) {
            Error e = makeError(ErrorCode::Parse, d.message, d.where());
            e.expected = d.expected;
            e.found = d.found;
            return e;
        }
    }
    return loaded;
}

Status parseSizes(const std::vector<std::string>& specs, std::map<std::string, std::int64_t>& out)
{
    for (const auto& s : specs) {
        const auto eq = s.find('=');
        const auto value = eq == std::string::npos || eq == 0
                               ? Result<std::int64_t>(makeError(ErrorCode::Invalid, "no '='"))
                               : parseIntLiteral(std::string_view(s).substr(eq + 1));
        if (!value.ok()) {
            Error e = makeError(ErrorCode::Invalid, "bad --size: " + value.error().message);
            e.expected = "NAME=INTEGER, e.g. s0=8";
            e.found = s;
            return e;
        }
        out[s.substr(0, eq)] = *value;
    }
    return {};
}

json reportJson(const exec::RunReport& r)
{
    json outputs = json::array();
    for (const auto& o : r.outputs) {
        json j{{"name", o.name}};
        if (o.isTensor) {
            j.update({{"shape", o.shape}, {"dtype", o.dtype}, {"nan", o.nan}, {"inf", o.inf},
                      {"min", o.min}, {"max", o.max}, {"mean", o.mean}});
        } else {
            j["value"] = o.value;
        }
        outputs.push_back(std::move(j));
    }
    json perNode = json::array();
    for (const auto& n : r.perNode) {
        perNode.push_back({{"name", n.name}, {"target", n.target}, {"ms", n.ms}});
    }
    json unsupported = json::array();
    for (const auto& u : r.unsupported) {
        unsupported.push_back({{"node", u.node}, {"target", u.target}, {"reason", u.reason}});
    }
    return {{"ok", r.ok}, {"device", r.device}, {"nodes_run", r.nodesRun},
            {"total_ms", r.totalMs}, {"peak_bytes", r.peakBytes}, {"outputs", outputs},
            {"per_node", perNode}, {"unsupported", unsupported}, {"notes", r.notes}};
}

void printText(const exec::RunReport& r)
{
    for (const auto& n : r.notes) {
        std::printf("note: %s\n", n.c_str());
    }
    if (!r.unsupported.empty()) {
        std::printf("cannot run: %zu unsupported node(s)\n", r.unsupported.size());
        for (const auto& u : r.unsupported) {
            std::printf("  %s  %s: %s\n", u.node.c_str(), u.target.c_str(), u.reason.c_str());
        }
        return;
    }
    std::printf("ran %d nodes on %s in %.3f ms, peak %.1f MiB\n", r.nodesRun, r.device.c_str(),
                r.totalMs, static_cast<double>(r.peakBytes) / (1 << 20));
    for (const auto& o : r.outputs) {
        if (!o.isTensor) {
            std::printf("  %-24s %s\n", o.name.c_str(), o.value.c_str());
            continue;
        }
        std::string shape;
        for (auto d : o.shape) {
            shape += (shape.empty() ? "" : ", ") + std::to_string(d);
        }
        std::printf("  %-24s %s[%s] min %.4g max %.4g mean %.4g nan %lld inf %lld\n",
                    o.name.c_str(), o.dtype.c_str(), shape.c_str(), o.min, o.max, o.mean,
                    static_cast<long long>(o.nan), static_cast<long long>(o.inf));
    }
}

int fail(const RunCliOptions& o, const Error& e, int code)
{
    if (o.json) {
        exec::RunReport empty;
        json j = reportJson(empty);
        j["error"] = errorJson(e);
        printJson(j);
    } else {
        std::fprintf(stderr, "fxscope-cli run: %s\n", e.toString().c_str());
    }
    return code;
}

int runRun(const RunCliOptions& o)
{
    exec::RunOptions ro;
    ro.seed = o.seed;
    ro.repeat = o.repeat;
    ro.inputsFile = o.inputs;
    ro.device = o.device == "cpu" ? exec::DevicePref::Cpu
                : o.device == "cuda" ? exec::DevicePref::Cuda
                                     : exec::DevicePref::Auto;
    if (auto s = parseSizes(o.sizes, ro.sizes); !s.ok()) {
        return fail(o, s.error(), 2);
    }
    auto g = loadGraph(o.graph, o.selector);
    if (!g.ok()) {
        return fail(o, g.error(), 2);
    }
    // A TorchScript module's or .pt2 archive's own weights (and the archive's sample inputs
    // unless the user gave inputs or sizes).
    std::string note;
    auto weights = graphWeights(*g, o.inputs.empty() && o.sizes.empty(), &note);
    if (!weights.ok()) {
        return fail(o, weights.error(), 2);
    }
    ro.inputs = *weights;
    if (auto s = completeSizes(*g, ro.sizes); !s.ok()) {
        return fail(o, s.error(), 2);
    }
    if (!o.forward.empty()) {
        auto fw = loadGraph(o.forward, o.forwardSelector);
        if (!fw.ok()) {
            return fail(o, fw.error(), 2);
        }
        ro.forwardGraph = fw->graph;
    }
    auto report = exec::Interpreter::run(*g->graph, ro);
    if (!report.ok()) {
        return fail(o, report.error(), 1);
    }
    if (!note.empty()) {
        report->notes.push_back(note);
    }
    if (o.json) {
        printJson(reportJson(*report));
    } else {
        printText(*report);
    }
    return report->ok ? 0 : 1;
}

} // namespace cmd_run_detail

void addRunCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_run_detail;
    auto options = std::make_shared<RunCliOptions>();
    CLI::App* cmd = app.add_subcommand(
        "run", "Run a graph (graph code, TorchScript .pt, TORCH_TRACE) on the reference engine");
    cmd->add_option("graph", options->graph, "Graph-code file, TorchScript .pt or TORCH_TRACE")
        ->required();
    cmd->add_option("--graph", options->selector,
                    "TORCH_TRACE input: which graph, N or COMPILE_ID:KIND[#N] (see README)");
    auto* forward = cmd->add_option(
        "--from-forward", options->forward,
        "Forward graph to run first; its values feed this (backward) graph");
    cmd->add_option("--forward-graph", options->forwardSelector,
                    "TORCH_TRACE --from-forward: which graph (like --graph)")
        ->needs(forward);
    cmd->add_option("--repeat", options->repeat, "Timed runs (a warm-up run is added when > 1)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--size", options->sizes, "Symbolic size, NAME=INT (repeatable)");
    cmd->add_option("--seed", options->seed, "Seed for synthesised inputs");
    cmd->add_option("--inputs", options->inputs,
                    "Real inputs: a torch.save({name: tensor}) file (names as the placeholders)");
    cmd->add_option("--device", options->device, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_flag("--json", options->json, "Print the JSON contract instead of text");
    cmd->callback([options, &exitCode] { exitCode = runRun(*options); });
}

} // namespace fxs::cli
