// The sums of the kernel join: rows per call site (or per kernel and op outside compiled
// graphs), post-grad nodes, modules, graphs, and the cross-checks.
#include "core/runtime/attribution_internal.h"
#include "core/runtime/launch_context.h"
#include "core/structure/structure.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace fxs::runtime {

namespace {

struct RowAcc {
    KernelRow row;
    const CompiledGraph* graph = nullptr;
    const CallSite* site = nullptr;
    std::map<std::string, double> nameUs;
    std::set<std::int64_t> calls;
};

void appendUnique(std::vector<std::string>& to, const std::string& s)
{
    if (std::find(to.begin(), to.end(), s) == to.end()) {
        to.push_back(s);
    }
}

void finishRow(RowAcc& a, const RunProvenance& prov)
{
    std::vector<std::pair<double, std::string>> names;
    for (const auto& [n, us] : a.nameUs) {
        names.emplace_back(-us, n);
    }
    std::sort(names.begin(), names.end());
    for (const auto& [us, n] : names) {
        a.row.name += (a.row.name.empty() ? "" : " + ") + n;
    }
    if (!a.site) {
        a.row.calls = a.row.launches;
        return;
    }
    a.row.calls = static_cast<std::int64_t>(a.calls.size());
    a.row.postNodes = a.site->postNodes;
    a.row.split = a.row.postNodes.size() > 1;
    for (const auto& post : a.row.postNodes) {
        if (auto it = a.graph->postToPre.find(post); it != a.graph->postToPre.end()) {
            for (const auto& pre : it->second) {
                appendUnique(a.row.preNodes, pre);
            }
        }
    }
    if (a.site->triton) {
        if (auto it = prov.tritonInfo.find(a.site->name); it != prov.tritonInfo.end()) {
            a.row.autotune = it->second.autotuneState;
            a.row.compileTimeUs = it->second.compileTimeUs;
        }
        if (a.graph->postGrad) {
            a.row.bytes = bytesMoved(*a.graph->postGrad, a.row.postNodes);
        }
    } else if (a.graph->postGrad) {
        a.row.flops = flopsOf(*a.graph->postGrad, a.row.postNodes);
    }
}

} // namespace

void sumKernelRows(const ProfileTrace& trace, const RunProvenance& prov,
                   const std::vector<std::size_t>& kernels, const std::vector<Placement>& where,
                   Attribution& out)
{
    std::map<std::string, RowAcc> rows;
    std::map<std::string, Unattributed> lost;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        const auto& e = trace.events[kernels[k]];
        const auto& p = where[k];
        out.totalKernelUs += e.dur;
        if (!p.unattributed.empty()) {
            auto& u = lost[p.unattributed];
            u.reason = p.unattributed;
            u.us += e.dur;
            ++u.kernels;
            continue;
        }
        const std::string id = p.graph ? p.graph->key + "|" + std::to_string(p.site)
                                       : "op|" + p.op + "|" + trace.nameOf(e);
        auto& a = rows[id];
        if (a.row.launches == 0) {
            a.graph = p.graph;
            a.site = p.graph ? p.graph->site(p.site) : nullptr;
            a.row.graph = p.graph ? p.graph->key : "";
            a.row.handle = a.site ? a.site->handle() : "";
            a.row.op = p.op;
        }
        ++a.row.launches;
        a.row.us += e.dur;
        a.nameUs[trace.nameOf(e)] += e.dur;
        a.calls.insert(p.call);
        out.attributedUs += e.dur;
    }
    for (auto& [id, a] : rows) {
        finishRow(a, prov);
        out.kernels.push_back(std::move(a.row));
    }
    std::stable_sort(out.kernels.begin(), out.kernels.end(),
                     [](const KernelRow& a, const KernelRow& b) { return a.us > b.us; });
    for (auto& r : out.kernels) {
        r.share = out.totalKernelUs > 0 ? r.us / out.totalKernelUs : 0;
    }
    for (auto& [reason, u] : lost) {
        out.unattributed.push_back(std::move(u));
    }
}

namespace {

// Module path per pre-grad node name of one graph, from its module tree.
std::map<std::string, std::string> modulePaths(const CompiledGraph& g)
{
    std::map<std::string, std::string> out;
    if (!g.preGrad) {
        return out;
    }
    auto tree = structure::recoverStructure(*g.preGrad);
    if (!tree) {
        return out;
    }
    const auto& nodes = g.preGrad->nodes();
    for (std::size_t i = 0; i < nodes.size() && i < tree->moduleOf.size(); ++i) {
        const auto m = tree->moduleOf[i];
        if (m != structure::kNoModule && !tree->modules[m].path.empty()) {
            out[nodes[i].name] = tree->modules[m].path;
        }
    }
    return out;
}

void addToModule(std::map<std::string, ModuleRow>& modules, const std::string& path, double us,
                 const std::string& handle)
{
    std::string p = path;
    for (;;) { // the module and each module holding it
        auto& m = modules[p];
        m.path = p;
        m.us += us;
        appendUnique(m.kernels, handle);
        const auto dot = p.rfind('.');
        if (dot == std::string::npos) {
            break;
        }
        p.resize(dot);
    }
}

} // namespace

void sumNodesAndModules(const RunProvenance& prov, Attribution& out)
{
    std::map<std::string, std::map<std::string, std::string>> paths; // graph → pre node → path
    std::map<std::pair<std::string, std::string>, NodeRow> nodes;
    std::map<std::string, ModuleRow> modules;
    for (auto& r : out.kernels) {
        if (r.graph.empty() || r.postNodes.empty()) {
            continue;
        }
        const auto* g = prov.find(r.graph);
        if (!paths.count(r.graph)) {
            paths[r.graph] = modulePaths(*g);
        }
        const auto& pathOf = paths[r.graph];
        const double each = r.us / static_cast<double>(r.postNodes.size());
        for (const auto& post : r.postNodes) {
            auto& n = nodes[{r.graph, post}];
            n.graph = r.graph;
            n.name = post;
            n.us += each;
            n.shared = n.shared || r.split;
            appendUnique(n.kernels, r.handle);
            const auto it = g->postToPre.find(post);
            if (it == g->postToPre.end() || it->second.empty()) {
                continue;
            }
            n.preNodes = it->second;
            const double perPre = each / static_cast<double>(it->second.size());
            for (const auto& pre : it->second) {
                if (auto p = pathOf.find(pre); p != pathOf.end()) {
                    appendUnique(r.modules, p->second);
                    addToModule(modules, p->second, perPre, r.handle);
                }
            }
        }
    }
    for (auto& [id, n] : nodes) {
        out.nodes.push_back(std::move(n));
    }
    std::stable_sort(out.nodes.begin(), out.nodes.end(),
                     [](const NodeRow& a, const NodeRow& b) { return a.us > b.us; });
    for (auto& [path, m] : modules) {
        m.share = out.totalKernelUs > 0 ? m.us / out.totalKernelUs : 0;
        out.modules.push_back(std::move(m));
    }
    std::stable_sort(out.modules.begin(), out.modules.end(),
                     [](const ModuleRow& a, const ModuleRow& b) { return a.us > b.us; });
}

void describeGraphs(const ProfileTrace& trace, const RunProvenance& prov, const LaunchIndex& index,
                    Attribution& out)
{
    std::map<std::string, std::int64_t> calls;
    for (const auto& c : index.calls()) {
        ++calls[std::string(compiledGraphKey(trace.nameOf(trace.events[c.annotation])))];
    }
    for (const auto& [key, n] : calls) {
        GraphRow row;
        row.key = key;
        row.calls = n;
        if (const auto* g = prov.find(key)) {
            row.compileId = g->compileId.toString();
            row.kind = g->kind;
            row.postNodesFrom = g->postNodesFrom;
            row.notes = g->notes;
        } else {
            row.notes.push_back("not in the TORCH_TRACE log: its kernels are unattributed");
        }
        for (const auto& r : out.kernels) {
            if (r.graph == key) {
                row.us += r.us;
            }
        }
        out.graphs.push_back(std::move(row));
    }
}

void runChecks(const ProfileTrace&, const RunProvenance& prov, const std::vector<std::size_t>&,
               const std::vector<Placement>&, Attribution& out)
{
    double lost = 0;
    for (const auto& u : out.unattributed) {
        lost += u.us;
    }
    out.sumCheckOk = std::abs(out.attributedUs + lost - out.totalKernelUs) <=
                     0.001 * std::max(out.totalKernelUs, 1e-9);
    for (const auto& row : out.graphs) {
        const auto* g = prov.find(row.key);
        if (!g) {
            continue;
        }
        for (const auto& s : g->sites) {
            if (s.triton && s.postNodes.empty()) {
                out.tritonWithoutNodes.push_back(g->key + " " + s.handle());
            }
        }
    }
}

} // namespace fxs::runtime
