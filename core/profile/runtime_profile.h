// Run-time profile of a graph: per node and per region, eager (and, for regions, compiled) time
// as median and spread over N timed runs after a warm-up, bytes allocated and moved, and the
// roofline verdict against this machine's measured peaks. Also its Chrome trace and CSV forms.
// Not the compile-time profile (compile_profile.h); saving and comparing is profile_file.h.
#pragma once

#include "core/exec/interpreter.h"
#include "core/graph/graph.h"
#include "core/partition/region.h"
#include "core/profile/roofline.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fxs::cache {
class CacheStore;
}

namespace fxs::remote {
class RemoteTier; // core/remote/remote_tier.h
}

namespace fxs::structure {
struct ModuleTree; // core/structure/module_tree.h
}

namespace fxs::profile {

struct TraceEvent;
class ProfileMemo; // core/profile/profile_reuse.h

struct TimeStat {
    double medianMs = 0.0;
    double spreadMs = 0.0; // max - min over the timed runs
    double minMs = 0.0;
    double maxMs = 0.0;
    bool operator==(const TimeStat&) const = default;
};

// Median (mean of the two middle values for an even count) and spread of samples; zeros for
// no samples.
TimeStat timeStat(std::vector<double> samplesMs);

struct NodeProfile {
    std::string name;
    std::string target;
    std::string region;              // id of the region holding it, "" when none
    TimeStat eager;
    std::optional<double> compiledMs; // nodes are compiled as parts of regions: always nullopt
    std::int64_t bytes = 0;          // bytes allocated: its value (0 for getitem / unknown)
    std::int64_t bytesMoved = 0;     // tensor inputs + its value
    double flops = 0.0;              // mm/bmm/addmm/convolution, else 0
    double share = 0.0;              // eager median / sum of every node's eager median
    Bound bound = Bound::Memory;
    double efficiency = 0.0;
    bool operator==(const NodeProfile&) const = default;
};

struct RegionProfile {
    std::string id;
    std::vector<std::string> nodes;   // node names, graph order
    TimeStat eager;                   // per run, the sum of its nodes' times
    std::optional<double> compiledMs; // mean of the region compiler's timed runs
    std::string compileState;         // "hit", "miss", "fallback", "" when not compiled
    std::int64_t bytesMoved = 0;      // region inputs + outputs (partition::Region bytes)
    double flops = 0.0;
    double share = 0.0;
    Bound bound = Bound::Memory;      // judged on compiled ms when known, else eager
    double efficiency = 0.0;
    TimeStat compiled; // median and range of the compiled runs (zeros: not compiled)
    bool operator==(const RegionProfile&) const = default;
};

// The whole graph run with its compiled regions in place (compile/compiled_graph.h): the
// regions the profile compiled, on the same device, inputs and options as the eager runs, timed
// as `total` is (per-node timing), in `repeat` rounds after a warm-up round, each round one eager
// run and one compiled run, so both are measured in the same window (RuntimeProfile::total may
// come from an earlier profile's reused timings, or from a busier moment).
struct CompiledGraphProfile {
    TimeStat eager;       // wall time per run of the eager graph, in the same rounds
    TimeStat total;       // wall time per run of the compiled graph
    int regionsUsed = 0;  // regions that ran compiled (the others fell back and ran eagerly)
    int regionsTotal = 0; // the profile's regions
    // CUDA: the GPU time between CUDA events around the steps of each graph, run without
    // per-node synchronisation (medians; compile::timeTotalsOnDevice). nullopt on the CPU, or
    // when it could not be measured (the notes say why).
    std::optional<double> deviceMs;
    std::optional<double> eagerDeviceMs;
    // Matrix-product groups outside the regions that ran as one product each, as `run
    // --compiled` runs them (compile::fuseMatmulsFor).
    int matmulGroups = 0;
    bool operator==(const CompiledGraphProfile&) const = default;
};

struct RuntimeProfile {
    std::string graph;   // the graph's name or source path
    std::string device;  // "cpu"
    int repeat = 0;      // timed runs
    TimeStat total;      // whole-graph wall time per run (eager)
    std::int64_t peakBytes = 0;
    MachinePeaks peaks;
    std::vector<NodeProfile> nodes;   // call nodes, graph order
    std::vector<RegionProfile> regions;
    std::vector<std::string> notes;
    // Only when regions were compiled (ProfileOptions::compileRegions and the graph has
    // regions) and the graph ran with them in place; else nullopt and a note says why.
    std::optional<CompiledGraphProfile> compiledGraph;
    bool operator==(const RuntimeProfile&) const = default;
};

struct ProfileOptions {
    exec::RunOptions run;          // inputs, sizes, seed, device (repeat is ignored)
    int repeat = 5;                // timed runs after one warm-up run
    std::optional<MachinePeaks> peaks; // given peaks; nullopt: measure them
    // Compile the regions (compile::compileRegionsOn: cache, verification, timing of each in
    // isolation) when the region compiler is built, then time the whole graph with them in
    // place (RuntimeProfile::compiledGraph).
    bool compileRegions = false;
    // Keep only what wins (compile::CompileOptions::slower): whether a compiled region lost to
    // eager, from its timings. Empty: the compiler's rule. Tests inject a verdict through it.
    std::function<bool(double eagerMs, double eagerSpreadMs, double compiledMs,
                       double compiledSpreadMs)>
        slower;
    cache::CacheStore* store = nullptr; // region compiler cache (null: build in a temp dir)
    remote::RemoteTier* remote = nullptr; // its remote tier (null: none)
    // The graph's module tree (null: unknown): progress is reported per module ("timed run 2/5
    // · module 5/24: model.layers.4") and modules are the units of reuse.
    const structure::ModuleTree* modules = nullptr;
    // Per-module timings of earlier profiles (null: none reused, none kept): units whose key
    // (profile_reuse.h: the unit's nodes, what it reads, the options) is found are not timed
    // again; the memo's lastStats() says what this profile ran and reused.
    ProfileMemo* memo = nullptr;
};

// Whether this build has the region compiler (fxscope_compile).
bool regionCompilerAvailable();

// Runs the graph 1 + repeat times and assembles the profile; compiling regions, then 1 + repeat
// rounds of the graph eagerly and with them in place (on CUDA both graphs also run without
// per-node syncs for their GPU time). A compiled graph that cannot run is not an error:
// compiledGraph stays nullopt and a note says why. With a memo, an unchanged graph is not run
// at all (unless compiling), and a partly changed one times only its changed modules (see
// profile_reuse.h; the profile's notes say how many were reused). Errors: the engine cannot run the graph (unsupported ops are listed), an
// operator failed, or the token was cancelled.
Result<RuntimeProfile> profileGraph(const graph::Graph& graph,
                                    const std::vector<partition::Region>& regions,
                                    const ProfileOptions& options,
                                    const CancelToken& cancel = CancelToken::none(),
                                    const ProgressSink& progress = {});

// The pure part of profileGraph: per-run node timings (one vector per timed run, the engine's
// perNode) and whole-run times into a profile. Exposed for tests and for the app.
RuntimeProfile assembleProfile(const graph::Graph& graph,
                               const std::vector<partition::Region>& regions,
                               const std::vector<std::vector<exec::NodeTiming>>& runs,
                               const std::vector<double>& totalsMs, const MachinePeaks& peaks);

// Fills bound/efficiency of nodes and regions from their times and the profile's peaks.
void applyRoofline(RuntimeProfile& profile);

// Chrome trace: pid 1, tid 1 holds the nodes laid end to end by eager median, tid 2 the
// regions (eager), tid 3 the compiled regions.
std::vector<TraceEvent> runtimeProfileTraceEvents(const RuntimeProfile& profile);

// The table as CSV (RFC 4180 quoting): kind,name,target,region,eager_ms,spread_ms,compiled_ms,
// speedup,share,bytes,bytes_moved,flops,bound,efficiency — node rows, then region rows.
std::string profileCsv(const RuntimeProfile& profile);

} // namespace fxs::profile
