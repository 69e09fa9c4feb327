// Eager time per module: each profiled node adds to its module and that module's ancestors;
// compiled regions add to the deepest module holding them and its ancestors; identical modules
// (followed through Module::identicalTo to the first of them) form groups.
#include "core/profile/module_profile.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>

namespace fxs::profile {
namespace {

constexpr std::size_t kAbsent = std::numeric_limits<std::size_t>::max();

double compiledMedian(const RegionProfile& r)
{
    return r.compiled.medianMs > 0 ? r.compiled.medianMs : r.compiledMs.value_or(0.0);
}

void addCompiledRegions(const RuntimeProfile& profile, const graph::Graph& graph,
                        const structure::ModuleTree& tree, std::vector<ModuleProfile>& all)
{
    for (const RegionProfile& r : profile.regions) {
        const double ms = compiledMedian(r);
        if (ms <= 0.0) {
            continue;
        }
        std::vector<graph::NodeId> ids;
        for (const std::string& name : r.nodes) {
            if (const auto id = graph.find(name)) {
                ids.push_back(*id);
            }
        }
        const auto common = tree.commonModule(ids);
        for (structure::ModuleId m = common.value_or(structure::kNoModule);
             m != structure::kNoModule; m = tree.modules[m].parent) {
            all[m].compiledRegions += 1;
            all[m].compiledMs += ms;
            all[m].compiledEagerMs += r.eager.medianMs;
            all[m].compiledNodes += r.nodes.size();
        }
    }
}

std::vector<std::string> components(const std::string& path)
{
    std::vector<std::string> out(1);
    for (char c : path) {
        if (c == '.') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

bool isIndex(const std::string& s)
{
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

structure::ModuleId firstIdentical(const structure::ModuleTree& tree, structure::ModuleId m)
{
    // identicalTo points to an earlier module; the bound guards a malformed tree.
    for (std::size_t hops = 0; hops < tree.modules.size(); ++hops) {
        const structure::ModuleId next = tree.modules[m].identicalTo;
        if (next == structure::kNoModule || next >= tree.modules.size()) {
            break;
        }
        m = next;
    }
    return m;
}

// The members' common parent, when it holds nothing but them ("model.layers"), else "".
std::string soleParent(const structure::ModuleTree& tree,
                       const std::vector<structure::ModuleId>& members)
{
    const structure::ModuleId parent = tree.modules[members.front()].parent;
    const bool shared = std::all_of(members.begin(), members.end(), [&](structure::ModuleId m) {
        return tree.modules[m].parent == parent;
    });
    if (!shared || parent == structure::kNoModule ||
        tree.modules[parent].children.size() != members.size()) {
        return {};
    }
    return tree.modules[parent].path;
}

ModuleGroup makeGroup(const structure::ModuleTree& tree,
                      const std::vector<structure::ModuleId>& ids,
                      const std::vector<std::size_t>& indexOf, const ModuleBreakdown& out)
{
    ModuleGroup g;
    std::vector<double> ms;
    std::vector<std::string> paths;
    for (const structure::ModuleId m : ids) {
        const std::size_t i = indexOf[m];
        g.members.push_back(i);
        ms.push_back(out.modules[i].eagerMs);
        paths.push_back(out.modules[i].path);
        if (g.members.size() == 1 || out.modules[i].eagerMs > out.modules[g.slowest].eagerMs) {
            g.slowest = i;
        }
        if (g.members.size() == 1 || out.modules[i].eagerMs < out.modules[g.fastest].eagerMs) {
            g.fastest = i;
        }
    }
    g.eager = timeStat(ms);
    g.label = groupLabel(paths);
    if (g.label.empty()) {
        g.label = paths.front() + " \u2026";
    }
    g.parent = soleParent(tree, ids);
    return g;
}

void addGroups(const structure::ModuleTree& tree, const std::vector<std::size_t>& indexOf,
               ModuleBreakdown& out)
{
    std::vector<structure::ModuleId> order; // first modules, in preorder
    std::map<structure::ModuleId, std::vector<structure::ModuleId>> byFirst;
    for (structure::ModuleId m = 0; m < tree.modules.size(); ++m) {
        if (indexOf[m] == kAbsent) {
            continue;
        }
        const structure::ModuleId first = firstIdentical(tree, m);
        auto& members = byFirst[first];
        if (members.empty()) {
            order.push_back(first);
        }
        members.push_back(m);
    }
    for (const structure::ModuleId first : order) {
        const auto& ids = byFirst[first];
        if (ids.size() < 2) {
            continue;
        }
        out.groups.push_back(makeGroup(tree, ids, indexOf, out));
        for (const std::size_t i : out.groups.back().members) {
            out.modules[i].group = static_cast<int>(out.groups.size() - 1);
        }
    }
}

} // namespace

std::string groupLabel(const std::vector<std::string>& paths)
{
    if (paths.size() < 2) {
        return {};
    }
    const std::vector<std::string> first = components(paths.front());
    const std::vector<std::string> last = components(paths.back());
    std::size_t differing = kAbsent;
    for (const std::string& path : paths) {
        const std::vector<std::string> parts = components(path);
        if (parts.size() != first.size()) {
            return {};
        }
        for (std::size_t k = 0; k < parts.size(); ++k) {
            if (parts[k] == first[k]) {
                continue;
            }
            if ((differing != kAbsent && differing != k) || !isIndex(parts[k]) ||
                !isIndex(first[k])) {
                return {};
            }
            differing = k;
        }
    }
    if (differing == kAbsent) {
        return {};
    }
    std::string label;
    for (std::size_t k = 0; k < first.size(); ++k) {
        label += (k == 0 ? "" : ".") +
                 (k == differing ? first[k] + "\u2013" + last[k] : first[k]);
    }
    return label;
}

ModuleBreakdown profileByModule(const RuntimeProfile& profile, const graph::Graph& graph,
                                const structure::ModuleTree& tree)
{
    std::vector<ModuleProfile> all(tree.modules.size());
    for (std::size_t m = 0; m < tree.modules.size(); ++m) {
        all[m].path = tree.modules[m].path;
        all[m].depth = tree.modules[m].depth;
    }
    ModuleBreakdown out;
    double totalMs = 0.0;
    for (const NodeProfile& n : profile.nodes) {
        totalMs += n.eager.medianMs;
        const auto id = graph.find(n.name);
        structure::ModuleId m = id && *id < tree.moduleOf.size() ? tree.moduleOf[*id]
                                                                 : structure::kNoModule;
        out.nodePaths.push_back(m == structure::kNoModule ? std::string()
                                                           : tree.modules[m].path);
        if (m == structure::kNoModule) {
            ++out.unassignedNodes;
            out.unassignedMs += n.eager.medianMs;
        }
        for (; m != structure::kNoModule; m = tree.modules[m].parent) {
            all[m].nodes += 1;
            all[m].eagerMs += n.eager.medianMs;
            all[m].bytesMoved += n.bytesMoved;
            all[m].flops += n.flops;
        }
    }
    addCompiledRegions(profile, graph, tree, all);
    std::vector<std::size_t> indexOf(all.size(), kAbsent);
    for (std::size_t m = 0; m < all.size(); ++m) {
        if (all[m].nodes == 0) {
            continue;
        }
        all[m].share = totalMs > 0.0 ? all[m].eagerMs / totalMs : 0.0;
        indexOf[m] = out.modules.size();
        out.modules.push_back(std::move(all[m]));
    }
    addGroups(tree, indexOf, out);
    out.unassignedShare = totalMs > 0.0 ? out.unassignedMs / totalMs : 0.0;
    return out;
}

} // namespace fxs::profile
