// The regions compiled as `compile` and `run --compiled` compile them, then the whole graph run
// with them in place the way the profile ran it eagerly, so that the two totals compare.
#include "core/profile/compiled_profile.h"

#include "core/compile/compiled_graph.h"
#include "core/compile/graph_compile.h"

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>

namespace fxs::profile::detail {
namespace {

Error cancelledError()
{
    return makeError(ErrorCode::Cancelled, "profiling was cancelled");
}

bool onCuda(const RuntimeProfile& profile)
{
    return profile.device.rfind("cuda", 0) == 0;
}

compile::CompileOptions compileOptions(const ProfileOptions& options,
                                       const RuntimeProfile& profile)
{
    compile::CompileOptions co;
    co.store = options.store;
    co.remote = options.remote;
    co.timingRepeats = std::max(1, options.repeat);
    co.retime = true;     // a profile measures: a hit is timed again, not read from its entry
    co.keepLoaded = true; // for the whole graph's runs with the regions in place
    co.slower = options.slower;
    // Regions run where the profile ran: CUDA kernels timed with events on a GPU.
    co.device = onCuda(profile) ? compile::TargetDevice::Cuda : compile::TargetDevice::Cpu;
    return co;
}

void recordRegions(const std::vector<compile::RegionOutcome>& outcomes, RuntimeProfile& profile)
{
    for (std::size_t i = 0; i < outcomes.size() && i < profile.regions.size(); ++i) {
        const compile::RegionOutcome& out = outcomes[i];
        RegionProfile& r = profile.regions[i];
        r.compileState = std::string(compile::regionStateName(out.state));
        if (out.state != compile::RegionState::Fallback) {
            r.compiledMs = out.compiledMs;
            r.compiled = timeStat(out.compiledSamplesMs);
        } else {
            profile.notes.push_back("region " + r.id + " fell back to LibTorch: " +
                                    out.headline);
        }
    }
}

std::string unsupportedText(const exec::RunReport& run)
{
    if (run.unsupported.empty()) {
        return "the engine did not run it";
    }
    const exec::UnsupportedOp& u = run.unsupported.front();
    return u.node + " (" + u.target + "): " + u.reason;
}

// CUDA: both graphs without per-node syncs; a failure is a note, not an error.
void timeOnDevice(const graph::Graph& graph, const ProfileOptions& options,
                  const exec::ValueStore& kept, const std::vector<compile::RegionOutcome>& outcomes,
                  const std::vector<exec::Substitute>& groups, CompiledGraphProfile& whole,
                  RuntimeProfile& profile, const CancelToken& cancel)
{
    exec::RunOptions ro = options.run;
    ro.repeat = std::max(1, options.repeat);
    ro.onNode = nullptr;
    ro.directMatmuls = true; // the compiled graph's, as `run --compiled` (not the eager one's)
    auto t = compile::timeTotalsOnDevice(graph, ro, compile::graphInputsOf(graph, kept), outcomes,
                                         groups, false, false, cancel);
    if (t) {
        whole.deviceMs = t->compiledDeviceMs;
        whole.eagerDeviceMs = t->eagerDeviceMs;
    } else if (t.error().code != ErrorCode::Cancelled) {
        profile.notes.push_back("the GPU time of the whole graph could not be measured: " +
                                t.error().message);
    }
}

// One run of the graph for the whole-graph rounds; false (and a note) when it failed.
Result<bool> runOnce(const graph::Graph& graph, const exec::RunOptions& ro, const char* which,
                     RuntimeProfile& profile, const CancelToken& cancel,
                     std::vector<double>* totals)
{
    auto run = exec::Interpreter::run(graph, ro, cancel);
    if (!run && run.error().code == ErrorCode::Cancelled) {
        return cancelledError();
    }
    if (!run || !run->ok) {
        profile.notes.push_back(std::string("whole graph compiled vs eager: the ") + which +
                                " graph failed: " +
                                (run ? unsupportedText(*run) : run.error().toString()));
        return false;
    }
    if (totals != nullptr) {
        totals->push_back(run->totalMs);
    }
    return true;
}

// The graph eagerly and with the regions that compiled (and the matrix-product groups) in
// place, run as the eager runs were (per-node timing): a warm-up round, then `repeat` rounds of
// one eager and one compiled run.
Status timeWholeGraph(const graph::Graph& graph, const ProfileOptions& options,
                      const std::vector<compile::RegionOutcome>& outcomes,
                      const std::vector<exec::Substitute>& groups, RuntimeProfile& profile,
                      const CancelToken& cancel, UnitProgress& progress, double first)
{
    const int repeat = std::max(1, options.repeat);
    exec::RunOptions eager = options.run;
    eager.repeat = 1;
    eager.perNodeTiming = true; // as the profile's eager runs
    eager.keep.clear();
    eager.substitutes.clear();
    eager.onNode = progress.hook();
    eager.directMatmuls = false;
    exec::RunOptions compiled = eager;
    compiled.directMatmuls = onCuda(profile); // products straight to cuBLAS, as `run --compiled`
    compiled.substitutes = compile::compiledSubstitutes(outcomes);
    const int regionsUsed = static_cast<int>(compiled.substitutes.size());
    compiled.substitutes.insert(compiled.substitutes.end(), groups.begin(), groups.end());
    std::vector<double> eagerMs;
    std::vector<double> compiledMs;
    for (int i = 0; i <= repeat; ++i) {
        if (cancel.isCancelled()) {
            return cancelledError();
        }
        progress.begin(first + i, i == 0 ? std::string("eager and compiled graph: warm-up")
                                          : "eager and compiled graph: round " +
                                                std::to_string(i) + "/" + std::to_string(repeat));
        for (auto [ro, which, totals] : {std::tuple(&eager, "eager", &eagerMs),
                                         std::tuple(&compiled, "compiled", &compiledMs)}) {
            auto ran = runOnce(graph, *ro, which, profile, cancel, i > 0 ? totals : nullptr);
            if (!ran) {
                return ran.error();
            }
            if (!*ran) {
                return {};
            }
        }
    }
    CompiledGraphProfile whole;
    whole.eager = timeStat(std::move(eagerMs));
    whole.total = timeStat(std::move(compiledMs));
    whole.regionsUsed = regionsUsed;
    whole.matmulGroups = static_cast<int>(groups.size());
    whole.regionsTotal = static_cast<int>(profile.regions.size());
    profile.compiledGraph = std::move(whole);
    return {};
}

} // namespace

Status compileAndTimeWholeGraph(const graph::Graph& graph,
                                const std::vector<partition::Region>& regions,
                                const ProfileOptions& options, const exec::ValueStore& kept,
                                RuntimeProfile& profile, const CancelToken& cancel,
                                UnitProgress& progress, double first, double steps)
{
    const ProgressSink compiling = [&](double fraction, std::string_view phase) {
        progress.report((first + std::clamp(fraction, 0.0, 1.0)) / steps,
                        "compiling regions: " + std::string(phase));
    };
    progress.report(first / steps, "compiling regions");
    // The matrix products grouped as `run --compiled` groups them; the regions compile on the
    // values of a run with the groups in place.
    exec::RunOptions grouped = options.run;
    grouped.directMatmuls = onCuda(profile);
    auto fusion = compile::fuseMatmulsFor(graph, regions, grouped, kept, cancel);
    if (!fusion && fusion.error().code == ErrorCode::Cancelled) {
        return cancelledError();
    }
    compile::MatmulFusionRun groups;
    if (!fusion) {
        profile.notes.push_back("matrix products not grouped: " + fusion.error().message);
    } else {
        groups = std::move(*fusion);
    }
    if (!groups.note.empty()) {
        profile.notes.push_back(groups.note);
    }
    compile::GraphCompileReport compiled = compile::compileRegionsOn(
        graph, regions, groups.substitutes.empty() ? kept : groups.values,
        compileOptions(options, profile), cancel, compiling);
    groups.values = exec::ValueStore{};
    if (compiled.cancelled || cancel.isCancelled()) {
        return cancelledError();
    }
    recordRegions(compiled.regions, profile);
    for (auto& r : compiled.regions) {
        r.outputs.clear(); // the region outputs need not stay alive through the graph's runs
    }
    if (Status s = timeWholeGraph(graph, options, compiled.regions, groups.substitutes, profile,
                                  cancel, progress, first + 1.0);
        !s) {
        return s;
    }
    if (profile.compiledGraph && onCuda(profile)) {
        progress.report((first + 2.0 + options.repeat) / steps, "compiled graph: GPU time");
        timeOnDevice(graph, options, kept, compiled.regions, groups.substitutes,
                     *profile.compiledGraph, profile, cancel);
    }
    return cancel.isCancelled() ? Status(cancelledError()) : Status{};
}

} // namespace fxs::profile::detail
