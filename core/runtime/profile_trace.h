// A torch.profiler (Kineto) Chrome trace reduced to what the kernel attribution needs: kernel
// events, their CUDA runtime/driver launches, cpu_op and user_annotation intervals (compiled
// graphs run as `## Call CompiledFxGraph <key> ##`), `ProfilerStep#N` and `deviceProperties`.
// Plain data; not a general Chrome trace model (flows, counters and metadata are counted, not
// kept).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::runtime {

enum class EventKind : std::uint8_t {
    Kernel,         // cat "kernel": a GPU kernel
    Launch,         // cat "cuda_runtime" / "cuda_driver" carrying a correlation id
    CpuOp,          // cat "cpu_op"
    Annotation,     // cat "user_annotation" (CompiledFxGraph calls, optimizer steps, ...)
    GpuAnnotation,  // cat "gpu_user_annotation"
    Memory,         // cat "gpu_memcpy" / "gpu_memset": GPU time that is not a kernel
};

// One complete ("ph": "X") event that was kept. Names are interned in ProfileTrace::names.
struct TraceEvent {
    double ts = 0;  // µs
    double dur = 0; // µs
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::int64_t correlation = -1; // kernels and launches; -1 when absent
    std::uint32_t name = 0;
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::int32_t grid[3] = {0, 0, 0};
    std::int32_t block[3] = {0, 0, 0};
    EventKind kind = EventKind::Kernel;
    double end() const { return ts + dur; }
};

struct DeviceInfo {
    int id = 0;
    std::string name; // "NVIDIA H200"
    int numSms = 0;
    std::int64_t totalGlobalMem = 0;
    int computeMajor = 0;
    int computeMinor = 0;
};

struct ProfileTrace {
    std::string path;
    std::vector<std::string> names; // interned event names
    std::vector<TraceEvent> events; // in file order
    std::vector<DeviceInfo> devices;
    std::map<std::string, std::int64_t> categoryCounts; // every event read, by "cat" ("" none)
    std::int64_t eventsRead = 0;
    std::int64_t eventsSkipped = 0; // events that could not be decoded (see the diagnostics)
    std::uint64_t bytesRead = 0;    // JSON bytes scanned (inflated when gzip'd)

    const std::string& nameOf(const TraceEvent& e) const { return names[e.name]; }
    std::int64_t count(EventKind kind) const;
};

// Key of a `## Call CompiledFxGraph <key> ##` annotation name; empty when it is not one.
std::string_view compiledGraphKey(std::string_view annotationName);
// N of a `ProfilerStep#N` name; -1 when it is not one.
int profilerStepNumber(std::string_view name);

} // namespace fxs::runtime
