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
    for (auto l : call.launches) {
        const auto ks = index.kernelsOf(l);
        if (ks.empty()) {
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
        if (p.graph || !p.unattributed.empty()) {
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
