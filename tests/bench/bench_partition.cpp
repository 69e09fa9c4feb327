// Partitioner and proposal speed on the fixture graphs (parsing excluded): annotation regions
// of the annotated GPT-2, the automatic proposal on GPT-12 training forward/backward.
#include "core/io/graph_code_parser.h"
#include "core/partition/auto_proposal.h"
#include "core/partition/partitioner.h"
#include "core/util/file_reader.h"

#include <benchmark/benchmark.h>

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

void proposal(benchmark::State& state, const char* file)
{
    const auto g = load(file);
    for (auto _ : state) {
        benchmark::DoNotOptimize(fxs::partition::proposeRegions(*g));
    }
    state.counters["nodes"] = static_cast<double>(g->size());
}

} // namespace

BENCHMARK_CAPTURE(annotations, gpt2_annotated_bw, "gpt2_annotated_bw.txt")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(proposal, resnet18_infer, "resnet18_infer.txt")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(proposal, gpt12_train_fw, "gpt12_train_fw.txt")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(proposal, gpt12_train_bw, "gpt12_train_bw.txt")->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
