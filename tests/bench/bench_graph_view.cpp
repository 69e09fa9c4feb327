// Time to an interactive graph view: import (parse graph code) + grouping + Graphviz layout +
// QGraphicsScene build, for the first (collapsed) view of gpt12_train_bw.txt and of a generated
// >= 5,000-node graph, and for expanding one group of each. Counters split the time by phase.
// Runs offscreen (a QApplication is needed for fonts and the scene).
#include "core/graph/graph_printer.h"
#include "core/layout/graph_layout.h"
#include "tests/data/make_large_graph.h"
#include "views/graph/graph_scene.h"

#include <QApplication>
#include <QFontMetricsF>

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
void layoutAndScene(const ViewGraph& view, Phases& p)
{
    auto t = Clock::now();
    auto laid = fxs::layout::layoutViewGraph(view);
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
