// TORCH_TRACE import throughput on the largest fixture (gpt_cold, 2.6 MB, held in memory):
// (a) envelopes + payload extraction + MD5 checks, no payload decoding; (b) the full import
// with JSON payloads decoded and graph IR built for every graph payload. Reference: MD5 alone.
#include "core/io/torch_trace_reader.h"
#include "core/util/digest.h"
#include "core/util/file_reader.h"

#include <benchmark/benchmark.h>

#include <filesystem>

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

void BM_DecodeJsonNoGraphs(benchmark::State& state)
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

} // namespace

BENCHMARK(BM_EnvelopesPayloadsMd5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeJsonNoGraphs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullImport)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Md5WholeFile)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
