#include "core/partition/partitioner.h"

#include "core/partition/python_literal.h"
#include "core/partition/region_former.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

namespace fxs::partition {

using graph::Graph;
using graph::NodeId;

std::vector<SplitNote> splitNotes(const Graph& graph, const std::vector<Region>& regions,
                                  const FormedRegions& formed)
{
    std::vector<SplitNote> notes;
    std::set<std::pair<int, int>> seen;
    const std::vector<int> index = regionIndexOfNodes(graph, regions);
    for (const auto& refusal : formed.refusals) {
        const auto key = std::minmax(refusal.into, refusal.other);
        if (!seen.insert(key).second) {
            continue;
        }
        SplitNote note;
        note.regionA = regions[refusal.into].id;
        note.regionB = regions[refusal.other].id;
        note.path = refusal.path;
        const std::string path = describePath(graph, refusal.path, regions, index);
        const std::string who = refusal.node != graph::kNoNode
                                    ? "'" + graph.node(refusal.node).name + "' cannot join " +
                                          note.regionA
                                    : note.regionB + " cannot merge into " + note.regionA;
        note.message = who + ": the path " + path + " leaves " + note.regionA +
                       " and comes back, so one region would form a cycle";
        notes.push_back(std::move(note));
    }
    return notes;
}

namespace {

// Group per distinct value of the key; -1 for nodes without it.
std::vector<int> annotationGroups(const Graph& graph, const std::string& key,
                                  std::vector<std::string>& valueOfGroup)
{
    std::vector<int> groupOf(graph.size(), -1);
    std::map<std::string, int> groups;
    for (const auto& node : graph.nodes()) {
        if (!node.annotation || node.isPlaceholder() || node.isOutput()) {
            continue;
        }
        const auto value = annotationValueJson(*node.annotation, key);
        if (!value) {
            continue;
        }
        const auto [it, added] = groups.emplace(*value, static_cast<int>(groups.size()));
        if (added) {
            valueOfGroup.push_back(*value);
        }
        groupOf[node.id] = it->second;
    }
    return groupOf;
}

Region makeAnnotatedRegion(const Graph& graph, std::vector<NodeId> nodes, std::size_t index,
                           const std::string& key)
{
    Region region;
    region.id = "r" + std::to_string(index);
    region.nodes = std::move(nodes);
    for (NodeId id : region.nodes) {
        const auto& node = graph.node(id);
        if (node.annotation && annotationValueJson(*node.annotation, key)) {
            region.annotation = annotationToJson(*node.annotation);
            const auto value = parseJsonOrDiscarded(*annotationValueJson(*node.annotation, key));
            if (value.is_object()) {
                region.options = dumpJson(value);
            }
            break;
        }
    }
    computeRegionStats(graph, region);
    return region;
}

} // namespace

Partition partitionByAnnotation(const Graph& graph, const AnnotationOptions& options)
{
    std::vector<std::string> values;
    const auto groupOf = annotationGroups(graph, options.key, values);
    const FormedRegions formed = formRegions(graph, groupOf);

    Partition out;
    for (std::size_t i = 0; i < formed.regions.size(); ++i) {
        out.regions.push_back(makeAnnotatedRegion(graph, formed.regions[i], i, options.key));
    }
    std::vector<char> inside(graph.size(), 0);
    for (const auto& r : out.regions) {
        for (NodeId id : r.nodes) {
            inside[id] = 1;
        }
    }
    for (const auto& node : graph.nodes()) {
        if (inside[node.id] || node.isPlaceholder() || node.isOutput()) {
            continue;
        }
        Exclusion ex;
        ex.node = node.id;
        if (groupOf[node.id] >= 0 && node.getitemOf != graph::kNoNode) {
            ex.reason = ExclusionReason::TupleOutside;
            ex.message = "annotated, but it unpacks '" + graph.node(node.getitemOf).name +
                         "', which is not annotated; a getitem stays with its producer";
        } else {
            ex.reason = ExclusionReason::NotAnnotated;
            ex.message = "not annotated with '" + options.key + "'";
        }
        out.excluded.push_back(std::move(ex));
    }
    out.splits = splitNotes(graph, out.regions, formed);
    return out;
}

} // namespace fxs::partition
