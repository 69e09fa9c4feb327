// Import of torch.export `.pt2` archives made in memory (tests/data/make_pt2_archive.h): a
// chain of n relu nodes with distinct names (up to the million of issue 31, which took 45 s
// and 3.2 GB to inspect) and n nodes that all want the same name (20,000 took 38 s: unique
// names were found by trying name_1, name_2, ... from 1 for each). Reports ms per import and
// nodes/s; peak memory is the process's (run one benchmark per process to read it).
#include "core/io/pt2_reader.h"
#include "tests/data/make_pt2_archive.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

void importArchive(benchmark::State& state, const std::string& archive, std::size_t nodes)
{
    for (auto _ : state) {
        auto r = fxs::io::readPt2Bytes(archive, "bench.pt2");
        if (!r.ok() || !r->graph || r->graph->size() < nodes) {
            state.SkipWithError("the archive did not import");
            return;
        }
        benchmark::DoNotOptimize(r->graph);
    }
    state.counters["nodes/s"] = benchmark::Counter(
        static_cast<double>(nodes) * static_cast<double>(state.iterations()),
        benchmark::Counter::kIsRate);
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(archive.size()));
}

void BM_Pt2DistinctNames(benchmark::State& state)
{
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::string archive = fxs::testdata::pt2Archive(fxs::testdata::pt2ProgramJson(
        n, [](std::size_t i) { return "relu_" + std::to_string(i); }));
    importArchive(state, archive, n);
}
BENCHMARK(BM_Pt2DistinctNames)->Arg(10000)->Arg(100000)->Arg(1000000)
    ->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Pt2SameNames(benchmark::State& state)
{
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::string archive = fxs::testdata::pt2Archive(
        fxs::testdata::pt2ProgramJson(n, [](std::size_t) { return std::string("relu"); }));
    importArchive(state, archive, n);
}
BENCHMARK(BM_Pt2SameNames)->Arg(2000)->Arg(20000)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace

BENCHMARK_MAIN();
