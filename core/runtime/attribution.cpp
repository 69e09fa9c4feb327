#include "core/runtime/attribution.h"

#include "core/runtime/attribution_internal.h"
#include "core/runtime/launch_context.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace fxs::runtime {

namespace {

struct Joiner {
    const ProfileTrace& trace;
    const RunProvenance& prov;
    LaunchIndex index;
    Attribution out;
    std::vector<Placement> placement; // per kernel event (index into kernels)
    std::vector<std::size_t> kernels; // event indices of kernels

    void placeCalls();
    void placeCall(const GraphCall& call);
    void placeReplay(const CompiledGraph& g, const std::string& key,
                     const std::set<std::string>& tritonNames, std::vector<std::size_t> ks,
                     std::size_t& next);
    void placeOutside();
    void assignSteps();
};

// Triton launches are matched to the next site of the same name; other launches are grouped
// by their outermost cpu_op inside the graph call (one ATen call = one extern call site) and
// each group takes the next extern site. Verified 1:1 on the round-3 fixtures (every call).
void Joiner::placeCall(const GraphCall& call)
{
    const std::string key(compiledGraphKey(trace.nameOf(trace.events[call.annotation])));
    const CompiledGraph* g = prov.find(key);
    auto fail = [&](const std::string& reason) {
        for (auto l : call.launches) {
            for (auto k : index.kernelsOf(l)) {
                placement[k].unattributed = reason;
            }
        }
    };
    if (!g) {
        return fail("graph " + key + " is not in the TORCH_TRACE log");
    }
    if (g->sites.empty()) {
        return fail("graph " + key + " has no logged kernel call sites");
    }
    std::set<std::string> tritonNames;
    for (const auto& s : g->sites) {
        if (s.triton) {
            tritonNames.insert(s.name);
        }
    }
    std::size_t next = 0; // index into g->sites
    std::int64_t lastGroup = -2;
    int lastSite = 0;
    // A call that replays a CUDA graph (one cudaGraphLaunch, every kernel of the graph) also
    // launches the copies of its inputs into the graph's buffers: those are no call sites and
    // are attributed like kernels outside compiled graphs, to an op saying what they are.
    const bool replayed = std::any_of(call.launches.begin(), call.launches.end(),
                                      [&](std::size_t l) { return index.kernelsOf(l).size() > 1; });
    for (auto l : call.launches) {
        const auto ks = index.kernelsOf(l);
        if (ks.empty()) {
            continue;
        }
        if (replayed && ks.size() == 1) {
            placement[ks.front()].op = "CUDA-graph input copy, graph " + key;
            continue;
        }
        if (ks.size() > 1) { // one cudaGraphLaunch: the graph's kernels, replayed
            placeReplay(*g, key, tritonNames, ks, next);
            lastGroup = -2;
            continue;
        }
        const std::string& name = trace.nameOf(trace.events[kernels[ks.front()]]);
        int site = 0;
        if (tritonNames.count(name)) {
            while (next < g->sites.size() && g->sites[next].name != name) {
                ++next;
            }
            lastGroup = -2;
        } else {
            const std::int64_t group = index.groupOf(l);
            if (group >= 0 && group == lastGroup) {
                site = lastSite;
            } else {
                while (next < g->sites.size() && g->sites[next].triton) {
                    ++next;
                }
            }
            lastGroup = group;
        }
        if (site == 0) {
            if (next >= g->sites.size()) {
                for (auto k : ks) {
                    placement[k].unattributed =
                        "launch order does not match the call sites of graph " + key;
                }
                continue;
            }
            site = g->sites[next++].n;
        }
        lastSite = site;
        for (auto k : ks) {
            placement[k].graph = g;
            placement[k].site = site;
        }
    }
}

// A CUDA graph replayed (mode="reduce-overhead"): one launch ran every kernel of the graph, and
// no cpu_op tells the extern calls apart. In time order, a Triton kernel takes the next site of
// its name; a run of other kernels between two Triton kernels is the extern call(s) between
// their sites: one extern site takes the whole run (a GEMM may be two kernels), as many sites
// as kernels take one each, anything else is said, not guessed.
void Joiner::placeReplay(const CompiledGraph& g, const std::string& key,
                         const std::set<std::string>& tritonNames, std::vector<std::size_t> ks,
                         std::size_t& next)
{
    std::sort(ks.begin(), ks.end(), [&](std::size_t a, std::size_t b) {
        return trace.events[kernels[a]].ts < trace.events[kernels[b]].ts;
    });
    const std::string mismatch = "launch order does not match the call sites of graph " + key;
    std::vector<std::size_t> run;
    const auto flush = [&] {
        if (run.empty()) {
            return;
        }
        while (next < g.sites.size() && g.sites[next].triton) {
            ++next;
        }
        std::size_t end = next;
        while (end < g.sites.size() && !g.sites[end].triton) {
            ++end;
        }
        const std::size_t sites = end - next;
        for (std::size_t i = 0; i < run.size(); ++i) {
            Placement& p = placement[run[i]];
            if (sites == 1 || (sites > 1 && sites == run.size())) {
                p.graph = &g;
                p.site = g.sites[next + (sites == 1 ? 0 : i)].n;
            } else {
                p.unattributed = sites == 0 ? mismatch
                                            : "a CUDA-graph replay ran " +
                                                  std::to_string(run.size()) +
                                                  " library kernels for " +
                                                  std::to_string(sites) +
                                                  " adjacent extern calls of graph " + key +
                                                  ": not told apart";
            }
        }
        next = end;
        run.clear();
    };
    for (const std::size_t k : ks) {
        const std::string& name = trace.nameOf(trace.events[kernels[k]]);
        if (!tritonNames.count(name)) {
            run.push_back(k);
            continue;
        }
        flush();
        while (next < g.sites.size() && g.sites[next].name != name) {
            ++next;
        }
        if (next >= g.sites.size()) {
            placement[k].unattributed = mismatch;
            continue;
        }
        placement[k].graph = &g;
        placement[k].site = g.sites[next++].n;
    }
    flush();
}

void Joiner::placeCalls()
{
    for (std::size_t c = 0; c < index.calls().size(); ++c) {
        placeCall(index.calls()[c]);
        for (auto l : index.calls()[c].launches) {
            for (auto k : index.kernelsOf(l)) {
                placement[k].call = static_cast<std::int64_t>(c);
            }
        }
    }
}

void Joiner::placeOutside()
{
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        auto& p = placement[k];
        if (p.graph || !p.unattributed.empty() || !p.op.empty()) {
            continue;
        }
        const auto launch = index.launchOfKernel(k);
        if (!launch) {
            p.unattributed = "no launch event with the kernel's correlation id";
        } else if (auto label = index.outsideLabel(*launch); !label.empty()) {
            p.op = label;
        } else {
            p.unattributed = "launched outside any cpu_op or annotation";
        }
    }
}

void Joiner::assignSteps()
{
    const auto bounds = index.stepStarts(out.stepsFrom);
    out.steps = std::max<int>(1, static_cast<int>(bounds.size()));
    out.perStepUs.assign(out.steps, 0.0);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        const auto launch = index.launchOfKernel(k);
        const double t = launch ? trace.events[*launch].ts : trace.events[kernels[k]].ts;
        int step = 0;
        while (step + 1 < static_cast<int>(bounds.size()) && t >= bounds[step + 1]) {
            ++step;
        }
        placement[k].step = step;
        out.perStepUs[step] += trace.events[kernels[k]].dur;
    }
}

} // namespace

Attribution attribute(const ProfileTrace& trace, const RunProvenance& provenance)
{
    Joiner j{trace, provenance, LaunchIndex(trace), {}, {}, {}};
    j.kernels = j.index.kernelEvents();
    j.placement.resize(j.kernels.size());
    if (!trace.devices.empty()) {
        j.out.device = trace.devices.front().name;
        j.out.peaks = devicePeaks(j.out.device, trace.devices.front().totalGlobalMem);
        if (!j.out.peaks) {
            j.out.notes.push_back("device " + j.out.device +
                                  " is not in the peak table: no % of peak");
        }
    } else {
        j.out.notes.push_back("the trace has no deviceProperties: no % of peak");
    }
    j.placeCalls();
    j.placeOutside();
    j.assignSteps();
    sumKernelRows(trace, provenance, j.kernels, j.placement, j.out);
    sumNodesAndModules(provenance, j.out);
    describeGraphs(trace, provenance, j.index, j.out);
    runChecks(trace, provenance, j.kernels, j.placement, j.out);
    return std::move(j.out);
}

} // namespace fxs::runtime
