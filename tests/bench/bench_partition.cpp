// Partitioner and proposal speed (parsing excluded): annotation regions of the annotated GPT-2,
// the automatic proposal on the GPT-12 training graphs, and the proposal at 10k, 100k and 1M
// nodes on long chains (one region; a region every 8 nodes around mm) and on copies of the
// GPT-12 forward graph (tests/data/make_large_graph.h). Near-linear is the goal: time per node
// should stay flat across the sizes.
#include "core/io/graph_code_parser.h"
#include "core/partition/auto_proposal.h"
#include "core/partition/partitioner.h"
#include "core/util/file_reader.h"
#include "tests/data/make_large_graph.h"

#include <benchmark/benchmark.h>

#include <string>
#include <utility>

namespace {

fxs::graph::GraphPtr load(const char* file)
{
    const std::string path = std::string(FXSCOPE_TEST_DATA) + "/fixtures/graphs/" + file;
    auto text = fxs::readFile(path);
    return text ? fxs::io::parseGraphCode(*text, path, 1, false).graph : nullptr;
}

void annotations(benchmark::State& state, const char* file)
{
    const auto g = load(file);
    for (auto _ : state) {
        benchmark::DoNotOptimize(fxs::partition::partitionByAnnotation(*g));
    }
    state.counters["nodes"] = static_cast<double>(g->size());
}

void propose(benchmark::State& state, const fxs::graph::GraphPtr& g)
{
    if (!g) {
        state.SkipWithError("no graph");
        return;
    }
    std::size_t regions = 0;
    for (auto _ : state) {
        auto p = fxs::partition::proposeRegions(*g);
        regions = p.regions.size();
        benchmark::DoNotOptimize(p);
    }
    state.counters["nodes"] = static_cast<double>(g->size());
    state.counters["regions"] = static_cast<double>(regions);
    state.counters["ns_per_node"] = benchmark::Counter(
        static_cast<double>(g->size()), benchmark::Counter::kIsIterationInvariantRate |
                                            benchmark::Counter::kInvert);
}

void proposal(benchmark::State& state, const char* file) { propose(state, load(file)); }

// The graph of the running benchmark, built once for all its repetitions (a 1M-node graph
// takes seconds to make) and dropped when the next benchmark asks for another.
const fxs::graph::GraphPtr& largeGraph(const std::string& kind, std::size_t nodes)
{
    static std::pair<std::string, std::size_t> key;
    static fxs::graph::GraphPtr g;
    if (!g || key != std::make_pair(kind, nodes)) {
        g.reset();
        key = {kind, nodes};
        if (kind == "chain") {
            g = fxs::testdata::makeChainGraph(nodes);
        } else if (kind == "chain_mm8") {
            g = fxs::testdata::makeChainGraph(nodes, 8);
        } else {
            g = fxs::testdata::makeLargeGraph({load("gpt12_train_fw.txt")}, nodes);
        }
    }
    return g;
}

void BM_Proposal_Chain(benchmark::State& state)
{
    propose(state, largeGraph("chain", std::size_t(state.range(0))));
}

void BM_Proposal_ChainMm8(benchmark::State& state)
{
    propose(state, largeGraph("chain_mm8", std::size_t(state.range(0))));
}

void BM_Proposal_Gpt12Copies(benchmark::State& state)
{
    propose(state, largeGraph("gpt12", std::size_t(state.range(0))));
}

} // namespace

BENCHMARK_CAPTURE(annotations, gpt2_annotated_bw, "gpt2_annotated_bw.txt")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(proposal, resnet18_infer, "resnet18_infer.txt")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(proposal, gpt12_train_fw, "gpt12_train_fw.txt")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(proposal, gpt12_train_bw, "gpt12_train_bw.txt")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Proposal_Chain)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Proposal_ChainMm8)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Proposal_Gpt12Copies)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
