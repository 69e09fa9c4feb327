// Chrome trace-event JSON (opens in Perfetto and chrome://tracing): writing complete ("X")
// events with pid/tid and microsecond timestamps, and a validator used by tests and by
// `fxscope-cli` before it writes a file. Knows nothing of graphs.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxs::profile {

struct TraceEvent {
    std::string name;
    std::string category;
    double tsUs = 0.0;
    double durUs = 0.0;
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::vector<std::pair<std::string, std::string>> args; // string-valued args
};

// {"traceEvents":[{"name","cat","ph":"X","ts","dur","pid","tid","args"}],"displayTimeUnit":"ms"}
std::string writeChromeTrace(const std::vector<TraceEvent>& events);

// Checks the trace-event format: a JSON object with a traceEvents array (or a bare array);
// every event has name, ph, pid, tid, numeric ts (µs); B/E pairs balance per (pid, tid) with
// matching names; X events have a non-negative dur and nest properly per (pid, tid).
Status validateChromeTrace(const std::string& json);

} // namespace fxs::profile
