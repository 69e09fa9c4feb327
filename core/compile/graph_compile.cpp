#include "core/compile/graph_compile.h"

#include "core/compile/conv_fusion.h"
#include "core/compile/matmul_groups.h"

#include <exception>
#include <set>
#include <string>

namespace fxs::compile {
namespace {

Error unsupportedError(const exec::RunReport& run)
{
    std::string names;
    for (const auto& u : run.unsupported) {
        names += (names.empty() ? "" : ", ") + u.node + " (" + u.target + ")";
    }
    return makeError(ErrorCode::Unsupported,
                     "the eager engine cannot run this graph (unsupported ops: " + names + ")");
}

// The regions' phases (RegionCompiler::compileAll: prepared in order, keys built in parallel,
// then verified and timed in order), totalled.
GraphCompileReport compileEach(const graph::Graph& graph,
                               const std::vector<partition::Region>& regions,
                               RegionCompiler& compiler, const exec::ValueStore& kept,
                               const CancelToken& cancel, const ProgressSink& progress,
                               GraphCompileReport& report)
{
    std::vector<RegionSpec> specs;
    specs.reserve(regions.size());
    for (const auto& r : regions) {
        specs.push_back({r.id, r.nodes, r.options});
    }
    RegionCompiler::Batch batch = compiler.compileAll(graph, specs, kept, cancel, progress);
    report.cancelled = batch.cancelled;
    report.regions = std::move(batch.regions);
    for (const auto& r : report.regions) {
        report.totalEagerMs += r.eagerMs;
        report.totalCompiledMs += r.compiledMs;
    }
    reportProgress(progress, 1.0, report.cancelled ? "cancelled" : "done");
    return report;
}

Result<GraphCompileReport> compileAll(const graph::Graph& graph,
                                      const std::vector<partition::Region>& regions,
                                      const GraphCompileOptions& options,
                                      const CancelToken& cancel, const ProgressSink& progress)
{
    GraphCompileReport report;
    reportProgress(progress, 0.0, options.compile.buildOnly ? "building" : "eager run");
    if (cancel.isCancelled()) {
        report.cancelled = true;
        return report;
    }
    RegionCompiler compiler(options.compile);
    if (options.compile.buildOnly) {
        return compileEach(graph, regions, compiler, {}, cancel, progress, report);
    }
    // One eager run of the whole graph gives every region its inputs.
    exec::RunOptions ro = options.run;
    ro.perNodeTiming = false;
    ro.keep = partition::regionInputNames(graph, regions);
    ro.device = options.compile.device == TargetDevice::Cuda ? exec::DevicePref::Cuda
                                                             : exec::DevicePref::Cpu;
    auto run = exec::Interpreter::run(graph, ro, cancel);
    if (!run) {
        if (run.error().code == ErrorCode::Cancelled) {
            report.cancelled = true;
            return report;
        }
        return run.error();
    }
    if (!run->ok) {
        return unsupportedError(*run);
    }
    return compileEach(graph, regions, compiler, run->kept, cancel, progress, report);
}

bool recordedOnCuda(const graph::Graph& g)
{
    for (const auto& n : g.nodes()) {
        const auto* m = n.tensorMeta();
        if (m && m->device && m->device->type == "cuda") {
            return true;
        }
    }
    return false;
}

} // namespace

TargetDevice resolveDevice(const graph::Graph& graph, DeviceChoice choice)
{
    switch (choice) {
    case DeviceChoice::Cpu: return TargetDevice::Cpu;
    case DeviceChoice::Cuda: return TargetDevice::Cuda;
    case DeviceChoice::Auto: break;
    }
    return recordedOnCuda(graph) && cudaRunnable() ? TargetDevice::Cuda : TargetDevice::Cpu;
}

std::vector<std::string> autoProposalLeftOut(const graph::Graph& graph,
                                             const GraphCompileOptions& options)
{
    std::vector<std::string> out;
    if (options.fuseMatmuls) {
        out = matmulSumNodeNames(graph);
    }
    if (convFusionApplies(options.fuseConvolutions, options.compile.device)) {
        for (auto& n : convEpilogueNodeNames(graph)) {
            out.push_back(std::move(n));
        }
    }
    return out;
}

std::optional<exec::ConvLayout> resolveConvLayout(std::string_view choice, TargetDevice device)
{
    if (choice == "auto") {
        return device == TargetDevice::Cuda ? exec::ConvLayout::ChannelsLast
                                            : exec::ConvLayout::Recorded;
    }
    if (choice == "recorded") {
        return exec::ConvLayout::Recorded;
    }
    if (choice == "channels-last") {
        return exec::ConvLayout::ChannelsLast;
    }
    return std::nullopt;
}

Result<GraphCompileReport> compileGraphRegions(const graph::Graph& graph,
                                               const std::vector<partition::Region>& regions,
                                               const GraphCompileOptions& options,
                                               const CancelToken& cancel,
                                               const ProgressSink& progress)
{
    try {
        return compileAll(graph, regions, options, cancel, progress);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("compiling regions: ") + e.what());
    }
}

GraphCompileReport compileRegionsOn(const graph::Graph& graph,
                                    const std::vector<partition::Region>& regions,
                                    const exec::ValueStore& kept, const CompileOptions& options,
                                    const CancelToken& cancel, const ProgressSink& progress)
{
    GraphCompileReport report;
    RegionCompiler compiler(options); // compileAndRun never throws
    compileEach(graph, regions, compiler, kept, cancel, progress, report);
    return report;
}

} // namespace fxs::compile
