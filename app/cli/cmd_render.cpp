// fxscope-cli render GRAPH --out x.svg|x.png [--expand-all] [--kind K | --graph N]: draws one
// graph (a graph-code file, or a graph of a TORCH_TRACE log/directory) as the GUI's graph view
// would open it — large graphs collapsed by source scope — and prints a JSON summary. SVG comes
// from fxscope's own writer, PNG from Graphviz's renderer. Contract: README "fxscope-cli render".
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "core/io/loader.h"

#ifdef FXSCOPE_HAVE_GRAPHVIZ
#include "core/layout/graph_layout.h"
#include "core/layout/svg_writer.h"
#endif

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <optional>

namespace fxs::cli {

namespace {

using nlohmann::json;

enum Exit { kOk = 0, kInputError = 1, kUsageError = 2, kRenderError = 3 };

struct RenderOptions {
    std::string path;
    std::string out;
    std::string kind;
    int index = -1;
    bool expandAll = false;
    int collapseAbove = 300;
};

std::string extensionOf(const std::string& path)
{
    const auto dot = path.rfind('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos) {
        return {};
    }
    std::string ext = path.substr(dot + 1);
    for (char& c : ext) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return ext;
}

int fail(int code, const std::string& message)
{
    std::cerr << "fxscope-cli render: " << message << "\n";
    return code;
}

// Graphs in load order that parsed; standalone files first, then each run's graphs.
std::vector<const model::GraphArtifact*> parsedGraphs(const io::LoadResult& loaded)
{
    std::vector<const model::GraphArtifact*> out;
    for (const auto& g : loaded.graphs) {
        if (g.graph) {
            out.push_back(&g);
        }
    }
    for (const auto& run : loaded.runs) {
        for (const auto& g : run.graphs) {
            if (g.graph) {
                out.push_back(&g);
            }
        }
    }
    return out;
}

// Picks the graph by --graph INDEX, else the first of --kind, else the first one.
const model::GraphArtifact* pickGraph(const std::vector<const model::GraphArtifact*>& graphs,
                                      const RenderOptions& o, std::string& error)
{
    if (o.index >= 0) {
        if (static_cast<std::size_t>(o.index) >= graphs.size()) {
            error = "--graph " + std::to_string(o.index) + " is out of range (" +
                    std::to_string(graphs.size()) + " graphs)";
            return nullptr;
        }
        return graphs[static_cast<std::size_t>(o.index)];
    }
    for (const auto* g : graphs) {
        if (o.kind.empty() || g->kind == o.kind) {
            return g;
        }
    }
    error = o.kind.empty() ? "no graph found in " + o.path
                           : "no graph of kind '" + o.kind + "' in " + o.path;
    return nullptr;
}

#ifdef FXSCOPE_HAVE_GRAPHVIZ

json summary(const RenderOptions& o, const std::string& format, const model::GraphArtifact& g,
             const layout::ViewGraph& view, const layout::VisibleGraph& vis,
             const std::optional<layout::Rect>& bbox)
{
    json j{{"output", o.out},
           {"format", format},
           {"graph",
            {{"source", g.file},
             {"kind", g.kind},
             {"compile_id", g.compileId.valid() ? json(g.compileId.toString()) : json()},
             {"nodes", g.graph->size()}}},
           {"groups", view.groups().size() - 1},
           {"expanded_groups", view.expandedCount()},
           {"visible_items", vis.items.size()},
           {"visible_edges", vis.edges.size()}};
    j["width"] = bbox ? json(bbox->width()) : json();
    j["height"] = bbox ? json(bbox->height()) : json();
    return j;
}

int render(const RenderOptions& o)
{
    const std::string format = extensionOf(o.out);
    if (format != "svg" && format != "png") {
        return fail(kUsageError, "--out must end in .svg or .png: " + o.out);
    }
    const io::LoadResult loaded = io::loadPaths({o.path});
    std::string error;
    const model::GraphArtifact* g = pickGraph(parsedGraphs(loaded), o, error);
    if (g == nullptr) {
        for (const auto& d : loaded.diagnostics.items()) {
            std::cerr << d.toString() << "\n";
        }
        const bool usage = o.index >= 0 || !o.kind.empty();
        return fail(usage && loaded.readSomething() ? kUsageError : kInputError, error);
    }
    layout::GroupingOptions grouping;
    grouping.collapseAbove = o.collapseAbove;
    layout::ViewGraph view(g->graph, grouping);
    if (o.expandAll) {
        view.expandAll();
    }
    const layout::LayoutOptions options;
    std::optional<layout::Rect> bbox;
    if (format == "svg") {
        auto laid = layout::layoutViewGraph(view, options);
        if (!laid.ok()) {
            return fail(kRenderError, laid.error().toString());
        }
        if (Status s = layout::writeSvgFile(o.out, *laid, view); !s.ok()) {
            return fail(kRenderError, s.error().toString());
        }
        bbox = laid->bbox;
    } else if (Status s = layout::renderWithGraphviz(view, options, "png", o.out); !s.ok()) {
        return fail(kRenderError, s.error().toString());
    }
    printJson(summary(o, format, *g, view, view.visible(), bbox));
    return kOk;
}

#else

int render(const RenderOptions&)
{
    return fail(kRenderError, "this fxscope-cli was built without Graphviz; render is unavailable");
}

#endif

} // namespace

void addRenderCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<RenderOptions>();
    CLI::App* cmd = app.add_subcommand(
        "render", "Draw a graph as SVG or PNG (large graphs collapsed by source scope)");
    cmd->add_option("GRAPH", opts->path, "Graph-code file, TORCH_TRACE log or directory")
        ->required();
    cmd->add_option("--out,-o", opts->out, "Output file: .svg or .png")->required();
    cmd->add_flag("--expand-all", opts->expandAll, "Expand every group (slow on large graphs)");
    CLI::Option* kind = cmd->add_option(
        "--kind", opts->kind, "For traces: the first graph of this kind (e.g. aot_forward_graph)");
    cmd->add_option("--graph", opts->index, "The N-th parsed graph (0-based), load order")
        ->check(CLI::NonNegativeNumber)
        ->excludes(kind);
    cmd->add_option("--collapse-above", opts->collapseAbove,
                    "Open collapsed when the graph has more nodes than this (default 300)");
    cmd->final_callback([opts, &exitCode] { exitCode = render(*opts); });
}

} // namespace fxs::cli
