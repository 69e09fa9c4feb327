#include "core/runtime/region_times.h"

#include "core/util/digest.h"

#include <algorithm>
#include <map>
#include <set>

namespace fxs::runtime {

namespace {

std::string shortDigest(std::string_view hex)
{
    return hex.empty() ? std::string("none") : std::string(hex.substr(0, 12)) + "…";
}

std::size_t nodesFoundIn(const graph::Graph& g, const std::vector<RegionNodes>& regions)
{
    std::size_t found = 0;
    for (const auto& r : regions) {
        for (const auto& n : r.nodes) {
            found += g.find(n) ? 1 : 0;
        }
    }
    return found;
}

bool hasTimes(const std::vector<GraphTimes>& times, std::size_t artifact)
{
    return std::any_of(times.begin(), times.end(),
                       [&](const GraphTimes& t) { return t.artifact == artifact; });
}

// The parsed graph holding most of the regions' node names (ties: with kernel time, first).
std::optional<std::size_t> bestByNames(const model::Run& run, const std::vector<GraphTimes>& times,
                                       const std::vector<RegionNodes>& regions,
                                       std::size_t& found)
{
    std::optional<std::size_t> best;
    bool bestTimed = false;
    found = 0;
    for (std::size_t i = 0; i < run.graphs.size(); ++i) {
        const auto g = run.graphs[i].parsedGraph();
        if (!g) {
            continue;
        }
        const std::size_t n = nodesFoundIn(*g, regions);
        const bool timed = hasTimes(times, i);
        if (!best || n > found || (n == found && timed && !bestTimed)) {
            best = i;
            found = n;
            bestTimed = timed;
        }
    }
    return best;
}

} // namespace

std::string graphSelector(const model::Run& run, std::size_t index)
{
    const auto& a = run.graphs[index];
    const std::string label = a.compileId.toString() + ":" + a.kind;
    std::size_t ordinal = 0;
    for (std::size_t i = 0; i < index; ++i) {
        const auto& b = run.graphs[i];
        ordinal += (b.compileId.toString() + ":" + b.kind) == label ? 1 : 0;
    }
    return ordinal == 0 ? label : label + "#" + std::to_string(ordinal);
}

GraphLocation locateRegionGraph(const model::Run& run, const std::vector<GraphTimes>& times,
                                std::string_view sha256Hex,
                                const std::vector<RegionNodes>& regions)
{
    GraphLocation out;
    for (const auto& r : regions) {
        out.nodesTotal += r.nodes.size();
    }
    for (std::size_t i = 0; i < run.graphs.size() && !sha256Hex.empty(); ++i) {
        const auto g = run.graphs[i].parsedGraph();
        if (g && toHex(sha256(g->text())) == sha256Hex) {
            out.artifact = i;
            out.by = "sha256";
            out.selector = graphSelector(run, i);
            out.nodesFound = nodesFoundIn(*g, regions);
            return out;
        }
    }
    std::size_t found = 0;
    const auto best = bestByNames(run, times, regions, found);
    const std::string none = "none of the log's " + std::to_string(run.graphs.size()) +
                             " graphs has the text the regions were drawn over (sha256 " +
                             shortDigest(sha256Hex) + ")";
    if (!best) {
        out.message = none;
        return out;
    }
    const std::string counts = std::to_string(found) + " of the regions' " +
                               std::to_string(out.nodesTotal) + " nodes";
    if (found == 0) {
        out.message = none + ", and no graph holds any of their " +
                      std::to_string(out.nodesTotal) + " nodes by name";
        return out;
    }
    if (found * 2 <= out.nodesTotal) {
        out.message = none + ", and no graph holds more than half of their nodes by name (best: " +
                      graphSelector(run, *best) + " with " + counts + ")";
        return out;
    }
    out.artifact = best;
    out.by = "node_names";
    out.selector = graphSelector(run, *best);
    out.nodesFound = found;
    out.message = none + "; matched by node names to " + out.selector + ", which holds " + counts;
    return out;
}

namespace {

// The kernel row's nodes on the side of the graph the times are named by.
const std::vector<std::string>& nodesOf(const KernelRow& k, const GraphTimes& times)
{
    return times.preGrad ? k.preNodes : k.postNodes;
}

RegionTime regionTime(const Attribution& a, const GraphTimes* times, const RegionNodes& r,
                      const std::string& selector)
{
    RegionTime out{r.id, r.name, selector, r.nodes.size()};
    const std::set<std::string> inside(r.nodes.begin(), r.nodes.end());
    std::set<std::size_t> kernels;
    for (const auto& n : r.nodes) {
        const auto it = times ? times->nodes.find(n) : std::map<std::string, NodeTime>::
                                                            const_iterator();
        if (!times || it == times->nodes.end()) {
            out.unmatched.push_back(n);
            continue;
        }
        ++out.matchedNodes;
        out.us += it->second.us;
        kernels.insert(it->second.kernels.begin(), it->second.kernels.end());
    }
    for (const auto k : kernels) {
        const KernelRow& row = a.kernels[k];
        out.kernels.push_back(k);
        out.launches += row.launches;
        const auto& nodes = nodesOf(row, *times);
        const bool outside = std::any_of(nodes.begin(), nodes.end(), [&](const std::string& n) {
            return inside.count(n) == 0;
        });
        out.sharedKernels += outside ? 1 : 0;
    }
    out.share = a.totalKernelUs > 0 ? out.us / a.totalKernelUs : 0;
    return out;
}

} // namespace

std::vector<RegionTime> regionTimes(const Attribution& attribution, const GraphTimes* times,
                                    const std::vector<RegionNodes>& regions,
                                    const std::string& graphSelector)
{
    std::vector<RegionTime> out;
    out.reserve(regions.size());
    for (const auto& r : regions) {
        out.push_back(regionTime(attribution, times, r, graphSelector));
    }
    return out;
}

} // namespace fxs::runtime
