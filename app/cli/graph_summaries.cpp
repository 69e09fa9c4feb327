#include "app/cli/graph_summaries.h"

#include "core/graph/subgraphs.h"
#include "core/io/torch_trace_reader.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <map>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace fxs::cli {

using nlohmann::json;

namespace {

json countsJson(const graph::Graph& g)
{
    json ops = json::object();
    for (const auto& [target, n] : g.opHistogram()) {
        ops[target] = n;
    }
    json subgraphs = json::array();
    for (const auto& s : graph::listSubgraphs(g)) {
        subgraphs.push_back({{"name", s.name},
                             {"hop", s.hop.empty() ? json() : json(s.hop)},
                             {"nodes", s.graph->size()},
                             {"calls", s.calls()},
                             {"parent", s.parent.empty() ? json() : json(s.parent)}});
    }
    return {{"nodes", g.size()},
            {"call_function_nodes", g.countOf(graph::OpKind::CallFunction)},
            {"placeholders", g.placeholders().size()},
            {"outputs", g.countOf(graph::OpKind::Output)},
            {"ops", std::move(ops)},
            {"subgraphs", std::move(subgraphs)}};
}

GraphSummary emptySummary()
{
    return {{{"nodes", 0},
             {"call_function_nodes", 0},
             {"placeholders", 0},
             {"outputs", 0},
             {"ops", json::object()},
             {"subgraphs", json::array()}},
            false};
}

std::string_view codeOf(const model::GraphArtifact& g)
{
    const auto& c = g.code;
    return c.empty() || c.offset > c.buffer->size()
               ? std::string_view()
               : std::string_view(*c.buffer).substr(c.offset, c.length);
}

struct Job {
    const model::GraphArtifact* graph = nullptr;
    std::size_t sameAs = SIZE_MAX; // an earlier job with byte-identical code
    GraphSummary summary;
    Diagnostics diagnostics;
};

void runJob(Job& job)
{
    const auto& g = *job.graph;
    // The artifact's own deferred parse would keep the IR for the run's life: the code is
    // parsed afresh unless the artifact has parsed it already.
    const model::DeferredGraph::Parsed* parsed = g.deferred ? g.deferred->ifParsed() : nullptr;
    std::shared_ptr<const model::DeferredGraph> own;
    if (!parsed) {
        own = g.code.empty() ? g.deferred : io::deferParse(g.code, g.file);
        parsed = &own->get();
    }
    job.summary = parsed->graph ? GraphSummary{countsJson(*parsed->graph), true} : emptySummary();
    job.diagnostics = parsed->diagnostics;
}

// Appends each graph's parser problems and sorts every file's problems by line, keeping the
// order of problems without a line (a file's closing summaries) and of files.
void mergeDiagnostics(Diagnostics& into, std::vector<Job>& jobs)
{
    bool any = false;
    for (const auto& job : jobs) {
        any = any || !job.diagnostics.empty();
    }
    if (!any) {
        return;
    }
    std::vector<Diagnostic> items = into.items();
    for (const auto& job : jobs) {
        items.insert(items.end(), job.diagnostics.items().begin(), job.diagnostics.items().end());
    }
    std::map<std::string, std::size_t> fileOrder;
    for (const auto& d : items) {
        fileOrder.emplace(d.file, fileOrder.size());
    }
    std::stable_sort(items.begin(), items.end(), [&](const Diagnostic& a, const Diagnostic& b) {
        const auto fa = fileOrder[a.file], fb = fileOrder[b.file];
        if (fa != fb) {
            return fa < fb;
        }
        const int la = a.line > 0 ? a.line : INT_MAX, lb = b.line > 0 ? b.line : INT_MAX;
        return la < lb;
    });
    Diagnostics merged;
    for (auto& d : items) {
        merged.add(std::move(d));
    }
    into = std::move(merged);
}

} // namespace

std::vector<GraphSummary> summariseGraphs(io::LoadResult& result)
{
    std::vector<const model::GraphArtifact*> graphs;
    for (const auto& run : result.runs) {
        for (const auto& g : run.graphs) {
            graphs.push_back(&g);
        }
    }
    for (const auto& g : result.graphs) {
        graphs.push_back(&g);
    }
    std::vector<Job> jobs(graphs.size());
    std::vector<std::size_t> toParse;
    std::unordered_map<std::string_view, std::size_t> firstWithCode;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        jobs[i].graph = graphs[i];
        const auto* g = graphs[i];
        if (g->graph) {
            jobs[i].summary = {countsJson(*g->graph), true};
            continue;
        }
        const std::string_view code = codeOf(*g);
        if (code.empty()) {
            if (g->deferred) {
                toParse.push_back(i);
            } else {
                jobs[i].summary = emptySummary();
            }
            continue;
        }
        const auto [at, inserted] = firstWithCode.emplace(code, i);
        if (inserted) {
            toParse.push_back(i);
        } else {
            jobs[i].sameAs = at->second;
        }
    }
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t k; (k = next++) < toParse.size();) {
            runJob(jobs[toParse[k]]);
        }
    };
    const std::size_t threads =
        std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), toParse.size());
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) {
        pool.emplace_back(worker);
    }
    worker();
    for (auto& t : pool) {
        t.join();
    }
    for (auto& job : jobs) {
        if (job.sameAs == SIZE_MAX) {
            continue;
        }
        const Job& first = jobs[job.sameAs];
        if (first.diagnostics.empty()) {
            job.summary = first.summary;
        } else {
            runJob(job); // its problems name its own lines
        }
    }
    mergeDiagnostics(result.diagnostics, jobs);
    std::vector<GraphSummary> out;
    out.reserve(jobs.size());
    for (auto& job : jobs) {
        out.push_back(std::move(job.summary));
    }
    return out;
}

} // namespace fxs::cli
