#include "app/cli/profile_input.h"

#include "app/cli/json_output.h"
#include "core/runtime/profile_trace_reader.h"
#include "core/util/file_reader.h"

#include <cstdio>

namespace fxs::cli {

using nlohmann::json;
using namespace fxs::runtime;

ProfileSummary summarizeProfileTrace(const std::string& path)
{
    const auto r = readProfileTrace(path);
    const auto& t = r.trace;
    std::int64_t calls = 0;
    double kernelUs = 0;
    for (const auto& e : t.events) {
        if (e.kind == EventKind::Annotation && !compiledGraphKey(t.nameOf(e)).empty()) {
            ++calls;
        } else if (e.kind == EventKind::Kernel) {
            kernelUs += e.dur;
        }
    }
    json devices = json::array();
    for (const auto& d : t.devices) {
        devices.push_back({{"id", d.id}, {"name", d.name}, {"sms", d.numSms}});
    }
    json categories = json::object();
    for (const auto& [cat, n] : t.categoryCounts) {
        categories[cat.empty() ? "(none)" : cat] = n;
    }
    ProfileSummary s;
    s.ok = !r.error;
    s.json = {{"path", path},
              {"kind", "profiler_trace"},
              {"events", t.eventsRead},
              {"events_skipped", t.eventsSkipped},
              {"kernels", t.count(EventKind::Kernel)},
              {"launches", t.count(EventKind::Launch)},
              {"cpu_ops", t.count(EventKind::CpuOp)},
              {"annotations", t.count(EventKind::Annotation)},
              {"compiled_graph_calls", calls},
              {"kernel_us", kernelUs},
              {"categories", std::move(categories)},
              {"devices", std::move(devices)},
              {"error", r.error ? errorJson(*r.error) : json()}};
    return s;
}

void printProfileSummary(const json& s)
{
    std::printf("profiler trace %s: %lld events, %lld kernels (%.1f us), %lld launches, %lld "
                "cpu_ops, %lld annotations, %lld compiled graph calls\n",
                s["path"].get<std::string>().c_str(), s["events"].get<long long>(),
                s["kernels"].get<long long>(), s["kernel_us"].get<double>(),
                s["launches"].get<long long>(), s["cpu_ops"].get<long long>(),
                s["annotations"].get<long long>(), s["compiled_graph_calls"].get<long long>());
    for (const auto& d : s["devices"]) {
        std::printf("  device %d: %s (%d SMs)\n", d["id"].get<int>(),
                    d["name"].get<std::string>().c_str(), d["sms"].get<int>());
    }
    if (!s["error"].is_null()) {
        std::printf("  error: %s: %s (expected %s, found %s)\n",
                    s["error"]["where"].get<std::string>().c_str(),
                    s["error"]["message"].get<std::string>().c_str(),
                    s["error"]["expected"].get<std::string>().c_str(),
                    s["error"]["found"].get<std::string>().c_str());
    }
}

} // namespace fxs::cli
