#include "core/runtime/graph_times.h"

#include "core/model/lookup_graphs.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace fxs::runtime {

namespace {

std::string_view aotKindFor(std::string_view kind)
{
    return kind == "forward"     ? "aot_forward_graph"
           : kind == "backward"  ? "aot_backward_graph"
           : kind == "inference" ? "aot_inference_graph"
                                 : "";
}

void addTime(std::map<std::string, NodeTime>& nodes, const std::string& name, double us,
             std::size_t kernel)
{
    NodeTime& n = nodes[name];
    n.us += us;
    if (n.kernels.empty() || n.kernels.back() != kernel) {
        n.kernels.push_back(kernel);
    }
}

// One compiled graph's kernel time by post-grad node and by pre-grad node.
struct SplitTimes {
    std::map<std::string, NodeTime> post;
    std::map<std::string, NodeTime> pre;
};

SplitTimes splitTimes(const Attribution& a, const CompiledGraph& g)
{
    SplitTimes out;
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        const KernelRow& r = a.kernels[i];
        if (r.graph != g.key || r.postNodes.empty()) {
            continue;
        }
        const double each = r.us / static_cast<double>(r.postNodes.size());
        for (const auto& post : r.postNodes) {
            addTime(out.post, post, each, i);
            const auto it = g.postToPre.find(post);
            if (it == g.postToPre.end() || it->second.empty()) {
                continue;
            }
            const double perPre = each / static_cast<double>(it->second.size());
            for (const auto& pre : it->second) {
                addTime(out.pre, pre, perPre, i);
            }
        }
    }
    return out;
}

// The graphs of the run that g's post-grad node names name: its post-grad graph (the parsed
// one, else the n-th of its compile) and the AOT graph of its kind. fileOut: the post-grad
// graph's file when found by identity (other graphs are then looked for in that file only).
std::vector<std::size_t> postSide(const CompiledGraph& g, const model::Run& run,
                                  std::string* fileOut)
{
    const int ordinal = g.kind == "backward" ? 1 : 0;
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < run.graphs.size() && g.postGrad; ++i) {
        if (run.graphs[i].parsedGraph() == g.postGrad) {
            *fileOut = run.graphs[i].file;
        }
    }
    const auto sameCompile = [&](const model::GraphArtifact& a) {
        return a.compileId == g.compileId && (fileOut->empty() || a.file == *fileOut);
    };
    int postSeen = 0, beforeSeen = 0;
    bool aotFound = false;
    for (std::size_t i = 0; i < run.graphs.size(); ++i) {
        const model::GraphArtifact& a = run.graphs[i];
        if (!sameCompile(a)) {
            continue;
        }
        if (a.kind == "inductor_post_grad_graph") {
            const bool byIdentity = g.postGrad && a.parsedGraph() == g.postGrad;
            if (byIdentity || (!g.postGrad && postSeen == ordinal)) {
                out.push_back(i);
            }
            ++postSeen;
        } else if (a.kind == "before_post_grad_graph") {
            if (beforeSeen++ == ordinal) {
                out.push_back(i);
            }
        } else if (!aotFound && a.kind == aotKindFor(g.kind)) {
            aotFound = true;
            out.push_back(i);
        }
    }
    return out;
}

void mergeInto(GraphTimes& to, const std::map<std::string, NodeTime>& nodes,
               const std::string& key)
{
    if (std::find(to.keys.begin(), to.keys.end(), key) == to.keys.end()) {
        to.keys.push_back(key);
    }
    for (const auto& [name, t] : nodes) {
        NodeTime& n = to.nodes[name];
        n.us += t.us;
        n.kernels.insert(n.kernels.end(), t.kernels.begin(), t.kernels.end());
        std::sort(n.kernels.begin(), n.kernels.end());
        n.kernels.erase(std::unique(n.kernels.begin(), n.kernels.end()), n.kernels.end());
        to.us += t.us;
    }
}

} // namespace

std::vector<GraphTimes> timesByGraph(const Attribution& attribution,
                                     const RunProvenance& provenance, const model::Run& run)
{
    std::map<std::size_t, GraphTimes> byArtifact;
    for (const CompiledGraph& g : provenance.graphs) {
        const SplitTimes times = splitTimes(attribution, g);
        if (times.post.empty()) {
            continue;
        }
        std::string file;
        for (const std::size_t i : postSide(g, run, &file)) {
            GraphTimes& t = byArtifact[i];
            t.artifact = i;
            mergeInto(t, times.post, g.key);
        }
        for (std::size_t i = 0; i < run.graphs.size() && !times.pre.empty(); ++i) {
            const model::GraphArtifact& a = run.graphs[i];
            if (a.compileId == g.compileId && (file.empty() || a.file == file) &&
                model::isPreGradKind(a.kind)) {
                GraphTimes& t = byArtifact[i];
                t.artifact = i;
                t.preGrad = true;
                mergeInto(t, times.pre, g.key);
            }
        }
    }
    std::vector<GraphTimes> out;
    for (auto& [i, t] : byArtifact) {
        out.push_back(std::move(t));
    }
    return out;
}

std::size_t knownGraphKeys(const ProfileTrace& trace, const model::Run& run)
{
    std::set<std::string_view> called;
    for (const TraceEvent& e : trace.events) {
        if (e.kind == EventKind::Annotation) {
            if (const auto key = compiledGraphKey(trace.nameOf(e)); !key.empty()) {
                called.insert(key);
            }
        }
    }
    std::set<std::string_view> known;
    for (const model::CacheLookup& l : run.lookups) {
        if (l.cache == model::CacheKind::FxGraph && l.key && called.count(*l.key) > 0) {
            known.insert(*l.key);
        }
    }
    return known.size();
}

} // namespace fxs::runtime
