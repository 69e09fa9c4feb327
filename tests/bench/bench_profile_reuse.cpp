// Re-profiling an unchanged graph (#30 point 6): profileGraph on the recorded 24-layer LLaMA AOT
// forward (tests/data/recorded/graphs, bare: its decoder layers found by repetition) with 5 timed
// runs, as Build › Profile Graph does, cold (an empty ProfileMemo) and again with the memo the
// first profile filled (every unit reused: no engine run). Counters: engine runs, units reused.
#include "core/io/graph_code_parser.h"
#include "core/profile/profile_reuse.h"
#include "core/profile/runtime_profile.h"
#include "core/structure/structure.h"
#include "core/util/file_reader.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

namespace {

using namespace fxs;

struct Llama {
    graph::GraphPtr graph;
    structure::ModuleTree tree;
};

const Llama& llama()
{
    static const Llama l = [] {
        Llama out;
        const std::string path =
            std::string(FXSCOPE_TEST_DATA) + "/recorded/graphs/llama24_train_graph0.txt.gz";
        auto text = readFile(path);
        if (text.ok()) {
            out.graph = io::parseGraphCode(*text, path).graph;
        }
        if (out.graph) {
            if (auto tree = structure::recoverStructure(*out.graph); tree.ok()) {
                out.tree = std::move(*tree);
            }
        }
        return out;
    }();
    return l;
}

profile::ProfileOptions options(profile::ProfileMemo* memo)
{
    profile::ProfileOptions o;
    o.repeat = 5;
    o.peaks = profile::MachinePeaks{10.0, 100.0}; // not measured: the runs are what is timed
    o.modules = &llama().tree;
    o.memo = memo;
    return o;
}

void report(benchmark::State& state, const profile::ProfileMemo& memo)
{
    const auto stats = memo.lastStats();
    state.counters["engine_runs"] = stats.engineRuns;
    state.counters["units_reused"] = static_cast<double>(stats.unitsReused);
    state.counters["units"] = static_cast<double>(stats.units);
}

void BM_ProfileLlama24Cold(benchmark::State& state)
{
    if (!llama().graph) {
        state.SkipWithError("llama24_train_graph0.txt.gz not read");
        return;
    }
    profile::ProfileMemo memo;
    for (auto _ : state) {
        memo.clear();
        if (!profile::profileGraph(*llama().graph, {}, options(&memo)).ok()) {
            state.SkipWithError("profile failed");
            break;
        }
    }
    report(state, memo);
}

void BM_ProfileLlama24Again(benchmark::State& state)
{
    if (!llama().graph) {
        state.SkipWithError("llama24_train_graph0.txt.gz not read");
        return;
    }
    profile::ProfileMemo memo;
    if (!profile::profileGraph(*llama().graph, {}, options(&memo)).ok()) {
        state.SkipWithError("first profile failed");
        return;
    }
    for (auto _ : state) {
        auto p = profile::profileGraph(*llama().graph, {}, options(&memo));
        benchmark::DoNotOptimize(p);
    }
    report(state, memo);
}

} // namespace

BENCHMARK(BM_ProfileLlama24Cold)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_ProfileLlama24Again)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_MAIN();
