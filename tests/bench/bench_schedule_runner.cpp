// Host cost of a compiled region's schedule runner per node: a chain of 1,000
// `aten::add.Tensor` on 1-element tensors as one region whose schedule runs it in extern steps
// of N nodes each (ScheduleRunner::run: the region's values, an execution plan per step), next
// to the same chain through the executor alone (bench_interpreter's BM_InterpreterAdds); and a
// chain of 1,000 `aten::t.default` the same way (a region's extern steps are mostly views of
// what its kernels made, which the runner makes as aliases directly).
#include "core/compile/schedule_runner.h"
#include "core/exec/executor.h"
#include "core/graph/graph_builder.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <benchmark/benchmark.h>

namespace {

using namespace fxs;
constexpr int kNodes = 1000;

// Never called: every step of these schedules is extern.
class NoCode : public compile::detail::GeneratedCode {
public:
    Result<std::vector<at::Tensor>> run(int, const codegen::RegionProgram&,
                                        const std::vector<at::Tensor>&) const override
    {
        return makeError(ErrorCode::Internal, "no generated code");
    }
};

struct Chain {
    graph::GraphPtr graph;
    graph::NodeId x = graph::kNoNode;
    std::vector<graph::NodeId> adds;
};

// x + x + ... (adds), or t(t(...t(x))) (transposes: `views`).
Chain chainOf(bool views)
{
    graph::GraphBuilder b;
    Chain c;
    c.x = b.placeholder("x");
    auto prev = c.x;
    for (int i = 0; i < kNodes; ++i) {
        prev = views ? b.call("t_" + std::to_string(i), "aten::t.default",
                              {graph::Argument::ref(prev)})
                     : b.call("add_" + std::to_string(i), "aten::add.Tensor",
                              {graph::Argument::ref(prev), graph::Argument::ref(c.x)});
        c.adds.push_back(prev);
    }
    b.output({graph::Argument::ref(prev)});
    c.graph = b.build().value();
    return c;
}

// The chain as extern steps of `per` nodes: each reads x (adds) and the previous step's last
// value.
compile::detail::RegionSchedule externSteps(const Chain& c, int per, bool views)
{
    compile::detail::RegionSchedule s;
    for (int i = 0; i < kNodes; i += per) {
        compile::detail::ScheduleStep step;
        step.nodes.assign(c.adds.begin() + i, c.adds.begin() + std::min(kNodes, i + per));
        if (!views || i == 0) {
            step.inputs = {c.x};
        }
        if (i > 0) {
            step.inputs.push_back(c.adds[std::size_t(i) - 1]);
        }
        step.outputs = {step.nodes.back()};
        s.steps.push_back(std::move(step));
    }
    s.externNodes = kNodes;
    return s;
}

void runChain(benchmark::State& state, bool views)
{
    c10::InferenceMode inference;
    const Chain c = chainOf(views);
    const auto schedule = externSteps(c, static_cast<int>(state.range(0)), views);
    auto runner = compile::detail::ScheduleRunner::create(*c.graph, schedule, {c.x},
                                                          {c.adds.back()});
    if (!runner) {
        state.SkipWithError(runner.error().message.c_str());
        return;
    }
    const NoCode code;
    const std::vector<at::Tensor> inputs{views ? at::ones({2, 3}) : at::ones({1})};
    for (auto _ : state) {
        auto out = (*runner)->run(code, inputs);
        if (!out) {
            state.SkipWithError(out.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(out);
    }
    state.counters["ns_per_node"] = benchmark::Counter(
        static_cast<double>(kNodes), benchmark::Counter::kIsIterationInvariantRate |
                                         benchmark::Counter::kInvert);
}

void BM_ScheduleRunnerAdds(benchmark::State& state)
{
    runChain(state, false);
}

void BM_ScheduleRunnerViews(benchmark::State& state)
{
    runChain(state, true);
}

} // namespace

// Steps of 1 node (the runner's per-step cost dominates), 10 and 100 nodes.
BENCHMARK(BM_ScheduleRunnerAdds)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScheduleRunnerViews)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
