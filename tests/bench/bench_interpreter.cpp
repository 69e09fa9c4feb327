// Interpreter overhead per node: a chain of 1,000 `aten::add.Tensor` on 1-element tensors run
// by the executor (plan built once) vs the same at::add calls made directly from C++. The
// difference divided by 1,000 is the interpreter's cost per node above the op itself; the same
// for a chain of views (BM_*Views; BM_InterpreterViewsDirect with RunOptions::directViews).
// BM_Fixture*: whole recorded forward graphs (LLaMA-24 with d=128, GPT-12) through the executor
// with per-node timing off, as `run --compiled` runs its eager parts; ns_per_node is the whole
// step (operator work included, wall time) over the graph's call nodes.
#include "core/exec/direct_views.h"
#include "core/exec/executor.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/graph/graph_builder.h"
#include "core/io/loader.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <benchmark/benchmark.h>

namespace {

using namespace fxs;
constexpr int kNodes = 1000;

graph::GraphPtr chainOfAdds()
{
    graph::GraphBuilder b;
    const auto x = b.placeholder("x");
    auto prev = x;
    for (int i = 0; i < kNodes; ++i) {
        prev = b.call("add_" + std::to_string(i), "aten::add.Tensor",
                      {graph::Argument::ref(prev), graph::Argument::ref(x)});
    }
    b.output({graph::Argument::ref(prev)});
    return b.build().value();
}

// ns_per_node: the time of one chain over its kNodes nodes.
void countPerNode(benchmark::State& state)
{
    state.counters["ns_per_node"] = benchmark::Counter(
        static_cast<double>(kNodes), benchmark::Counter::kIsIterationInvariantRate |
                                         benchmark::Counter::kInvert);
}

// The chain g through the executor, its placeholder ones of `sizes` (made in inference mode);
// directViews: as RunOptions::directViews.
void runInterpreter(benchmark::State& state, const graph::GraphPtr& g,
                    std::vector<std::int64_t> sizes, bool timing, bool directViews = false)
{
    c10::InferenceMode inference;
    auto plan = exec::detail::buildPlan(*g, c10::Device(c10::kCPU));
    if (directViews) {
        exec::detail::runViewsDirectly(plan);
    }
    std::vector<c10::IValue> inputs(g->size());
    inputs[0] = at::ones(sizes);
    exec::detail::ExecOptions options{timing, false, nullptr};
    exec::detail::ExecResult result;
    for (auto _ : state) {
        if (!exec::detail::executePlan(plan, *g, inputs, options, result).ok()) {
            state.SkipWithError("run failed");
            break;
        }
        benchmark::DoNotOptimize(result.outputs);
    }
    countPerNode(state);
}

void BM_InterpreterAdds(benchmark::State& state)
{
    runInterpreter(state, chainOfAdds(), {1}, false);
}
void BM_InterpreterAddsTimed(benchmark::State& state)
{
    runInterpreter(state, chainOfAdds(), {1}, true);
}

void BM_DirectAtenAdds(benchmark::State& state)
{
    c10::InferenceMode inference;
    const at::Tensor x = at::ones({1});
    for (auto _ : state) {
        at::Tensor prev = x;
        for (int i = 0; i < kNodes; ++i) {
            prev = at::add(prev, x);
        }
        benchmark::DoNotOptimize(prev);
    }
    countPerNode(state);
}

// Views: a chain of 1,000 `aten::view.default` alternating [32] and [4, 8] of a 4 x 8 tensor,
// through the executor and directly: a view does no work, so the executor's share of a view
// node's host cost shows (a LLaMA-24 training step has about 2,400 view nodes outside kernels).
graph::GraphPtr chainOfViews()
{
    graph::GraphBuilder b;
    const auto x = b.placeholder("x");
    auto prev = x;
    for (int i = 0; i < kNodes; ++i) {
        const auto shape = i % 2 == 0 ? graph::Argument::list({graph::Argument::integer(32)})
                                      : graph::Argument::list({graph::Argument::integer(4),
                                                               graph::Argument::integer(8)});
        prev = b.call("view_" + std::to_string(i), "aten::view.default",
                      {graph::Argument::ref(prev), shape});
    }
    b.output({graph::Argument::ref(prev)});
    return b.build().value();
}

void BM_InterpreterViews(benchmark::State& state)
{
    runInterpreter(state, chainOfViews(), {4, 8}, false);
}
void BM_InterpreterViewsDirect(benchmark::State& state)
{
    runInterpreter(state, chainOfViews(), {4, 8}, false, true);
}

void BM_DirectAtenViews(benchmark::State& state)
{
    c10::InferenceMode inference;
    const at::Tensor x = at::ones({4, 8});
    const std::vector<std::int64_t> flat{32};
    const std::vector<std::int64_t> square{4, 8};
    for (auto _ : state) {
        at::Tensor prev = x;
        for (int i = 0; i < kNodes; ++i) {
            prev = prev.view(i % 2 == 0 ? flat : square);
        }
        benchmark::DoNotOptimize(prev);
    }
    countPerNode(state);
}

// The graph at FXSCOPE_TEST_DATA/`rel`, its plan and inputs (those the interpreter synthesises).
struct FixtureRun {
    graph::GraphPtr graph;
    exec::detail::Plan plan;
    std::vector<c10::IValue> inputs;
};

bool loadFixture(const std::string& rel, FixtureRun& f, std::string& why)
{
    auto loaded = io::loadPaths({FXSCOPE_TEST_DATA "/" + rel});
    if (loaded.graphs.empty() || !loaded.graphs.front().graph) {
        why = "cannot load " + rel;
        return false;
    }
    f.graph = loaded.graphs.front().graph;
    exec::RunOptions o;
    o.device = exec::DevicePref::Cpu;
    for (graph::NodeId id : f.graph->placeholders()) {
        o.keep.push_back(f.graph->node(id).name);
    }
    auto r = exec::Interpreter::run(*f.graph, o);
    if (!r.ok() || !r->ok) {
        why = "the eager run failed";
        return false;
    }
    f.plan = exec::detail::buildPlan(*f.graph, c10::Device(c10::kCPU));
    f.inputs.assign(f.graph->size(), c10::IValue());
    for (graph::NodeId id : f.graph->placeholders()) {
        f.inputs[id] = exec::tensorOf(*r->kept.find(f.graph->node(id).name));
    }
    return true;
}

void runFixture(benchmark::State& state, const std::string& rel)
{
    c10::InferenceMode inference;
    FixtureRun f;
    std::string why;
    if (!loadFixture(rel, f, why)) {
        state.SkipWithError(why.c_str());
        return;
    }
    exec::detail::ExecOptions options{false, false, nullptr};
    for (auto _ : state) {
        exec::detail::ExecResult result;
        if (!exec::detail::executePlan(f.plan, *f.graph, f.inputs, options, result).ok()) {
            state.SkipWithError("run failed");
            break;
        }
        benchmark::DoNotOptimize(result.outputs);
    }
    state.counters["nodes"] = f.plan.callNodes;
    state.counters["ns_per_node"] = benchmark::Counter(
        static_cast<double>(f.plan.callNodes),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_FixtureLlama24Forward(benchmark::State& state)
{
    runFixture(state, "recorded/graphs/llama24_train_graph0.txt.gz");
}
void BM_FixtureGpt12Forward(benchmark::State& state)
{
    runFixture(state, "fixtures/graphs/gpt12_train_fw.txt");
}

BENCHMARK(BM_DirectAtenAdds)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InterpreterAdds)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InterpreterAddsTimed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DirectAtenViews)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InterpreterViews)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InterpreterViewsDirect)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FixtureLlama24Forward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FixtureGpt12Forward)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
