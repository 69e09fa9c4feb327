#include "core/partition/region_plan.h"

#include "core/util/digest.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

namespace fxs::partition {

using nlohmann::json;

namespace {

json regionValue(const Region& r, std::size_t index, std::string_view key)
{
    if (!r.options.empty()) {
        const json options = parseJsonOrDiscarded(r.options);
        if (options.is_object()) {
            return options;
        }
    }
    if (r.annotation) {
        const json annotation = parseJsonOrDiscarded(*r.annotation);
        if (annotation.is_object() && annotation.contains(std::string(key))) {
            return annotation[std::string(key)];
        }
    }
    return static_cast<std::int64_t>(index);
}

json nodeEntry(const graph::Node& node)
{
    json j = {{"name", node.name}, {"target", node.target}};
    if (node.source.known()) {
        j["file"] = node.source.file;
        j["line"] = node.source.line;
        j["code"] = node.source.code;
    } else {
        j["file"] = nullptr;
        j["line"] = nullptr;
        j["code"] = nullptr;
    }
    return j;
}

} // namespace

std::string makeRegionPlan(const graph::Graph& graph, const std::vector<Region>& regions,
                           const std::string& sourcePath, std::string_view sourceText,
                           std::string_view key)
{
    json out = json::array();
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const Region& r = regions[i];
        json nodes = json::array();
        for (graph::NodeId id : r.nodes) {
            nodes.push_back(nodeEntry(graph.node(id)));
        }
        json annotation = r.annotation ? parseJsonOrDiscarded(*r.annotation) : json();
        json options = r.options.empty() ? json() : parseJsonOrDiscarded(r.options);
        out.push_back({{"id", r.id},
                       {"name", r.name},
                       {"value", regionValue(r, i, key)},
                       {"annotation", annotation.is_discarded() ? json() : annotation},
                       {"options", options.is_discarded() ? json() : options},
                       {"nodes", std::move(nodes)}});
    }
    json plan = {{"format", "fxscope-region-plan"},
                 {"version", kRegionPlanVersion},
                 {"graph",
                  {{"path", sourcePath},
                   {"sha256", toHex(sha256(sourceText))},
                   {"name", graph.name()},
                   {"nodes", graph.size()}}},
                 {"annotation_key", std::string(key)},
                 {"regions", std::move(out)}};
    return dumpJson(plan, 2) + "\n";
}

} // namespace fxs::partition
