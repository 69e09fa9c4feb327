// Import speed of printed graph code: the 12-layer GPT backward graph (graphs/gpt12_train_bw.txt,
// ~150 KB, ~1,350 nodes). Reports MB/s (bytes_per_second), nodes/s and ms per import.
#include "core/graph/graph_printer.h"
#include "core/io/graph_code_parser.h"
#include "core/util/file_reader.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

const std::string& fixtureText()
{
    static const std::string text =
        fxs::readFile(FXSCOPE_TEST_DATA "/fixtures/graphs/gpt12_train_bw.txt").valueOr({});
    return text;
}

void BM_ParseGraphCode(benchmark::State& state)
{
    const std::string& text = fixtureText();
    if (text.empty()) {
        state.SkipWithError("fixture gpt12_train_bw.txt not found");
        return;
    }
    std::int64_t nodes = 0;
    for (auto _ : state) {
        auto r = fxs::io::parseGraphCode(text, "gpt12_train_bw.txt", 1, state.range(0) != 0);
        nodes += r.statements;
        benchmark::DoNotOptimize(r.graph);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
    state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParseGraphCode)->Arg(0)->Arg(1)->ArgName("keepText")->Unit(benchmark::kMillisecond);

void BM_PrintGraphCode(benchmark::State& state)
{
    const auto r = fxs::io::parseGraphCode(fixtureText(), "gpt12_train_bw.txt");
    if (!r.graph) {
        state.SkipWithError("fixture did not parse");
        return;
    }
    std::size_t bytes = 0;
    for (auto _ : state) {
        const std::string s = fxs::graph::printGraphCode(*r.graph);
        bytes += s.size();
        benchmark::DoNotOptimize(s.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_PrintGraphCode)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
