// torch.profiler trace import (core/runtime's streaming reader) at scale: a trace built by
// repeating the events of the recorded GPT-4 training steps (tests/data/runtime/gpt4_train,
// 1.7 MB of JSON, 5,064 events) up to FXSCOPE_BENCH_PROFILE_MB megabytes (default 64; 1024 for
// the 1 GB target), written to a temporary file and read from disk as a user's trace
// is. Counters: file_MB, MB_per_s, peak_rss_MB (the process's high-water mark, after the
// generator's) and rss_over_file. The copies keep their ids and times: the reader's cost does
// not depend on them. BM_AttributeGpt: the whole join on the real trace and log.
#include "core/io/torch_trace_reader.h"
#include "core/runtime/attribution.h"
#include "core/runtime/profile_trace_reader.h"
#include "core/util/file_reader.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace {

const std::string kData = FXSCOPE_TEST_DATA "/runtime/gpt4_train/";

double peakRssMb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0; // KiB on Linux
}

std::size_t targetBytes()
{
    const char* mb = std::getenv("FXSCOPE_BENCH_PROFILE_MB");
    const long v = mb ? std::atol(mb) : 64;
    return static_cast<std::size_t>(v > 0 ? v : 64) << 20;
}

// Writes header + the recorded events repeated until the file reaches the target size.
std::string writeLargeTrace()
{
    const auto text = fxs::readFile(kData + "gpt4_train_profile.json.gz");
    if (!text) {
        return {};
    }
    const auto open = text->find("\"traceEvents\": [");
    const auto close = text->rfind(']');
    if (open == std::string::npos || close == std::string::npos) {
        return {};
    }
    const auto bodyStart = open + 16;
    const std::string head = text->substr(0, bodyStart);
    const std::string body = text->substr(bodyStart, close - bodyStart);
    const std::string tail = text->substr(close);
    const std::string path = "/tmp/fxscope_bench_profile_" + std::to_string(::getpid()) + ".json";
    std::ofstream out(path, std::ios::binary);
    out << head << body;
    std::size_t written = head.size() + body.size();
    const std::size_t target = targetBytes();
    while (written + body.size() + tail.size() < target) {
        out << ',' << body;
        written += body.size() + 1;
    }
    out << tail;
    return path;
}

void BM_ReadLargeProfile(benchmark::State& state)
{
    const std::string path = writeLargeTrace();
    if (path.empty()) {
        state.SkipWithError("gpt4_train profile not found");
        return;
    }
    std::uint64_t size = 0;
    if (auto fd = fxs::openRegularFile(path, size)) {
        ::close(*fd);
    }
    double seconds = 0;
    std::int64_t events = 0;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = fxs::runtime::readProfileTrace(path);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r.error) {
            state.SkipWithError(r.error->toString().c_str());
            break;
        }
        events = r.trace.eventsRead;
        benchmark::DoNotOptimize(r.trace.events.data());
    }
    std::remove(path.c_str());
    const double mb = static_cast<double>(size) / (1 << 20);
    state.counters["file_MB"] = mb;
    state.counters["events"] = static_cast<double>(events);
    state.counters["MB_per_s"] = seconds > 0 ? mb / seconds : 0;
    state.counters["peak_rss_MB"] = peakRssMb();
    state.counters["rss_over_file"] = peakRssMb() / mb;
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(size));
}
BENCHMARK(BM_ReadLargeProfile)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_AttributeGpt(benchmark::State& state)
{
    const auto trace = fxs::runtime::readProfileTrace(kData + "gpt4_train_profile.json.gz");
    const auto run =
        fxs::io::readTorchTracePath(kData + "dedicated_log_torch_trace_87z1gt5g.log.gz");
    const auto prov = fxs::runtime::collectProvenance(run.run);
    for (auto _ : state) {
        auto a = fxs::runtime::attribute(trace.trace, prov);
        benchmark::DoNotOptimize(a.kernels.data());
    }
}
BENCHMARK(BM_AttributeGpt)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
