#include "core/structure/module_tree.h"

#include <algorithm>

namespace fxs::structure {

std::string_view sourceName(Source s)
{
    switch (s) {
    case Source::None: return "none";
    case Source::Names: return "names";
    case Source::AotMapping: return "aot_mapping";
    case Source::ExportMetadata: return "export_metadata";
    case Source::Repetition: return "repetition";
    }
    return "none";
}

std::string_view matchStrengthName(MatchStrength m)
{
    switch (m) {
    case MatchStrength::Name: return "name";
    case MatchStrength::AotTag: return "aot_tag";
    case MatchStrength::SavedTensor: return "saved_tensor";
    case MatchStrength::Position: return "position";
    }
    return "name";
}

std::string_view Module::name() const
{
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string_view(path)
                                    : std::string_view(path).substr(dot + 1);
}

std::optional<ModuleId> ModuleTree::find(std::string_view path) const
{
    for (ModuleId m = 0; m < modules.size(); ++m) {
        if (modules[m].path == path) {
            return m;
        }
    }
    return std::nullopt;
}

std::string_view ModuleTree::pathOf(graph::NodeId node) const
{
    if (node >= moduleOf.size() || moduleOf[node] == kNoModule) {
        return {};
    }
    return modules[moduleOf[node]].path;
}

std::vector<graph::NodeId> ModuleTree::nodesOf(ModuleId id) const
{
    std::vector<graph::NodeId> out;
    out.reserve(modules.at(id).totalNodes);
    // Preorder: the subtree of id is the contiguous run of modules after it that lie within it.
    for (ModuleId m = id; m < modules.size() && (m == id || isWithin(m, id)); ++m) {
        out.insert(out.end(), modules[m].nodes.begin(), modules[m].nodes.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool ModuleTree::isWithin(ModuleId m, ModuleId a) const
{
    while (m != kNoModule) {
        if (m == a) {
            return true;
        }
        m = modules[m].parent;
    }
    return false;
}

std::optional<ModuleId> ModuleTree::commonModule(const std::vector<graph::NodeId>& nodes) const
{
    std::optional<ModuleId> common;
    for (const graph::NodeId node : nodes) {
        const ModuleId m = node < moduleOf.size() ? moduleOf[node] : kNoModule;
        if (m == kNoModule) {
            continue;
        }
        if (!common) {
            common = m;
            continue;
        }
        ModuleId c = *common;
        while (c != kNoModule && !isWithin(m, c)) {
            c = modules[c].parent;
        }
        if (c == kNoModule) {
            return std::nullopt;
        }
        common = c;
    }
    return common;
}

const InputPath* ModuleTree::inputPath(graph::NodeId node) const
{
    const auto it = std::lower_bound(inputs.begin(), inputs.end(), node,
                                     [](const InputPath& p, graph::NodeId n) { return p.node < n; });
    return it != inputs.end() && it->node == node ? &*it : nullptr;
}

} // namespace fxs::structure
