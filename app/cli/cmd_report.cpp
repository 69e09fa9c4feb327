// fxscope-cli report RUN... -o report.html [--redact] [--no-graph]: one self-contained HTML page
// of the diagnosis of the runs (findings with what to do, cold start, recompiles, graph breaks,
// failures, cache explanations, rank divergence) and the first run's largest Dynamo graph drawn
// by modules — to attach to a bug report. --redact leaves out source text, file paths and
// constant values (core/report/redact.h). Prints a JSON summary. Contract: README.
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/trace_runs.h"
#include "core/io/torch_trace_reader.h"
#include "core/report/report.h"
#include "core/util/file_writer.h"
#ifdef FXSCOPE_HAVE_GRAPHVIZ
#include "core/layout/graph_layout.h"
#include "core/layout/layout_cache.h"
#include "core/layout/readable_opening.h"
#include "core/layout/svg_writer.h"
#include "core/structure/structure.h"
#endif

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace fxs::cli {
namespace cmd_report_detail {

using nlohmann::json;

struct ReportOptions {
    std::vector<std::string> runs;
    std::string out;
    bool redact = false;
    bool noGraph = false;
};

struct Drawing {
    std::string svg;
    std::string caption;
    std::size_t nodes = 0;
};

#ifdef FXSCOPE_HAVE_GRAPHVIZ

// The first run's largest Dynamo graph (by its code's lines: graphs are read as text and only
// this one is parsed), drawn as the app opens it (by modules, large graphs collapsed);
// nothing when the run has none or it cannot be read or laid out.
Drawing drawLargestGraph(model::Run& run, bool redact, const std::string& runName,
                         Diagnostics& problems)
{
    std::size_t best = run.graphs.size();
    for (std::size_t i = 0; i < run.graphs.size(); ++i) {
        const auto& g = run.graphs[i];
        if (g.kind == "dynamo_output_graph" &&
            (best == run.graphs.size() || g.payloadLines > run.graphs[best].payloadLines)) {
            best = i;
        }
    }
    if (best == run.graphs.size()) {
        return {};
    }
    auto& g = run.graphs[best];
    io::ensureGraph(g, problems);
    if (!g.graph) {
        return {};
    }
    auto tree = structure::recoverRunGraphStructure(run, best);
    auto modules = tree ? std::make_shared<const structure::ModuleTree>(std::move(*tree)) : nullptr;
    layout::ViewGraph view(g.graph, modules, layout::GroupingOptions{});
    layout::LayoutOptions options;
    options.cache = std::make_shared<layout::LayoutCache>();
    auto laid = layout::layoutReadable(view, options); // as the app opens it
    if (!laid) {
        std::cerr << "fxscope-cli report: the graph is left out: " << laid.error().toString()
                  << "\n";
        return {};
    }
    Drawing d;
    d.nodes = g.graph->size();
    d.svg = layout::layoutToSvg(*laid, view);
    d.caption = "Dynamo graph " + (g.compileId.valid() ? g.compileId.toString() : "?") + " of " +
                (redact ? std::string("run 1") : runName) + (modules ? ", by modules" : "") +
                " (" + std::to_string(d.nodes) + " nodes)";
    return d;
}

#else

Drawing drawLargestGraph(model::Run&, bool, const std::string&, Diagnostics&) { return {}; }

#endif

int runReport(const ReportOptions& o)
{
    std::vector<model::Run> runs;
    Diagnostics problems;
    if (!readTraceRuns("report", o.runs, runs, problems)) {
        return 1;
    }
    auto d = diagnoseRuns(runs);
    if (!d) {
        std::cerr << "fxscope-cli report: " << d.error().toString() << "\n";
        return 1;
    }
    Drawing drawing;
    if (!o.noGraph && !runs.empty()) {
        const std::string& source = d->runs.empty() ? std::string() : d->runs.front().source;
        drawing = drawLargestGraph(runs.front(), o.redact,
                                   source.substr(source.find_last_of('/') + 1), problems);
    }
    report::ReportInput in{&*d, drawing.svg, drawing.caption, FXSCOPE_VERSION};
    if (Status s = writeFile(o.out, report::renderReport(in, {o.redact})); !s.ok()) {
        std::cerr << "fxscope-cli report: " << s.error().toString() << "\n";
        return 1;
    }
    printJson({{"output", o.out},
               {"runs", d->runs.size()},
               {"findings", d->findings.size()},
               {"redacted", o.redact},
               {"graph_nodes", drawing.svg.empty() ? json(nullptr) : json(drawing.nodes)},
               {"problems", problemCountJson(problems)}});
    return 0;
}

} // namespace cmd_report_detail

void addReportCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_report_detail;
    auto opts = std::make_shared<ReportOptions>();
    CLI::App* cmd = app.add_subcommand(
        "report", "Write one self-contained HTML report of the runs' diagnosis, to share");
    cmd->add_option("RUN", opts->runs, "TORCH_TRACE log (.log, .log.gz) or directory of rank logs")
        ->required();
    cmd->add_option("--out,-o", opts->out, "The HTML file to write")
        ->required()
        ->check(outputFile());
    cmd->add_flag("--redact", opts->redact,
                  "Leave out source text, file paths and constant values");
    cmd->add_flag("--no-graph", opts->noGraph, "Do not draw the largest Dynamo graph");
    cmd->final_callback([opts, &exitCode] { exitCode = runReport(*opts); });
}

} // namespace fxs::cli
