#include "app/cli/region_source.h"

#include "core/partition/auto_proposal.h"
#include "core/partition/partitioner.h"
#include "core/partition/project_file.h"

#include <iostream>

namespace fxs::cli {

Result<std::vector<partition::Region>> regionsFromSource(const graph::Graph& g,
                                                         const std::string& graphText,
                                                         const std::string& project,
                                                         bool autoRegions,
                                                         std::string_view command,
                                                         std::vector<std::string> keepOut)
{
    if (!project.empty()) {
        auto p = partition::loadProject(project);
        if (!p) {
            return p.error();
        }
        auto m = partition::rematchProject(*p, g, graphText);
        for (const auto& u : m.missingNodes) {
            std::cerr << "fxscope-cli " << command << ": region " << u.region << ": node "
                      << u.node << " is not in the graph\n";
        }
        return m.regions;
    }
    if (autoRegions) {
        partition::ProposalOptions po;
        po.excludedNodes = std::move(keepOut);
        return partition::proposeRegions(g, po).regions;
    }
    return partition::partitionByAnnotation(g).regions;
}

} // namespace fxs::cli
