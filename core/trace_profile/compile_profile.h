// Compile-time profile of a TORCH_TRACE run: chromium_event begin/end pairs become a nested
// timeline per compile id (dynamo, AOT, inductor phases ...), with totals per phase name, the
// cache time spent/saved per lookup and the compilation metrics logged beside them.
// Not for run-time profiles (see runtime_profile.h).
#pragma once

#include "core/model/run.h"
#include "core/util/diagnostics.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fxs::profile {

struct Phase {
    std::string name;
    std::string category;
    double startUs = 0.0;
    double endUs = 0.0;
    bool unterminated = false; // begin without end: ends at the last event of its compile
    std::vector<Phase> children;
    double ms() const { return (endUs - startUs) / 1000.0; }
};

struct CacheTime {
    std::string cache; // "fx_graph", "aotautograd"
    std::string state; // "hit", "miss", "bypass", "disabled"
    double ms = 0.0;   // time spent (miss/bypass) or saved (hit); 0 when not logged
    bool saved = false;
    std::string key;
};

struct CompileProfile {
    model::CompileId compileId;
    double totalMs = 0.0; // sum of the top-level phases
    std::vector<Phase> phases; // top-level phases in time order
    std::vector<CacheTime> cache;
    std::vector<model::CompilationMetrics> metrics;
    // Every phase name of this compile with the sum of its durations (nested phases count in
    // their own name and in their ancestors').
    std::map<std::string, double> totalsMs;
};

struct CompileProfileResult {
    std::vector<CompileProfile> compiles; // in order of first appearance
    Diagnostics diagnostics;              // unmatched ends, unterminated begins
};

// Events are nested per (pid, tid) in log order; an end closes the innermost open begin of the
// same name. Events without a compile id inherit the one of their enclosing phase.
// rank: only that rank's events, lookups and metrics (a multi-rank run's ranks are profiled one
// at a time, without copying the run).
CompileProfileResult buildCompileProfile(const model::Run& run,
                                         std::optional<int> rank = std::nullopt);

struct TraceEvent;
// The timeline as complete events for a Chrome trace: one thread (tid) per compile id.
std::vector<TraceEvent> compileProfileTraceEvents(const CompileProfileResult& profile);

} // namespace fxs::profile
