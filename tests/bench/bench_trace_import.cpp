// TORCH_TRACE import throughput. On the largest first-round fixture (gpt_cold, 2.6 MB, held in
// memory): (a) envelopes + payload extraction + MD5 checks, no payload decoding; (b) JSON
// payloads decoded, graphs kept for parsing on demand; (c) the full import with graph IR built
// for every graph payload. Reference: MD5 alone.
// At scale: a ≥ 300 MB log built from the round-2 recordings (LLaMA-64, recompiles, graph
// breaks, cache runs, nested regions, ResNet-18, 2 ranks; each copy's frame ids renumbered so
// compile ids stay distinct), written to a temporary file and read from disk as a user's run
// is (graphs on demand: what diagnose and the app's first view need). Counters: file_MB,
// peak_rss_MB (the process's high-water mark) and rss_before_MB (the mark before the first
// import: what building the log took). Run it alone (--benchmark_filter) for a clean mark.
// BM_AppOpen300MB: the same log opened as the app opens it (io::loadPaths, graphs deferred).
// The 64-layer LLaMA log (13.9 MB inflated, read from its .gz as a user's run is) once with
// graphs on demand, once with every graph parsed at import (the 0.6 s / 259 MB reference).
#include "core/diagnose/diagnosis.h"
#include "core/io/loader.h"
#include "core/io/torch_trace_reader.h"
#include "core/model/lookup_graphs.h"
#include "core/util/digest.h"
#include "core/util/file_reader.h"
#include "tests/bench/envelope_rewrite.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

const std::string& gptLog()
{
    static const std::string data = [] {
        const std::filesystem::path dir(FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold");
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() == ".log") {
                return fxs::readFile(entry.path().string()).valueOr(std::string());
            }
        }
        return std::string();
    }();
    return data;
}

void importWith(benchmark::State& state, const fxs::io::TraceReadOptions& options)
{
    const std::string& data = gptLog();
    if (data.empty()) {
        state.SkipWithError("gpt_cold fixture not found");
        return;
    }
    for (auto _ : state) {
        auto result = fxs::io::readTorchTrace(data, "gpt_cold.log", options);
        benchmark::DoNotOptimize(result.run.payloadsVerified);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(data.size()));
}

void BM_EnvelopesPayloadsMd5(benchmark::State& state)
{
    fxs::io::TraceReadOptions options;
    options.parseGraphs = false;
    options.decodePayloads = false;
    importWith(state, options);
}

void BM_DecodeJsonGraphsOnDemand(benchmark::State& state)
{
    fxs::io::TraceReadOptions options;
    options.parseGraphs = false;
    importWith(state, options);
}

void BM_FullImport(benchmark::State& state) { importWith(state, {}); }

void BM_Md5WholeFile(benchmark::State& state)
{
    const std::string& data = gptLog();
    for (auto _ : state) {
        benchmark::DoNotOptimize(fxs::md5(data));
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(data.size()));
}

// "frame_id": N → N + offset, in envelope lines only (payload MD5s stay valid).
std::string renumbered(std::string_view log, int offset)
{
    return fxs::bench::rewriteEnvelopes(log, "\"frame_id\": ",
                                        [offset](int id) { return id + offset; });
}

std::vector<std::string> recordedLogs()
{
    const std::string dir = FXSCOPE_TEST_DATA "/recorded/traces/";
    std::vector<std::string> logs;
    for (const char* name : {"llama64.log.gz", "recompile.log.gz", "graph_break.log.gz",
                             "load_cold.log.gz", "load_fail_fx.log.gz", "nested_inductor.log.gz",
                             "resnet18.log.gz", "hops.log.gz"}) {
        auto data = fxs::readFile(dir + name);
        if (data.ok()) {
            logs.push_back(std::move(*data));
        }
    }
    for (const auto& f : fxs::listFiles(dir + "ranks").valueOr({})) {
        auto data = fxs::readFile(f);
        if (data.ok()) {
            logs.push_back(std::move(*data));
        }
    }
    return logs;
}

// Writes the ≥ 300 MB log once per process; returns its path (empty on failure).
const std::string& largeLog()
{
    static const std::string path = []() -> std::string {
        constexpr std::size_t kTarget = std::size_t(300) << 20;
        const auto logs = recordedLogs();
        if (logs.empty()) {
            return {};
        }
        const auto file = std::filesystem::temp_directory_path() / "fxscope_bench_300mb.log";
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        std::size_t written = 0;
        for (int copy = 0; written < kTarget; ++copy) {
            const std::string& log = logs[static_cast<std::size_t>(copy) % logs.size()];
            const std::string text = renumbered(log, copy * 1000);
            out.write(text.data(), static_cast<std::streamsize>(text.size()));
            written += text.size();
        }
        if (!out) {
            return std::string();
        }
        std::atexit([] { std::filesystem::remove(std::filesystem::temp_directory_path() /
                                                 "fxscope_bench_300mb.log"); });
        return file.string();
    }();
    return path;
}

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

// Times import(path) -> graph count on the 300 MB log; counters for size, RSS and graphs.
template <typename Import>
void import300MB(benchmark::State& state, Import import)
{
    const std::string& path = largeLog();
    if (path.empty()) {
        state.SkipWithError("could not build the large log from tests/data/recorded");
        return;
    }
    const auto bytes = std::filesystem::file_size(path);
    state.counters["rss_before_MB"] = peakRssMb();
    std::size_t graphs = 0;
    for (auto _ : state) {
        graphs = import(path);
        benchmark::DoNotOptimize(graphs);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(bytes));
    state.counters["file_MB"] = static_cast<double>(bytes) / (1 << 20);
    state.counters["peak_rss_MB"] = peakRssMb();
    state.counters["graphs"] = static_cast<double>(graphs);
}

void BM_Import300MB(benchmark::State& state)
{
    fxs::io::TraceReadOptions options;
    options.parseGraphs = false; // graphs parsed when shown
    import300MB(state, [&](const std::string& path) {
        return fxs::io::readTorchTracePath(path, options).run.graphs.size();
    });
}

// What the app's File › Open does with the 300 MB log: io::loadPaths with graphs deferred
// (parsed when first shown), then the workspace's lookup → graph links.
void BM_AppOpen300MB(benchmark::State& state)
{
    fxs::io::LoadOptions options;
    options.deferGraphParsing = true;
    import300MB(state, [&](const std::string& path) {
        auto result = fxs::io::loadPaths({path}, options);
        const auto links = fxs::model::graphsKeyedByLookups(result.runs.at(0));
        benchmark::DoNotOptimize(links.data());
        return result.runs.at(0).graphs.size();
    });
}

// diagnose() on the 300 MB run (imported once, graphs on demand): what the app's Diagnosis
// dock and `fxscope-cli diagnose` do after the import.
void BM_Diagnose300MB(benchmark::State& state)
{
    const std::string& path = largeLog();
    if (path.empty()) {
        state.SkipWithError("could not build the large log from tests/data/recorded");
        return;
    }
    fxs::io::TraceReadOptions options;
    options.parseGraphs = false;
    const auto read = fxs::io::readTorchTracePath(path, options);
    std::size_t findings = 0;
    for (auto _ : state) {
        auto d = fxs::diagnose::diagnose({&read.run});
        findings = d ? d->findings.size() : 0;
    }
    state.counters["lookups"] = static_cast<double>(read.run.lookups.size());
    state.counters["findings"] = static_cast<double>(findings);
    state.counters["peak_rss_MB"] = peakRssMb();
}

// llama64.log.gz from disk; range(0): 1 parses every graph at import, 0 keeps them on demand.
void BM_Llama64(benchmark::State& state)
{
    const std::string path = FXSCOPE_TEST_DATA "/recorded/traces/llama64.log.gz";
    fxs::io::TraceReadOptions options;
    options.parseGraphs = state.range(0) != 0;
    const std::size_t bytes = fxs::readFile(path).valueOr(std::string()).size(); // inflated
    if (bytes == 0) {
        state.SkipWithError("llama64.log.gz not found");
        return;
    }
    for (auto _ : state) {
        auto result = fxs::io::readTorchTracePath(path, options);
        benchmark::DoNotOptimize(result.run.payloadsVerified);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(bytes));
    state.counters["peak_rss_MB"] = peakRssMb();
}

} // namespace

BENCHMARK(BM_Diagnose300MB)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_Llama64)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_EnvelopesPayloadsMd5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeJsonGraphsOnDemand)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullImport)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Md5WholeFile)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Import300MB)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_AppOpen300MB)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK_MAIN();
