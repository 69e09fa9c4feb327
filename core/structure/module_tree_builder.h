// Builds a ModuleTree: modules are created by path (ancestors first), nodes are assigned, and
// finish() orders everything, counts nodes, hashes each module's subtree, marks identical
// modules and lists repeated blocks. Used by every recovery source; not thread-safe.
#pragma once

#include "core/structure/module_tree.h"

#include "core/graph/graph.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::structure {

class ModuleTreeBuilder {
public:
    explicit ModuleTreeBuilder(const graph::Graph& graph);

    // The module with this path, created (with its ancestors) when new. "" -> kNoModule.
    ModuleId moduleFor(std::string_view path);
    std::size_t moduleCount() const { return m_modules.size(); }
    const std::string& path(ModuleId m) const { return m_modules[m].path; }
    ModuleId parent(ModuleId m) const { return m_modules[m].parent; }
    int depth(ModuleId m) const { return m_modules[m].depth; }
    // Deepest common ancestor (kNoModule when none, or when either is kNoModule).
    ModuleId commonAncestor(ModuleId a, ModuleId b) const;
    bool isWithin(ModuleId m, ModuleId ancestor) const;

    void assign(graph::NodeId node, ModuleId m) { m_moduleOf[node] = m; }
    ModuleId moduleOf(graph::NodeId node) const { return m_moduleOf[node]; }
    const std::vector<ModuleId>& assignment() const { return m_moduleOf; }

    // Records an input's parameter path and assigns the input to its owner module.
    void addInput(graph::NodeId node, const std::string& path, std::string_view ownerPath,
                  MatchStrength strength);
    const std::vector<InputPath>& inputs() const { return m_inputs; }

    void note(std::string text) { m_notes.push_back(std::move(text)); }

    // The finished tree. Modules that hold no node (directly or below) are dropped.
    ModuleTree finish(Source source, MatchStrength strength);

private:
    struct Pending {
        std::string path;
        ModuleId parent = kNoModule;
        int depth = 0;
    };

    const graph::Graph& m_graph;
    std::vector<Pending> m_modules;
    std::map<std::string, ModuleId, std::less<>> m_byPath;
    std::vector<ModuleId> m_moduleOf;
    std::vector<InputPath> m_inputs;
    std::vector<std::string> m_notes;
};

} // namespace fxs::structure
