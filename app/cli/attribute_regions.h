// `fxscope-cli attribute --project P`: the project's regions located on a graph of the run and
// timed from the attribution (core/runtime/region_times.h), beside what fxscope's own compiled
// region costs — the region cache's entry for the same region (by its canonical digest, as
// `compile` keys it) and, with --compiled, a saved `compile --json` output's timings — and the
// "compile next" ranking. Reads the cache only; compiles nothing. Not the join itself.
#pragma once

#include "core/model/run.h"
#include "core/runtime/attribution.h"
#include "core/runtime/region_times.h"
#include "core/util/result.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace fxs::cli {

struct RegionCostOptions {
    std::string project;  // .fxscope file
    std::string cache;    // --cache DB; empty: the default store, read when it exists
    std::string compiled; // --compiled FILE: `compile --project P --json` output; may be empty
};

// What fxscope's own compiled region costs, from one source.
struct FxscopeCost {
    std::string source; // "compile_json" or "cache"
    std::string state;  // compile_json: hit/miss/fallback/built; cache: verified/bad/unverified
    std::string reason; // the reason's name (cache/reason.h)
    std::string detail; // compile_json: the headline; cache: the entry's status reason
    std::string target; // "sm_90", "host"
    std::optional<double> compiledMs;
    std::optional<double> eagerMs;
    std::optional<double> compileMs;
    std::optional<bool> wins; // null: not known
    int entries = 0;          // cache: entries of the region (all targets)
};

struct RegionCostRow {
    runtime::RegionTime time;
    std::optional<FxscopeCost> fxscope;
};

struct ProjectRegions {
    std::string project; // path
    runtime::GraphLocation location;
    std::vector<RegionCostRow> rows; // project order
    std::string cachePath;           // the cache read ("" none)
    std::vector<std::string> notes;
    std::string error; // the project's graph is not in the run: rows are empty
};

// Errors: the project (or --compiled file) unreadable. A graph not in the run is no error:
// ProjectRegions::error says so.
Result<ProjectRegions> projectRegions(const RegionCostOptions& options,
                                      const runtime::Attribution& attribution,
                                      const runtime::RunProvenance& provenance,
                                      const model::Run& run);

// {"project", "regions", "next"}; kernels: the attribution's rows the regions index.
nlohmann::json projectRegionsJson(const ProjectRegions& p,
                                  const std::vector<runtime::KernelRow>& kernels);
void printProjectRegions(const ProjectRegions& p, int top);

} // namespace fxs::cli
