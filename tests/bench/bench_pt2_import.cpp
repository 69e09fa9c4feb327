// Import of torch.export `.pt2` archives made in memory (tests/data/make_pt2_archive.h): a
// chain of n relu nodes with distinct names (up to the million of issue 31, which took 45 s
// and 3.2 GB to inspect) and n nodes that all want the same name (20,000 took 38 s: unique
// names were found by trying name_1, name_2, ... from 1 for each). Reports ms per import and
// nodes/s; peak memory is the process's (run one benchmark per process to read it).
// BM_Pt2File reads the archive from a file, as `inspect` does, with N nodes from
// FXSCOPE_BENCH_PT2_NODES (default 10,000), and reports the peak RSS and the program's size:
//   FXSCOPE_BENCH_PT2_NODES=1000000 bench_pt2_import --benchmark_filter=BM_Pt2File
#include "core/io/pt2_reader.h"
#include "tests/data/make_pt2_archive.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

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

// The process's peak RSS since resetPeakRss() (Linux: VmHWM, reset through clear_refs).
double peakRssMiB()
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::atof(line.c_str() + 6) / 1024.0; // kB
        }
    }
    return 0;
}

void resetPeakRss()
{
    std::ofstream("/proc/self/clear_refs") << "5";
}

void BM_Pt2File(benchmark::State& state)
{
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::string path = "/tmp/fxscope_bench_" + std::to_string(::getpid()) + ".pt2";
    std::size_t programBytes = 0;
    {
        std::string json = fxs::testdata::pt2ProgramJson(
            n, [](std::size_t i) { return "relu_" + std::to_string(i); });
        programBytes = json.size();
        const std::string archive = fxs::testdata::pt2Archive(json);
        std::ofstream(path, std::ios::binary).write(archive.data(),
                                                    static_cast<std::streamsize>(archive.size()));
    } // the generator's copies are freed: the peak below is the read's
    const double before = peakRssMiB();
    resetPeakRss();
    for (auto _ : state) {
        auto r = fxs::io::readPt2(path);
        if (!r.ok() || !r->graph || r->graph->size() < n) {
            state.SkipWithError("the archive did not import");
            break;
        }
        benchmark::DoNotOptimize(r->graph);
    }
    std::remove(path.c_str());
    state.counters["nodes/s"] = benchmark::Counter(
        static_cast<double>(n) * static_cast<double>(state.iterations()),
        benchmark::Counter::kIsRate);
    state.counters["program_MiB"] = static_cast<double>(programBytes) / (1 << 20);
    state.counters["peak_rss_MiB"] = peakRssMiB();
    state.counters["gen_peak_rss_MiB"] = before; // making the archive (not the read)
}

} // namespace

int main(int argc, char** argv)
{
    const char* env = std::getenv("FXSCOPE_BENCH_PT2_NODES");
    const long nodes = env != nullptr ? std::atol(env) : 10000;
    benchmark::RegisterBenchmark("BM_Pt2File", BM_Pt2File)
        ->Arg(nodes > 0 ? nodes : 10000)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
