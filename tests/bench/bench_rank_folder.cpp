// A rank folder read as `fxscope-cli diagnose DIR` reads it: FXSCOPE_BENCH_RANKS logs (default
// 8) of FXSCOPE_BENCH_RANK_MB each (default 8), named dedicated_log_torch_trace_rank_N.log,
// built from the recorded 2-rank run (tests/data/recorded/traces/ranks): rank N is rank N % 2's
// log with its envelopes' "rank" set to N, repeated with frame ids renumbered so compile ids
// stay distinct. BM_RankFolderRead/T reads it with T reader threads (1: one core's throughput;
// 0: every core), graphs on demand; BM_RankFolderDiagnose reads and diagnoses it, every core.
// Counters: total_MB, peak_rss_MB (the process's high-water mark; run one benchmark alone with
// --benchmark_filter for a clean mark). The case: FXSCOPE_BENCH_RANKS=64
// FXSCOPE_BENCH_RANK_MB=20 (1.3 GB). `bench_rank_folder --write DIR` only writes the folder to
// DIR and keeps it (tools/bench/cli_large_inputs.sh times fxscope-cli on it).
#include "core/diagnose/diagnosis.h"
#include "core/io/torch_trace_reader.h"
#include "core/util/file_reader.h"
#include "tests/bench/envelope_rewrite.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;

int envInt(const char* name, int fallback)
{
    const char* v = std::getenv(name);
    return v && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

struct Folder {
    std::string path;
    std::uintmax_t bytes = 0;
};

// Builds the folder once per process (removed at exit); empty path on failure.
const Folder& rankFolder()
{
    static const Folder folder = []() -> Folder {
        std::vector<std::string> ranks;
        const std::string source = FXSCOPE_TEST_DATA "/recorded/traces/ranks";
        for (const auto& f : fxs::listFiles(source).valueOr({})) {
            if (auto data = fxs::readFile(f); data.ok()) {
                ranks.push_back(std::move(*data));
            }
        }
        if (ranks.empty()) {
            return {};
        }
        const int n = envInt("FXSCOPE_BENCH_RANKS", 8);
        const std::size_t target = std::size_t(envInt("FXSCOPE_BENCH_RANK_MB", 8)) << 20;
        // A folder asked for (--write) must not exist yet: nothing of the caller's is removed.
        const char* keep = std::getenv("FXSCOPE_BENCH_RANK_DIR");
        const fs::path dir =
            keep ? fs::path(keep) : fs::temp_directory_path() / "fxscope_bench_ranks";
        std::error_code ec;
        if (keep && fs::exists(dir, ec)) {
            std::fprintf(stderr, "%s exists already\n", keep);
            return {};
        }
        if (!keep) {
            fs::remove_all(dir);
        }
        fs::create_directories(dir);
        Folder out{dir.string(), 0};
        for (int r = 0; r < n; ++r) {
            const std::string& log = ranks[std::size_t(r) % ranks.size()];
            const std::string base =
                fxs::bench::rewriteEnvelopes(log, "\"rank\": ", [r](int) { return r; });
            const std::string name = "dedicated_log_torch_trace_rank_" + std::to_string(r) + ".log";
            std::ofstream file(dir / name, std::ios::binary);
            std::size_t written = 0;
            for (int copy = 0; written < target; ++copy) {
                const std::string text = fxs::bench::rewriteEnvelopes(
                    base, "\"frame_id\": ", [copy](int id) { return id + copy * 1000; });
                file.write(text.data(), std::streamsize(text.size()));
                written += text.size();
            }
            out.bytes += written;
        }
        if (!keep) {
            std::atexit([] { fs::remove_all(fs::temp_directory_path() / "fxscope_bench_ranks"); });
        }
        return out;
    }();
    return folder;
}

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void BM_RankFolderRead(benchmark::State& state)
{
    const Folder& folder = rankFolder();
    if (folder.path.empty()) {
        state.SkipWithError("tests/data/recorded/traces/ranks not found");
        return;
    }
    fxs::io::TraceReadOptions options;
    options.parseGraphs = false;
    options.readThreads = int(state.range(0));
    std::size_t files = 0;
    for (auto _ : state) {
        auto runs = fxs::io::readTorchTraceRuns(folder.path, options);
        files = runs.empty() ? 0 : runs.front().run.files.size();
        benchmark::DoNotOptimize(runs.data());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(folder.bytes));
    state.counters["total_MB"] = double(folder.bytes) / (1 << 20);
    state.counters["files"] = double(files);
    state.counters["peak_rss_MB"] = peakRssMb();
}

void BM_RankFolderDiagnose(benchmark::State& state)
{
    const Folder& folder = rankFolder();
    if (folder.path.empty()) {
        state.SkipWithError("tests/data/recorded/traces/ranks not found");
        return;
    }
    fxs::io::TraceReadOptions options;
    options.parseGraphs = false;
    std::size_t findings = 0;
    for (auto _ : state) {
        auto runs = fxs::io::readTorchTraceRuns(folder.path, options);
        std::vector<const fxs::model::Run*> pointers;
        for (const auto& r : runs) {
            pointers.push_back(&r.run);
        }
        auto d = fxs::diagnose::diagnose(pointers);
        findings = d ? d->findings.size() : 0;
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(folder.bytes));
    state.counters["total_MB"] = double(folder.bytes) / (1 << 20);
    state.counters["findings"] = double(findings);
    state.counters["peak_rss_MB"] = peakRssMb();
}

} // namespace

BENCHMARK(BM_RankFolderRead)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RankFolderDiagnose)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
int main(int argc, char** argv)
{
    if (argc == 3 && std::string_view(argv[1]) == "--write") {
        setenv("FXSCOPE_BENCH_RANK_DIR", argv[2], 1);
        const Folder& folder = rankFolder();
        std::printf("%s: %.0f MB\n", folder.path.c_str(), double(folder.bytes) / (1 << 20));
        return folder.path.empty() ? 1 : 0;
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
