// Time to an interactive graph view: import (parse graph code) + grouping + Graphviz layout +
// QGraphicsScene build, for the first (collapsed) view of gpt12_train_bw.txt and of a generated
// >= 5,000-node graph, and for expanding one group of each. Counters split the time by phase.
// At LLaMA scale (issue 13), on the recorded 64-layer training run (AOT forward ≈ 6.6k nodes,
// backward ≈ 11.6k): the first view by modules (structure recovery + groups + layout + scene),
// expanding one layer with the levels of earlier layouts cached (as the GUI keeps them),
// everything expanded from a cold cache (peak RSS reported), and the frame time of panning the
// whole expanded backward graph at a readable zoom in a 1600×1000 viewport; on the same
// scene, the runtime heat of every node and a kernel's nodes selected (issue 29); the find bar's
// matching of the backward graph per keystroke, plain, regex and attribute (issue 30).
// Runs offscreen (a QApplication is needed for fonts and the scene).
#include "core/graph/graph_printer.h"
#include "core/io/torch_trace_reader.h"
#include "core/layout/graph_layout.h"
#include "core/layout/layout_cache.h"
#include "core/structure/structure.h"
#include "tests/data/make_large_graph.h"
#include "views/graph/find_bar.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_finder.h"
#include "views/graph/graph_scene.h"
#include "views/models/kernel_models.h"
#include "views/models/node_selection_model.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QScrollBar>

#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

using Clock = std::chrono::steady_clock;
using fxs::graph::GraphPtr;
using fxs::layout::ViewGraph;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string fixture(const char* relative)
{
    return std::string(FXSCOPE_TEST_DATA) + "/fixtures/graphs/" + relative;
}

fxs::views::GraphStyle benchStyle()
{
    fxs::views::GraphStyle s;
    s.titleFont = QApplication::font();
    s.titleFont.setBold(true);
    s.subtitleFont = QApplication::font();
    return s;
}

// The large graph as printed graph code in a temporary file, written once.
const std::string& largeGraphFile()
{
    static const std::string path = [] {
        const GraphPtr big = fxs::testdata::makeLargeGraph(
            {fxs::testdata::loadGraphFile(fixture("gpt12_train_fw.txt")),
             fxs::testdata::loadGraphFile(fixture("gpt12_train_bw.txt"))},
            5000);
        const auto file = std::filesystem::temp_directory_path() / "fxscope_bench_large_graph.txt";
        std::ofstream(file) << fxs::graph::printGraphCode(*big);
        return file.string();
    }();
    return path;
}

struct Phases {
    double import = 0;
    double group = 0;
    double layout = 0;
    double scene = 0;
    std::size_t nodes = 0;
    std::size_t items = 0;
};

// Lays out `view` and builds a scene from it; adds the times to p.
void layoutAndScene(const ViewGraph& view, Phases& p,
                    const fxs::layout::LayoutOptions& options = {})
{
    auto t = Clock::now();
    auto laid = fxs::layout::layoutViewGraph(view, options);
    if (!laid.ok()) {
        std::abort();
    }
    p.layout += msSince(t);
    t = Clock::now();
    fxs::views::GraphScene scene;
    scene.setStyle(benchStyle());
    scene.setLayout(*laid, std::make_shared<const ViewGraph>(view));
    benchmark::DoNotOptimize(scene.items().size());
    p.scene += msSince(t);
    p.items = laid->visible.items.size();
}

void report(benchmark::State& state, const Phases& p)
{
    using benchmark::Counter;
    const auto avg = Counter::kAvgIterations;
    state.counters["import_ms"] = Counter(p.import, avg);
    state.counters["group_ms"] = Counter(p.group, avg);
    state.counters["layout_ms"] = Counter(p.layout, avg);
    state.counters["scene_ms"] = Counter(p.scene, avg);
    state.counters["nodes"] = static_cast<double>(p.nodes);
    state.counters["visible_items"] = static_cast<double>(p.items);
}

void firstView(benchmark::State& state, const std::string& path)
{
    Phases p;
    for (auto _ : state) {
        auto t = Clock::now();
        const GraphPtr g = fxs::testdata::loadGraphFile(path);
        p.import += msSince(t);
        t = Clock::now();
        const ViewGraph view(g);
        p.group += msSince(t);
        layoutAndScene(view, p);
        p.nodes = g->size();
    }
    report(state, p);
}

// Expands the largest collapsed top-level-visible group (the worst single click).
void expandGroup(benchmark::State& state, const std::string& path)
{
    const GraphPtr g = fxs::testdata::loadGraphFile(path);
    ViewGraph base(g);
    fxs::layout::GroupId biggest = fxs::layout::kRootGroup;
    for (const auto& item : base.visible().items) {
        if (item.isGroup && (biggest == fxs::layout::kRootGroup ||
                             base.group(item.index).children.size() >
                                 base.group(biggest).children.size())) {
            biggest = item.index;
        }
    }
    Phases p;
    for (auto _ : state) {
        auto t = Clock::now();
        ViewGraph view = base;
        view.setExpanded(biggest, true);
        p.group += msSince(t);
        layoutAndScene(view, p);
    }
    p.nodes = g->size();
    report(state, p);
    state.counters["expanded_children"] = static_cast<double>(base.group(biggest).children.size());
}

void BM_FirstView_Gpt12Bw(benchmark::State& state)
{
    firstView(state, fixture("gpt12_train_bw.txt"));
}

void BM_FirstView_Large5k(benchmark::State& state)
{
    firstView(state, largeGraphFile());
}

void BM_ExpandGroup_Gpt12Bw(benchmark::State& state)
{
    expandGroup(state, fixture("gpt12_train_bw.txt"));
}

void BM_ExpandGroup_Large5k(benchmark::State& state)
{
    expandGroup(state, largeGraphFile());
}

void BM_ExpandAll_Gpt2AnnotatedFw(benchmark::State& state)
{
    const GraphPtr g = fxs::testdata::loadGraphFile(fixture("gpt2_annotated_fw.txt"));
    Phases p;
    for (auto _ : state) {
        ViewGraph view(g);
        view.expandAll();
        layoutAndScene(view, p);
    }
    p.nodes = g->size();
    report(state, p);
}

// ---- LLaMA-64 (recorded): graphs by module ----

const fxs::model::Run& llama64()
{
    static const fxs::io::TraceReadResult trace =
        fxs::io::readTorchTracePath(std::string(FXSCOPE_TEST_DATA) +
                                    "/recorded/traces/llama64.log.gz");
    return trace.run;
}

std::size_t llamaGraph(const char* kind)
{
    const auto& graphs = llama64().graphs;
    for (std::size_t k = 0; k < graphs.size(); ++k) {
        if (graphs[k].kind == kind && graphs[k].graph) {
            return k;
        }
    }
    std::abort();
}

// The module view of a graph of the run, as the app builds it (tree recovered with the compile).
ViewGraph moduleView(std::size_t index)
{
    auto tree = fxs::structure::recoverRunGraphStructure(llama64(), index);
    if (!tree) {
        std::abort();
    }
    return ViewGraph(llama64().graphs[index].graph,
                     std::make_shared<const fxs::structure::ModuleTree>(std::move(*tree)));
}

fxs::layout::LayoutOptions cachedOptions(std::shared_ptr<fxs::layout::LayoutCache> cache)
{
    fxs::layout::LayoutOptions o;
    o.cache = std::move(cache);
    return o;
}

double peakRssMb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// range(0): 0 forward, 1 backward. Structure recovery counts as grouping; a fresh layout cache.
void BM_Llama64_FirstView(benchmark::State& state)
{
    const std::size_t index = llamaGraph(state.range(0) == 0 ? "aot_forward_graph"
                                                             : "aot_backward_graph");
    Phases p;
    for (auto _ : state) {
        auto t = Clock::now();
        const ViewGraph view = moduleView(index);
        p.group += msSince(t);
        layoutAndScene(view, p, cachedOptions(std::make_shared<fxs::layout::LayoutCache>()));
        p.nodes = view.graph().size();
    }
    report(state, p);
}

// The top-level "layers.0–63" box, expanded.
ViewGraph withLayersOpen(std::size_t index, fxs::layout::GroupId& layer)
{
    ViewGraph view = moduleView(index);
    for (const auto& c : view.group(fxs::layout::kRootGroup).children) {
        if (c.isGroup && view.group(c.index).kind == fxs::layout::GroupKind::Repeated) {
            view.setExpanded(c.index, true);
            layer = view.group(c.index).children.at(17).index;
            return view;
        }
    }
    std::abort();
}

// One click: layer 17 expanded in a view showing the 64 layer boxes; the levels laid out for
// that view are cached (the GUI keeps them per view).
void BM_Llama64_ExpandOneLayer(benchmark::State& state)
{
    const std::size_t index = llamaGraph(state.range(0) == 0 ? "aot_forward_graph"
                                                             : "aot_backward_graph");
    fxs::layout::GroupId layer = 0;
    const ViewGraph base = withLayersOpen(index, layer);
    Phases p;
    int laidOut = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto cache = std::make_shared<fxs::layout::LayoutCache>();
        (void)fxs::layout::layoutViewGraph(base, cachedOptions(cache));
        state.ResumeTiming();
        auto t = Clock::now();
        ViewGraph view = base;
        view.setExpanded(layer, true);
        p.group += msSince(t);
        t = Clock::now();
        auto laid = fxs::layout::layoutViewGraph(view, cachedOptions(cache));
        p.layout += msSince(t);
        if (!laid) {
            std::abort();
        }
        laidOut = laid->levelsLaidOut;
        t = Clock::now();
        fxs::views::GraphScene scene;
        scene.setStyle(benchStyle());
        scene.setLayout(*laid, std::make_shared<const ViewGraph>(view));
        p.scene += msSince(t);
        p.items = laid->visible.items.size();
    }
    p.nodes = base.graph().size();
    report(state, p);
    state.counters["levels_laid_out"] = laidOut;
}

// Everything expanded, cold cache; peak RSS of the process after it.
void BM_Llama64_ExpandAll(benchmark::State& state)
{
    const std::size_t index = llamaGraph(state.range(0) == 0 ? "aot_forward_graph"
                                                             : "aot_backward_graph");
    Phases p;
    for (auto _ : state) {
        auto t = Clock::now();
        ViewGraph view = moduleView(index);
        view.expandAll();
        p.group += msSince(t);
        layoutAndScene(view, p, cachedOptions(std::make_shared<fxs::layout::LayoutCache>()));
        p.nodes = view.graph().size();
    }
    report(state, p);
    state.counters["peak_rss_mb"] = peakRssMb();
}

// Panning the expanded backward graph at zoom 1 in a 1600×1000 viewport: each iteration moves
// the view 40 px right (wrapping at the edge) and paints it synchronously; the time per
// iteration is one frame.
// The expanded backward graph (≈ 11.6k nodes), laid out once for the benchmarks that draw on
// it; each builds its own scene and 1600×1000 canvas from it.
struct ExpandedBackward {
    ViewGraph view;
    fxs::layout::LayoutResult laid;
};

const ExpandedBackward& expandedBackward()
{
    static const ExpandedBackward e = [] {
        ViewGraph view = moduleView(llamaGraph("aot_backward_graph"));
        view.expandAll();
        auto laid = fxs::layout::layoutViewGraph(view);
        if (!laid) {
            std::abort();
        }
        return ExpandedBackward{view, std::move(*laid)};
    }();
    return e;
}

struct DrawnScene {
    fxs::views::GraphScene scene;
    fxs::views::GraphCanvas canvas;
    explicit DrawnScene(const ExpandedBackward& e)
    {
        scene.setStyle(benchStyle());
        scene.setLayout(e.laid, std::make_shared<const ViewGraph>(e.view));
        canvas.setScene(&scene);
        canvas.resize(1600, 1000);
        canvas.show();
        QApplication::processEvents();
        canvas.centerOn(scene.sceneRect().center());
    }
};

void BM_Llama64_PanFrame(benchmark::State& state)
{
    const ExpandedBackward& e = expandedBackward();
    const ViewGraph& view = e.view;
    DrawnScene drawn(e);
    fxs::views::GraphScene& scene = drawn.scene;
    fxs::views::GraphCanvas& canvas = drawn.canvas;
    QScrollBar* h = canvas.horizontalScrollBar();
    for (auto _ : state) {
        h->setValue(h->value() + 40 > h->maximum() ? h->minimum() : h->value() + 40);
        canvas.viewport()->repaint();
    }
    state.counters["nodes"] = static_cast<double>(view.graph().size());
    state.counters["scene_items"] = static_cast<double>(scene.items().size());
}

// Issue 29, "highlight ≤ 50 ms at 11.6k nodes", on the expanded backward graph: range 0 — the
// runtime heat of every node (KernelsModel::heatColors from per-node times, as the
// RuntimeController writes its layer, then the scene's overlays); range 1 — a kernel's nodes
// selected as the controller does it (its nodes found among the graph's node times,
// NodeSelectionModel::select, the scene's marks, as GraphView draws a selection). Each followed
// by a repaint of the 1600×1000 viewport (work_ms: the highlight without the repaint). The
// kernel moves along the graph each iteration.
void BM_Llama64_KernelHighlight(benchmark::State& state)
{
    const ExpandedBackward& e = expandedBackward();
    const fxs::graph::GraphPtr g = llama64().graphs[llamaGraph("aot_backward_graph")].graph;
    DrawnScene drawn(e);
    fxs::runtime::GraphTimes times; // 4 nodes a kernel, times of 1 to 97 µs
    for (std::size_t i = 0; i < g->size(); ++i) {
        auto& t = times.nodes[g->node(static_cast<fxs::graph::NodeId>(i)).name];
        t.us = 1.0 + static_cast<double>(i % 97);
        t.kernels = {i / 4};
    }
    fxs::views::NodeSelectionModel selection;
    selection.setGraph(g);
    QObject::connect(&selection, &fxs::views::NodeSelectionModel::selectionChanged,
                     [&](const std::vector<fxs::graph::NodeId>& nodes) {
                         drawn.scene.markSelection({nodes.begin(), nodes.end()},
                                                   selection.currentNode());
                     });
    std::size_t kernel = 0, selected = 0;
    const std::size_t kernels = g->size() / 4;
    double workMs = 0; // the highlight itself, without the repaint
    for (auto _ : state) {
        const auto t = Clock::now();
        if (state.range(0) == 0) {
            drawn.scene.setOverlays(fxs::views::KernelsModel::heatColors(times, *g));
        } else {
            std::vector<fxs::graph::NodeId> ids;
            for (const auto& [name, t] : times.nodes) {
                if (std::binary_search(t.kernels.begin(), t.kernels.end(), kernel)) {
                    ids.push_back(*g->find(name));
                }
            }
            selection.select(ids);
            selected = ids.size();
            kernel = (kernel + 997) % kernels;
        }
        workMs += msSince(t);
        drawn.canvas.viewport()->repaint();
    }
    state.counters["work_ms"] = workMs / static_cast<double>(state.iterations());
    state.counters["nodes"] = static_cast<double>(g->size());
    state.counters["selected"] = static_cast<double>(selected);
}

// One keystroke's matching over the backward graph (≈ 11.6k nodes) with its module tree:
// range(0) 0 plain text on names/ops ("mm"), 1 a regex on module paths, 2 plain text only the
// output meta holds ("i64["), 3 text nothing holds (every field of every node tried).
void BM_Llama64_Find(benchmark::State& state)
{
    const std::size_t index = llamaGraph("aot_backward_graph");
    const ViewGraph view = moduleView(index);
    fxs::views::FindBar bar;
    fxs::views::GraphFinder finder(&bar);
    finder.setGraph(view.graphPtr(), view.modules());
    const int query = static_cast<int>(state.range(0));
    finder.setRegex(query == 1);
    const char* texts[] = {"mm", "layers\\.1[0-9]\\.mlp", "i64[", "zz_no_match"};
    for (auto _ : state) {
        finder.setText(QString::fromLatin1(texts[query])); // the same text matches again
    }
    state.counters["nodes"] = static_cast<double>(view.graph().size());
    state.counters["matches"] = finder.matchCount();
}

BENCHMARK(BM_Llama64_FirstView)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Llama64_ExpandOneLayer)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Llama64_ExpandAll)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()
    ->Iterations(2);
BENCHMARK(BM_Llama64_KernelHighlight)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)
    ->UseRealTime()->Iterations(20);
BENCHMARK(BM_Llama64_Find)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Llama64_PanFrame)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);

BENCHMARK(BM_FirstView_Gpt12Bw)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FirstView_Large5k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExpandGroup_Gpt12Bw)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExpandGroup_Large5k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExpandAll_Gpt2AnnotatedFw)->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
