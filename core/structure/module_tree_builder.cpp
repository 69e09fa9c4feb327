#include "core/structure/module_tree_builder.h"

#include "core/structure/module_path.h"
#include "core/structure/repeated_blocks.h"
#include "core/structure/structural_hash.h"

#include <algorithm>
#include <numeric>

namespace fxs::structure {

ModuleTreeBuilder::ModuleTreeBuilder(const graph::Graph& graph)
    : m_graph(graph), m_moduleOf(graph.size(), kNoModule)
{
}

ModuleId ModuleTreeBuilder::moduleFor(std::string_view path)
{
    if (path.empty()) {
        return kNoModule;
    }
    if (const auto it = m_byPath.find(path); it != m_byPath.end()) {
        return it->second;
    }
    const ModuleId parent = moduleFor(parentPath(path));
    const auto id = static_cast<ModuleId>(m_modules.size());
    m_modules.push_back({std::string(path), parent, parent == kNoModule ? 0 : depth(parent) + 1});
    m_byPath.emplace(std::string(path), id);
    return id;
}

ModuleId ModuleTreeBuilder::commonAncestor(ModuleId a, ModuleId b) const
{
    if (a == kNoModule || b == kNoModule) {
        return kNoModule;
    }
    while (depth(a) > depth(b)) {
        a = parent(a);
    }
    while (depth(b) > depth(a)) {
        b = parent(b);
    }
    while (a != b) {
        a = parent(a);
        b = parent(b);
    }
    return a;
}

bool ModuleTreeBuilder::isWithin(ModuleId m, ModuleId ancestor) const
{
    if (m == kNoModule || ancestor == kNoModule) {
        return false;
    }
    while (depth(m) > depth(ancestor)) {
        m = parent(m);
    }
    return m == ancestor;
}

void ModuleTreeBuilder::addInput(graph::NodeId node, const std::string& path,
                                 std::string_view ownerPath, MatchStrength strength)
{
    const ModuleId owner = moduleFor(ownerPath);
    m_inputs.push_back({node, path, owner, strength});
    assign(node, owner);
}

namespace {

// Modules in preorder, siblings (and roots) in order of their first node; empty ones dropped.
std::vector<ModuleId> preorder(const std::vector<ModuleId>& parents,
                               const std::vector<graph::NodeId>& firstNode,
                               const std::vector<std::size_t>& total)
{
    std::vector<std::vector<ModuleId>> kids(parents.size() + 1);
    std::vector<ModuleId> ids(parents.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::stable_sort(ids.begin(), ids.end(),
                     [&](ModuleId a, ModuleId b) { return firstNode[a] < firstNode[b]; });
    for (ModuleId m : ids) {
        if (total[m] > 0) {
            kids[parents[m] == kNoModule ? parents.size() : parents[m]].push_back(m);
        }
    }
    std::vector<ModuleId> order;
    std::vector<ModuleId> stack(kids.back().rbegin(), kids.back().rend());
    while (!stack.empty()) {
        const ModuleId m = stack.back();
        stack.pop_back();
        order.push_back(m);
        stack.insert(stack.end(), kids[m].rbegin(), kids[m].rend());
    }
    return order;
}

} // namespace

ModuleTree ModuleTreeBuilder::finish(Source source, MatchStrength strength)
{
    const std::size_t n = m_modules.size();
    std::vector<ModuleId> parents(n);
    std::vector<std::size_t> total(n, 0);
    std::vector<graph::NodeId> firstNode(n, graph::kNoNode);
    for (ModuleId m = 0; m < n; ++m) {
        parents[m] = m_modules[m].parent;
    }
    // Order by the first node that computes something: inputs all sit at the top of a graph,
    // in an order (forward's, in a backward graph) that says little about where a module runs.
    std::vector<graph::NodeId> firstInput(n, graph::kNoNode);
    for (graph::NodeId id = 0; id < m_moduleOf.size(); ++id) {
        const bool input = m_graph.node(id).isPlaceholder();
        for (ModuleId m = m_moduleOf[id]; m != kNoModule; m = parents[m]) {
            ++total[m];
            auto& first = input ? firstInput[m] : firstNode[m];
            first = std::min(first, id);
        }
    }
    for (ModuleId m = 0; m < n; ++m) {
        firstNode[m] = firstNode[m] == graph::kNoNode ? firstInput[m] : firstNode[m];
    }
    const std::vector<ModuleId> order = preorder(parents, firstNode, total);
    std::vector<ModuleId> remap(n, kNoModule);
    for (std::size_t k = 0; k < order.size(); ++k) {
        remap[order[k]] = static_cast<ModuleId>(k);
    }
    ModuleTree tree;
    tree.source = source;
    tree.strength = strength;
    tree.modules.resize(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        const Pending& p = m_modules[order[k]];
        Module& out = tree.modules[k];
        out.path = p.path;
        out.depth = p.depth;
        out.totalNodes = total[order[k]];
        out.parent = p.parent == kNoModule ? kNoModule : remap[p.parent];
        (out.parent == kNoModule ? tree.roots : tree.modules[out.parent].children)
            .push_back(static_cast<ModuleId>(k));
    }
    tree.moduleOf.assign(m_moduleOf.size(), kNoModule);
    for (graph::NodeId id = 0; id < m_moduleOf.size(); ++id) {
        const ModuleId m = m_moduleOf[id] == kNoModule ? kNoModule : remap[m_moduleOf[id]];
        tree.moduleOf[id] = m;
        if (m == kNoModule) {
            ++tree.unassigned;
        } else {
            tree.modules[m].nodes.push_back(id);
        }
    }
    for (const auto& in : m_inputs) {
        tree.inputs.push_back(in);
        tree.inputs.back().module = in.module == kNoModule ? kNoModule : remap[in.module];
    }
    std::sort(tree.inputs.begin(), tree.inputs.end(),
              [](const InputPath& a, const InputPath& b) { return a.node < b.node; });
    tree.notes = std::move(m_notes);
    const std::vector<std::uint64_t> signatures = nodeSignatures(m_graph);
    for (ModuleId m = 0; m < tree.modules.size(); ++m) {
        const auto nodes = tree.nodesOf(m);
        tree.modules[m].hash = structuralHash(m_graph, nodes, signatures);
    }
    markIdenticalModules(tree);
    tree.repeatedBlocks = repeatedBlocksOf(tree);
    return tree;
}

} // namespace fxs::structure
