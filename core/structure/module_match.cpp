// Glob patterns over module paths and one module across the graphs of a compile.
#include "core/structure/module_match.h"

#include <algorithm>

namespace fxs::structure {

namespace {

std::vector<std::string_view> components(std::string_view s)
{
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t dot = s.find('.', start);
        out.push_back(s.substr(start, dot == std::string_view::npos ? dot : dot - start));
        if (dot == std::string_view::npos) {
            return out;
        }
        start = dot + 1;
    }
}

// `*` and `?` within one component (iterative glob with backtracking to the last star).
bool matchComponent(std::string_view p, std::string_view s)
{
    std::size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
    while (si < s.size()) {
        if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
            ++pi;
            ++si;
        } else if (pi < p.size() && p[pi] == '*') {
            star = pi++;
            mark = si;
        } else if (star != std::string_view::npos) {
            pi = star + 1;
            si = ++mark;
        } else {
            return false;
        }
    }
    while (pi < p.size() && p[pi] == '*') {
        ++pi;
    }
    return pi == p.size();
}

// Pattern components p[i..] against path components s[j..]; `**` spans zero or more.
bool matchFrom(const std::vector<std::string_view>& p, std::size_t i,
               const std::vector<std::string_view>& s, std::size_t j)
{
    if (i == p.size()) {
        return j == s.size();
    }
    if (p[i] == "**") {
        for (std::size_t k = j; k <= s.size(); ++k) {
            if (matchFrom(p, i + 1, s, k)) {
                return true;
            }
        }
        return false;
    }
    return j < s.size() && matchComponent(p[i], s[j]) && matchFrom(p, i + 1, s, j + 1);
}

} // namespace

Result<void> checkModulePattern(std::string_view pattern)
{
    if (pattern.empty()) {
        return makeError(ErrorCode::Invalid, "empty module pattern");
    }
    for (std::string_view c : components(pattern)) {
        if (c.empty()) {
            return makeError(ErrorCode::Invalid,
                             "module pattern '" + std::string(pattern) +
                                 "' has an empty component (expected e.g. layers.*.mlp)");
        }
    }
    return {};
}

bool matchesModulePattern(std::string_view pattern, std::string_view path)
{
    if (!checkModulePattern(pattern) || path.empty()) {
        return false;
    }
    const auto p = components(pattern);
    const auto s = components(path);
    // Anchored at the end: the pattern may match the path's last components.
    for (std::size_t j = 0; j < s.size(); ++j) {
        if (matchFrom(p, 0, s, j)) {
            return true;
        }
    }
    return false;
}

Result<std::vector<ModuleId>> modulesMatching(const ModuleTree& tree, std::string_view pattern,
                                              bool outermostOnly)
{
    if (auto ok = checkModulePattern(pattern); !ok) {
        return ok.error();
    }
    std::vector<ModuleId> out;
    for (ModuleId m = 0; m < tree.modules.size(); ++m) {
        if (!matchesModulePattern(pattern, tree.modules[m].path)) {
            continue;
        }
        const bool inside = outermostOnly && std::any_of(out.begin(), out.end(), [&](ModuleId a) {
            return tree.isWithin(m, a);
        });
        if (!inside) {
            out.push_back(m);
        }
    }
    return out;
}

Result<std::vector<ModuleNodes>> moduleNodesMatching(const graph::Graph& graph,
                                                     const ModuleTree& tree,
                                                     std::string_view pattern)
{
    auto matches = modulesMatching(tree, pattern, true);
    if (!matches) {
        return matches.error();
    }
    std::vector<ModuleNodes> out;
    for (ModuleId m : *matches) {
        ModuleNodes entry{tree.module(m).path, {}};
        for (graph::NodeId id : tree.nodesOf(m)) {
            const graph::Node& n = graph.node(id);
            if (n.op != graph::OpKind::Placeholder && n.op != graph::OpKind::GetAttr &&
                !n.isOutput()) {
                entry.nodes.push_back(id);
            }
        }
        if (!entry.nodes.empty()) {
            out.push_back(std::move(entry));
        }
    }
    return out;
}

Result<std::vector<ModuleInGraph>> moduleAcrossCompile(const model::Run& run,
                                                       std::size_t graphIndex,
                                                       std::string_view path,
                                                       const StructureOptions& options,
                                                       const CancelToken& cancel)
{
    if (graphIndex >= run.graphs.size() || !run.graphs[graphIndex].parsedGraph()) {
        return makeError(ErrorCode::Invalid, "no parsed graph at index " + std::to_string(graphIndex),
                         run.path);
    }
    const model::GraphArtifact& self = run.graphs[graphIndex];
    std::vector<ModuleInGraph> out;
    for (std::size_t k = 0; k < run.graphs.size(); ++k) {
        const model::GraphArtifact& g = run.graphs[k];
        if (g.compileId != self.compileId || g.rank != self.rank || !g.parsedGraph()) {
            continue;
        }
        auto tree = recoverRunGraphStructure(run, k, options, cancel);
        if (!tree) {
            return tree.error();
        }
        ModuleInGraph entry{k, {}};
        if (const auto m = tree->find(path)) {
            entry.nodes = tree->nodesOf(*m);
        }
        out.push_back(std::move(entry));
    }
    return out;
}

} // namespace fxs::structure
