// Saving, loading and comparing run-time profiles: a versioned JSON document that reloads into
// an equal RuntimeProfile, and the per node / per region deltas between two profiles (before and
// after a change of regions or options). Not the profiling itself (runtime_profile.h).
#pragma once

#include "core/profile/runtime_profile.h"
#include "core/util/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::profile {

// 2: "compiled_graph" (RuntimeProfile::compiledGraph) added; version 1 files load without it.
inline constexpr int kProfileSchemaVersion = 2;

// {"schema":"fxscope-runtime-profile","version":2,"graph",...} (README "fxscope-cli profile").
std::string serializeProfile(const RuntimeProfile& profile);
// Refuses other schemas and newer versions (Unsupported) and malformed documents (Parse).
Result<RuntimeProfile> parseProfile(std::string_view json);
Status saveProfile(const std::string& path, const RuntimeProfile& profile);
Result<RuntimeProfile> loadProfile(const std::string& path);

struct Delta {
    std::string name;                 // node name or region id
    std::optional<double> beforeMs;   // nullopt: only in the second profile
    std::optional<double> afterMs;    // nullopt: only in the first profile
    // after / before when both are known and before > 0
    std::optional<double> ratio() const;
};

struct ProfileComparison {
    double beforeTotalMs = 0.0; // medians of the whole-graph runs
    double afterTotalMs = 0.0;
    // The whole graph with its compiled regions in place (medians); nullopt: not measured.
    std::optional<double> beforeCompiledTotalMs;
    std::optional<double> afterCompiledTotalMs;
    std::vector<Delta> nodes;   // eager medians; first profile's order, then new names
    std::vector<Delta> regions; // compiled ms when known, else eager medians
};

ProfileComparison compareProfiles(const RuntimeProfile& before, const RuntimeProfile& after);

} // namespace fxs::profile
