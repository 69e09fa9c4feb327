// Interpreter overhead per node: a chain of 1,000 `aten::add.Tensor` on 1-element tensors run
// by the executor (plan built once) vs the same at::add calls made directly from C++. The
// difference divided by 1,000 is the interpreter's cost per node above the op itself.
#include "core/exec/executor.h"
#include "core/graph/graph_builder.h"

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

void runInterpreter(benchmark::State& state, bool timing)
{
    c10::InferenceMode inference;
    auto g = chainOfAdds();
    auto plan = exec::detail::buildPlan(*g, c10::Device(c10::kCPU));
    std::vector<c10::IValue> inputs(g->size());
    inputs[0] = at::ones({1});
    exec::detail::ExecOptions options{timing, false, nullptr};
    exec::detail::ExecResult result;
    for (auto _ : state) {
        if (!exec::detail::executePlan(plan, *g, inputs, options, result).ok()) {
            state.SkipWithError("run failed");
            break;
        }
        benchmark::DoNotOptimize(result.outputs);
    }
    state.counters["ns_per_node"] = benchmark::Counter(
        static_cast<double>(kNodes), benchmark::Counter::kIsIterationInvariantRate |
                                         benchmark::Counter::kInvert);
}

void BM_InterpreterAdds(benchmark::State& state) { runInterpreter(state, false); }
void BM_InterpreterAddsTimed(benchmark::State& state) { runInterpreter(state, true); }

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
    state.counters["ns_per_node"] = benchmark::Counter(
        static_cast<double>(kNodes), benchmark::Counter::kIsIterationInvariantRate |
                                         benchmark::Counter::kInvert);
}

BENCHMARK(BM_DirectAtenAdds)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InterpreterAdds)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InterpreterAddsTimed)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
