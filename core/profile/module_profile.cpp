// Eager time per module: each profiled node adds to its module and that module's ancestors.
#include "core/profile/module_profile.h"

namespace fxs::profile {

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
    for (ModuleProfile& p : all) {
        if (p.nodes == 0) {
            continue;
        }
        p.share = totalMs > 0.0 ? p.eagerMs / totalMs : 0.0;
        out.modules.push_back(std::move(p));
    }
    out.unassignedShare = totalMs > 0.0 ? out.unassignedMs / totalMs : 0.0;
    return out;
}

} // namespace fxs::profile
