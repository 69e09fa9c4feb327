// Run-time profile: repeated engine runs, statistics, roofline, regions (optionally compiled),
// Chrome trace events and the CSV table.
#include "core/profile/runtime_profile.h"

#include "core/profile/profile_reuse.h"
#include "core/trace_profile/chrome_trace.h"
#include "core/util/elapsed.h"

#ifndef FXSCOPE_HAVE_COMPILE
#define FXSCOPE_HAVE_COMPILE 0
#endif

#if FXSCOPE_HAVE_COMPILE
#include "core/cuda/device.h"
#include "core/profile/compiled_profile.h"
#endif

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace fxs::profile {
namespace {

std::int64_t nodeValueBytes(const graph::Graph& g, graph::NodeId id)
{
    const graph::Node& n = g.node(id);
    if (graph::opBaseName(n.target) == "getitem") {
        return 0; // a view into its producer's tuple
    }
    return partition::valueBytes(g, id).value_or(0);
}

NodeProfile nodeBase(const graph::Graph& g, graph::NodeId id,
                     const std::vector<partition::Region>& regions)
{
    const graph::Node& n = g.node(id);
    NodeProfile p;
    p.name = n.name;
    p.target = n.target;
    for (const auto& r : regions) {
        if (r.contains(id)) {
            p.region = r.id;
            break;
        }
    }
    p.bytes = nodeValueBytes(g, id);
    p.bytesMoved = p.bytes;
    if (graph::opBaseName(n.target) != "getitem") {
        for (graph::NodeId in : n.inputs) {
            p.bytesMoved += partition::valueBytes(g, in).value_or(0);
        }
    }
    p.flops = nodeFlops(g, id).value_or(0.0);
    return p;
}

RegionProfile regionBase(const graph::Graph& g, const partition::Region& r,
                         const std::map<std::string, std::size_t>& nodeIndex,
                         const std::vector<NodeProfile>& nodes)
{
    RegionProfile p;
    p.id = r.id;
    p.bytesMoved = r.bytesIn + r.bytesOut;
    for (graph::NodeId id : r.nodes) {
        p.nodes.push_back(g.node(id).name);
        if (auto it = nodeIndex.find(g.node(id).name); it != nodeIndex.end()) {
            p.flops += nodes[it->second].flops;
        }
    }
    return p;
}

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
        return s;
    }
    std::string out = "\"";
    for (char c : s) {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}

std::string num(double v)
{
    std::ostringstream os;
    os.precision(9);
    os << v;
    return os.str();
}

} // namespace

TimeStat timeStat(std::vector<double> samplesMs)
{
    TimeStat s;
    if (samplesMs.empty()) {
        return s;
    }
    s.medianMs = medianOf(samplesMs);
    const auto [lo, hi] = std::minmax_element(samplesMs.begin(), samplesMs.end());
    s.minMs = *lo;
    s.maxMs = *hi;
    s.spreadMs = s.maxMs - s.minMs;
    return s;
}

bool regionCompilerAvailable()
{
    return FXSCOPE_HAVE_COMPILE != 0;
}

RuntimeProfile assembleProfile(const graph::Graph& graph,
                               const std::vector<partition::Region>& regions,
                               const std::vector<std::vector<exec::NodeTiming>>& runs,
                               const std::vector<double>& totalsMs, const MachinePeaks& peaks)
{
    RuntimeProfile p;
    p.graph = graph.sourcePath().empty() ? graph.name() : graph.sourcePath();
    p.repeat = static_cast<int>(runs.size());
    p.total = timeStat(totalsMs);
    p.peaks = peaks;
    std::map<std::string, std::vector<double>> samples;
    for (const auto& run : runs) {
        for (const auto& t : run) {
            samples[t.name].push_back(t.ms);
        }
    }
    std::map<std::string, std::size_t> index;
    for (const graph::Node& n : graph.nodes()) {
        if (!n.isCallFunction()) {
            continue;
        }
        auto id = graph.find(n.name);
        index[n.name] = p.nodes.size();
        p.nodes.push_back(nodeBase(graph, *id, regions));
        p.nodes.back().eager = timeStat(samples[n.name]);
    }
    double sum = 0.0;
    for (const auto& n : p.nodes) {
        sum += n.eager.medianMs;
    }
    for (auto& n : p.nodes) {
        n.share = sum > 0 ? n.eager.medianMs / sum : 0.0;
    }
    for (const auto& r : regions) {
        RegionProfile rp = regionBase(graph, r, index, p.nodes);
        std::set<std::string> members(rp.nodes.begin(), rp.nodes.end());
        std::vector<double> perRun;
        for (const auto& run : runs) {
            double t = 0.0;
            for (const auto& nt : run) {
                t += members.count(nt.name) != 0 ? nt.ms : 0.0;
            }
            perRun.push_back(t);
        }
        rp.eager = timeStat(perRun);
        rp.share = sum > 0 ? rp.eager.medianMs / sum : 0.0;
        p.regions.push_back(std::move(rp));
    }
    applyRoofline(p);
    return p;
}

void applyRoofline(RuntimeProfile& profile)
{
    for (auto& n : profile.nodes) {
        const auto pt = classify(static_cast<double>(n.bytesMoved), n.flops, n.eager.medianMs,
                                 profile.peaks);
        n.bound = pt.bound;
        n.efficiency = pt.efficiency;
    }
    for (auto& r : profile.regions) {
        const double ms = r.compiledMs.value_or(r.eager.medianMs);
        const auto pt = classify(static_cast<double>(r.bytesMoved), r.flops, ms, profile.peaks);
        r.bound = pt.bound;
        r.efficiency = pt.efficiency;
    }
}

namespace {

// On a GPU, memory-bound work is measured against the GPU's device-to-device copy bandwidth
// (measured once per device and process), not the host's memcpy.
void useGpuCopyBandwidth(RuntimeProfile& p)
{
#if FXSCOPE_HAVE_COMPILE
    if (p.device.rfind("cuda", 0) != 0) {
        return;
    }
    const auto colon = p.device.find(':');
    const int ordinal = colon == std::string::npos ? 0 : std::atoi(p.device.c_str() + colon + 1);
    if (auto gbps = cuda::copyBandwidth(ordinal)) {
        p.peaks.copyGBps = *gbps;
        applyRoofline(p);
    } else {
        p.notes.push_back("the GPU's copy bandwidth could not be measured: " +
                          gbps.error().message);
    }
#else
    (void)p;
#endif
}

// The regions compiled and the whole graph timed with them in place (compiled_profile.cpp).
Status compileRegions(const graph::Graph& graph, const std::vector<partition::Region>& regions,
                      const ProfileOptions& options, const exec::ValueStore& kept,
                      RuntimeProfile& profile, const CancelToken& cancel, UnitProgress& progress,
                      double first, double steps)
{
#if FXSCOPE_HAVE_COMPILE
    return detail::compileAndTimeWholeGraph(graph, regions, options, kept, profile, cancel,
                                            progress, first, steps);
#else
    (void)graph;
    (void)regions;
    (void)options;
    (void)kept;
    (void)cancel;
    (void)progress;
    (void)first;
    (void)steps;
    profile.notes.push_back("this build has no region compiler: compiled times are missing");
    profile.notes.push_back(
        "whole graph compiled vs eager: not measured (no region compiler in this build)");
    return {};
#endif
}

// Why RuntimeProfile::compiledGraph is absent when the profile compiles nothing.
std::string notCompiledNote(const ProfileOptions& options,
                            const std::vector<partition::Region>& regions)
{
    (void)options; // compileRegions is off, or there is nothing to compile
    return std::string("whole graph compiled vs eager: not measured (") +
           (regions.empty() ? "the graph has no regions to compile"
                            : "regions were not compiled") +
           ")";
}

Error cancelled()
{
    return makeError(ErrorCode::Cancelled, "profiling was cancelled");
}

Error unsupportedError(const exec::RunReport& report)
{
    if (report.unsupported.empty()) {
        return makeError(ErrorCode::Runtime, "the engine did not run the graph");
    }
    const auto& u = report.unsupported.front();
    return makeError(ErrorCode::Unsupported,
                     std::to_string(report.unsupported.size()) + " node(s) cannot run, first " +
                         u.node + " (" + u.target + "): " + u.reason,
                     u.node);
}

struct TimedRuns {
    std::vector<std::vector<exec::NodeTiming>> perNode;
    std::vector<double> totalsMs;
    int engineRuns = 0;
    std::string note; // why reuse was given up, when it was
};

// The timed runs; reused units are skipped (plan.substitutes) and their stored timings merged
// in. When the engine cannot skip them (a unit that is not convex), reuse is given up and the
// run taken again whole.
Status timedRuns(const graph::Graph& graph, exec::RunOptions ro, int repeat, ReusePlan& plan,
                 const CancelToken& cancel, UnitProgress& tracker, TimedRuns& out)
{
    for (int i = 0; i < repeat; ++i) {
        if (cancel.isCancelled()) {
            return cancelled();
        }
        tracker.begin(2.0 + i, "timed run " + std::to_string(i + 1) + "/" +
                                   std::to_string(repeat));
        auto r = exec::Interpreter::run(graph, ro, cancel);
        ++out.engineRuns;
        if (r && !r->ok && !ro.substitutes.empty()) {
            const auto& u = r->unsupported;
            out.note = "earlier module timings not reused: the engine cannot skip them (" +
                       (u.empty() ? std::string("no reason given") : u.front().reason) + ")";
            ro.substitutes.clear();
            std::fill(plan.found.begin(), plan.found.end(), std::nullopt);
            out = {{}, {}, out.engineRuns, out.note};
            i = -1;
            continue;
        }
        if (!r) {
            return r.error();
        }
        if (!r->ok) {
            return unsupportedError(*r);
        }
        plan.merge(i, r->perNode, r->totalMs);
        out.perNode.push_back(std::move(r->perNode));
        out.totalsMs.push_back(r->totalMs);
    }
    return {};
}

std::string reuseNote(const ReusePlan& plan)
{
    return std::to_string(plan.reused()) + " of " + std::to_string(plan.units.size()) +
           " modules' timings reused from an earlier profile (same nodes, inputs and options)" +
           (plan.complete() ? "; nothing ran" : "");
}

// Every unit was found: the profile is assembled from the memo without running anything.
// Every unit was found: the timed runs as stored, none run.
TimedRuns storedRuns(const ReusePlan& plan, int repeat, UnitProgress& tracker)
{
    TimedRuns out;
    out.perNode.resize(static_cast<std::size_t>(repeat));
    for (int i = 0; i < repeat; ++i) {
        double ignored = 0.0;
        plan.merge(i, out.perNode[static_cast<std::size_t>(i)], ignored);
    }
    out.totalsMs = plan.graph->totalsMs;
    for (const ProfileUnit& unit : plan.units) {
        if (!unit.path.empty()) {
            tracker.report(0.5, "reused module " + unit.path);
        }
    }
    return out;
}

RuntimeProfile reusedProfile(const graph::Graph& graph,
                             const std::vector<partition::Region>& regions, const ReusePlan& plan,
                             const ProfileOptions& options, UnitProgress& tracker)
{
    const TimedRuns runs = storedRuns(plan, std::max(1, options.repeat), tracker);
    RuntimeProfile p = assembleProfile(graph, regions, runs.perNode, runs.totalsMs,
                                       plan.graph->peaks);
    p.device = plan.graph->device;
    p.peakBytes = plan.graph->peakBytes;
    p.notes.push_back(notCompiledNote(options, regions));
    p.notes.push_back(reuseNote(plan));
    return p;
}

void remember(ProfileMemo* memo, const ReusePlan& plan, const TimedRuns& timed,
              const RuntimeProfile& p, const graph::Graph& graph)
{
    if (memo == nullptr) {
        return;
    }
    plan.storeMeasured(*memo, timed.perNode, graph);
    memo->storeGraph(plan.graphKey, {p.device, p.peakBytes, p.peaks, timed.totalsMs});
    memo->setLastStats({timed.engineRuns, plan.reused(), plan.units.size() - plan.reused(),
                        plan.units.size()});
}

} // namespace

Result<RuntimeProfile> profileGraph(const graph::Graph& graph,
                                    const std::vector<partition::Region>& regions,
                                    const ProfileOptions& options, const CancelToken& cancel,
                                    const ProgressSink& progress)
{
    const int repeat = std::max(1, options.repeat);
    const bool compiling = options.compileRegions && !regions.empty();
    // The warm-up, the timed runs; compiling: the regions, the compiled graph's runs.
    const double steps = repeat + 2.0 + (compiling ? repeat + 2.0 : 0.0);
    ReusePlan plan = planReuse(graph, options, options.memo);
    UnitProgress tracker(graph, plan.units, progress, steps);
    if (plan.complete() && !compiling) { // compiling needs the warm-up's values: run it only
        RuntimeProfile p = reusedProfile(graph, regions, plan, options, tracker);
        options.memo->setLastStats({0, plan.reused(), 0, plan.units.size()});
        tracker.report(1.0, "done");
        return p;
    }
    tracker.report(0.0, "measuring machine peaks");
    const MachinePeaks peaks = options.peaks ? *options.peaks : measurePeaks();
    // The profile runs the graph once a call (warm-up, each timed run, the compiled graph's
    // rounds): the memory each run frees stays for the next, as one run's repeats keep it.
    // Given back after every run, each run on the CPU faulted its intermediates in anew, which
    // tripled LLaMA-24's forward (40 ms a run against 12).
    const exec::HostMemoryHold hold;
    exec::RunOptions ro = options.run;
    ro.repeat = 1;
    ro.perNodeTiming = true;
    ro.keep = partition::regionInputNames(graph, regions);
    for (std::string& name : plan.reusedOutputs(graph)) {
        ro.keep.push_back(std::move(name));
    }
    if (compiling) { // the inputs of the compiled graph's runs timed on a GPU
        for (graph::NodeId id : graph.placeholders()) {
            ro.keep.push_back(graph.node(id).name);
        }
    }
    ro.onNode = tracker.hook();
    tracker.begin(1.0, "warm-up run");
    auto warm = exec::Interpreter::run(graph, ro, cancel);
    if (!warm) {
        return warm.error();
    }
    if (!warm->ok) {
        return unsupportedError(*warm);
    }
    ro.keep.clear();
    ro.substitutes = plan.substitutes(graph, warm->kept);
    TimedRuns timed;
    if (plan.complete()) { // only the region compiler needed the warm-up's values
        timed = storedRuns(plan, repeat, tracker);
    } else if (auto s = timedRuns(graph, ro, repeat, plan, cancel, tracker, timed); !s.ok()) {
        return s.error();
    }
    timed.engineRuns += 1; // the warm-up
    RuntimeProfile p = assembleProfile(graph, regions, timed.perNode, timed.totalsMs, peaks);
    p.device = warm->device;
    p.peakBytes = warm->peakBytes;
    p.notes = warm->notes;
    if (!compiling) {
        p.notes.push_back(notCompiledNote(options, regions));
    }
    if (plan.reused() > 0) {
        p.notes.push_back(reuseNote(plan));
    }
    if (!timed.note.empty()) {
        p.notes.push_back(timed.note);
    }
    useGpuCopyBandwidth(p);
    remember(options.memo, plan, timed, p, graph);
    if (compiling) {
        if (Status s = compileRegions(graph, regions, options, warm->kept, p, cancel, tracker,
                                      2.0 + repeat, steps);
            !s) {
            return s.error();
        }
        applyRoofline(p);
    }
    tracker.report(1.0, "done");
    return p;
}

std::vector<TraceEvent> runtimeProfileTraceEvents(const RuntimeProfile& profile)
{
    std::vector<TraceEvent> events;
    double t = 0.0;
    std::map<std::string, double> regionStart;
    for (const auto& n : profile.nodes) {
        const double dur = n.eager.medianMs * 1000.0;
        events.push_back({n.name, "node", t, dur, 1, 1,
                          {{"target", n.target}, {"region", n.region},
                           {"bound", std::string(boundName(n.bound))}}});
        if (!n.region.empty() && regionStart.count(n.region) == 0) {
            regionStart[n.region] = t;
        }
        t += dur;
    }
    double ct = 0.0;
    for (const auto& r : profile.regions) {
        const double start = regionStart.count(r.id) != 0 ? regionStart[r.id] : 0.0;
        events.push_back({r.id, "region.eager", start, r.eager.medianMs * 1000.0, 1, 2,
                          {{"bound", std::string(boundName(r.bound))}}});
        if (r.compiledMs) {
            events.push_back({r.id, "region.compiled", ct, *r.compiledMs * 1000.0, 1, 3,
                              {{"state", r.compileState}}});
            ct += *r.compiledMs * 1000.0;
        }
    }
    return events;
}

std::string profileCsv(const RuntimeProfile& profile)
{
    std::string out = "kind,name,target,region,eager_ms,spread_ms,compiled_ms,speedup,share,"
                      "bytes,bytes_moved,flops,bound,efficiency\n";
    for (const auto& n : profile.nodes) {
        out += "node," + csvField(n.name) + "," + csvField(n.target) + "," +
               csvField(n.region) + "," + num(n.eager.medianMs) + "," + num(n.eager.spreadMs) +
               ",,," + num(n.share) + "," + std::to_string(n.bytes) + "," +
               std::to_string(n.bytesMoved) + "," + num(n.flops) + "," +
               std::string(boundName(n.bound)) + "," + num(n.efficiency) + "\n";
    }
    for (const auto& r : profile.regions) {
        const std::string compiled = r.compiledMs ? num(*r.compiledMs) : "";
        const std::string speedup =
            r.compiledMs && *r.compiledMs > 0 ? num(r.eager.medianMs / *r.compiledMs) : "";
        out += "region," + csvField(r.id) + ",," + csvField(r.id) + "," +
               num(r.eager.medianMs) + "," + num(r.eager.spreadMs) + "," + compiled + "," +
               speedup + "," + num(r.share) + ",0," + std::to_string(r.bytesMoved) + "," +
               num(r.flops) + "," + std::string(boundName(r.bound)) + "," +
               num(r.efficiency) + "\n";
    }
    return out;
}

} // namespace fxs::profile
