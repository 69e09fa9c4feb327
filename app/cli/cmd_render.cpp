// fxscope-cli render GRAPH --out x.svg|x.png [--expand-all] [--module PATH] [--kind K | --graph N]:
// draws one graph (a graph-code file, or a graph of a TORCH_TRACE log/directory) as the GUI's
// graph view would open it — grouped by the model's modules (source scopes when it names none),
// large graphs collapsed — and prints a JSON summary with the top-level items drawn. SVG comes
// from fxscope's own writer, PNG from Graphviz's renderer. Contract: README "fxscope-cli render".
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "core/io/loader.h"
#include "core/structure/structure.h"

#ifdef FXSCOPE_HAVE_GRAPHVIZ
#include "core/layout/graph_layout.h"
#include "core/layout/layout_cache.h"
#include "core/layout/readable_opening.h"
#include "core/layout/svg_writer.h"
#endif

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <optional>

namespace fxs::cli {

namespace cmd_render_detail {

using nlohmann::json;

enum Exit { kOk = 0, kInputError = 1, kUsageError = 2, kRenderError = 3 };

struct RenderOptions {
    std::string path;
    std::string out;
    std::string kind;
    int index = -1;
    bool expandAll = false;
    int collapseAbove = 300;
    std::string module;           // draw only this module
    std::string groupBy = "modules"; // or "source"
};

// A parsed graph and, for a graph of a run, the run and its index there (for the structure).
struct Pick {
    const model::GraphArtifact* artifact = nullptr;
    const model::Run* run = nullptr;
    std::size_t index = 0;
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
std::vector<Pick> parsedGraphs(const io::LoadResult& loaded)
{
    std::vector<Pick> out;
    for (const auto& g : loaded.graphs) {
        if (g.graph) {
            out.push_back({&g, nullptr, 0});
        }
    }
    for (const auto& run : loaded.runs) {
        for (std::size_t i = 0; i < run.graphs.size(); ++i) {
            if (run.graphs[i].graph) {
                out.push_back({&run.graphs[i], &run, i});
            }
        }
    }
    return out;
}

// Picks the graph by --graph INDEX, else the first of --kind, else the first one.
std::optional<Pick> pickGraph(const std::vector<Pick>& graphs, const RenderOptions& o,
                              std::string& error)
{
    if (o.index >= 0) {
        if (static_cast<std::size_t>(o.index) >= graphs.size()) {
            error = "--graph " + std::to_string(o.index) + " is out of range (" +
                    std::to_string(graphs.size()) + " graphs)";
            return std::nullopt;
        }
        return graphs[static_cast<std::size_t>(o.index)];
    }
    for (const Pick& g : graphs) {
        if (o.kind.empty() || g.artifact->kind == o.kind) {
            return g;
        }
    }
    error = o.kind.empty() ? "no graph found in " + o.path
                           : "no graph of kind '" + o.kind + "' in " + o.path;
    return std::nullopt;
}

#ifdef FXSCOPE_HAVE_GRAPHVIZ

// The top-level items drawn: the focused group's children (the whole graph's by default).
json itemsJson(const layout::ViewGraph& view)
{
    json items = json::array();
    for (const layout::ViewChild& c : view.group(view.focus()).children) {
        if (!c.isGroup) {
            items.push_back({{"label", view.titleOf(view.graph().node(c.index))},
                             {"kind", "node"},
                             {"nodes", 1}});
            continue;
        }
        const layout::Group& g = view.group(c.index);
        items.push_back({{"label", g.label},
                         {"kind", layout::groupKindName(g.kind)},
                         {"nodes", g.nodeCount()},
                         {"detail", g.detail},
                         {"expanded", view.isExpanded(g.id)}});
    }
    return items;
}

json summary(const RenderOptions& o, const std::string& format, const model::GraphArtifact& g,
             const layout::ViewGraph& view, const layout::VisibleGraph& vis,
             const std::optional<layout::Rect>& bbox, double seconds)
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
    j["grouped_by"] = view.modules() ? std::string(structure::sourceName(view.modules()->source))
                                     : std::string("source");
    j["module"] = o.module.empty() ? json() : json(o.module);
    j["width"] = bbox ? json(bbox->width()) : json();
    j["height"] = bbox ? json(bbox->height()) : json();
    j["layout_seconds"] = seconds;
    j["items"] = itemsJson(view);
    return j;
}

// The module tree of the picked graph; null when asked for source groups or when recovery fails
// (the view then groups by source scope).
std::shared_ptr<const structure::ModuleTree> modulesOf(const Pick& p, const RenderOptions& o)
{
    if (o.groupBy != "modules") {
        return nullptr;
    }
    auto tree = p.run ? structure::recoverRunGraphStructure(*p.run, p.index)
                      : structure::recoverStructure(*p.artifact->graph);
    if (!tree) {
        std::cerr << "fxscope-cli render: module structure: " << tree.error().toString()
                  << " (grouping by source)\n";
        return nullptr;
    }
    return std::make_shared<const structure::ModuleTree>(std::move(*tree));
}

// Focuses the view on one module: its group (expanded, with everything inside when small).
Status focusModule(layout::ViewGraph& view, const RenderOptions& o)
{
    const auto& tree = view.modules();
    const auto module = tree ? tree->find(o.module) : std::nullopt;
    const layout::GroupId group = module ? view.groupOfModule(*module) : layout::kNoGroup;
    if (group == layout::kNoGroup) {
        return makeError(ErrorCode::Invalid,
                         "--module " + o.module + ": no such module in this graph" +
                             (tree ? "" : " (it names no modules)") +
                             "; `fxscope-cli structure` lists them");
    }
    view.setFocus(group);
    const bool small = view.group(group).nodeCount() <= static_cast<std::size_t>(o.collapseAbove);
    for (const layout::Group& g : view.groups()) {
        bool inside = false;
        for (layout::GroupId a = g.id; a != layout::kNoGroup; a = view.group(a).parent) {
            inside = inside || a == group;
        }
        if (inside && (small || o.expandAll || g.id == group)) {
            view.setExpanded(g.id, true);
        }
    }
    return {};
}

int render(const RenderOptions& o)
{
    const std::string format = extensionOf(o.out);
    if (format != "svg" && format != "png") {
        return fail(kUsageError, "--out must end in .svg or .png: " + o.out);
    }
    const io::LoadResult loaded = io::loadPaths({o.path});
    std::string error;
    const std::optional<Pick> picked = pickGraph(parsedGraphs(loaded), o, error);
    if (!picked) {
        for (const auto& d : loaded.diagnostics.items()) {
            std::cerr << d.toString() << "\n";
        }
        const bool usage = o.index >= 0 || !o.kind.empty();
        return fail(usage && loaded.readSomething() ? kUsageError : kInputError, error);
    }
    const model::GraphArtifact* g = picked->artifact;
    layout::GroupingOptions grouping;
    grouping.collapseAbove = o.collapseAbove;
    layout::ViewGraph view(g->graph, modulesOf(*picked, o), grouping);
    if (!o.module.empty()) {
        if (Status s = focusModule(view, o); !s.ok()) {
            return fail(kUsageError, s.error().toString());
        }
    } else if (o.expandAll) {
        view.expandAll();
    }
    layout::LayoutOptions options;
    options.cache = std::make_shared<layout::LayoutCache>();
    std::optional<layout::Rect> bbox;
    double seconds = 0;
    // Opened as the app opens it, as deep as it reads fitted; a focused module and
    // --expand-all are drawn as asked.
    std::optional<layout::LayoutResult> opened;
    if (o.module.empty() && !o.expandAll) {
        auto laid = layout::layoutReadable(view, options);
        if (!laid.ok()) {
            return fail(kRenderError, laid.error().toString());
        }
        opened = std::move(laid).value();
    }
    if (format == "svg") {
        auto laid = opened ? Result<layout::LayoutResult>(std::move(*opened))
                           : layout::layoutViewGraph(view, options);
        if (!laid.ok()) {
            return fail(kRenderError, laid.error().toString());
        }
        if (Status s = layout::writeSvgFile(o.out, *laid, view); !s.ok()) {
            return fail(kRenderError, s.error().toString());
        }
        bbox = laid->bbox;
        seconds = laid->seconds;
    } else if (Status s = layout::renderWithGraphviz(view, options, "png", o.out); !s.ok()) {
        return fail(kRenderError, s.error().toString());
    }
    printJson(summary(o, format, *g, view, view.visible(), bbox, seconds));
    return kOk;
}

#else

int render(const RenderOptions&)
{
    return fail(kRenderError, "this fxscope-cli was built without Graphviz; render is unavailable");
}

#endif

} // namespace cmd_render_detail

void addRenderCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_render_detail;
    auto opts = std::make_shared<RenderOptions>();
    CLI::App* cmd = app.add_subcommand(
        "render", "Draw a graph as SVG or PNG (grouped by modules; large graphs collapsed)");
    cmd->add_option("GRAPH", opts->path, "Graph-code file, TORCH_TRACE log or directory")
        ->required();
    cmd->add_option("--out,-o", opts->out, "Output file: .svg or .png")
        ->required()
        ->check(outputFile());
    cmd->add_flag("--expand-all", opts->expandAll, "Expand every group");
    cmd->add_option("--module", opts->module,
                    "Draw only this module (a path `fxscope-cli structure` lists)");
    cmd->add_option("--group-by", opts->groupBy, "modules (default; source scopes when the graph "
                                                 "names none) or source")
        ->check(CLI::IsMember({"modules", "source"}));
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
