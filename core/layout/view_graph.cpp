#include "core/layout/view_graph.h"

#include "core/graph/op_category.h"
#include "core/structure/source_scope.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace fxs::layout {

namespace {

using graph::Node;
using graph::NodeId;

// One level of a node's scope path: equal keys in consecutive nodes share a group.
struct ScopeLevel {
    GroupKind kind;
    std::string key;
    std::string label;
};

std::string baseName(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool graphHasSources(const graph::Graph& g, bool& multiFile)
{
    std::unordered_set<std::string> files;
    for (const Node& n : g.nodes()) {
        if (n.source.known()) {
            files.insert(n.source.file);
        }
    }
    multiFile = files.size() > 1;
    return !files.empty();
}

std::vector<ScopeLevel> scopePath(const Node& n, bool hasSources, bool multiFile)
{
    if (n.isPlaceholder()) {
        return {{GroupKind::Inputs, "\x01inputs", "inputs"}};
    }
    if (n.isOutput()) {
        return {};
    }
    if (!n.source.known()) {
        if (!hasSources) {
            return {};
        }
        return {{GroupKind::NoSource, "\x01nosource", "no stacktrace"}};
    }
    std::vector<ScopeLevel> path;
    const std::string file = baseName(n.source.file);
    if (multiFile) {
        path.push_back({GroupKind::File, n.source.file, file});
    }
    std::string scopeKey = n.source.file + ":" + std::to_string(n.source.line) + ":" +
                           n.source.function;
    std::string label = n.source.function + " · " + file + ":" + std::to_string(n.source.line);
    path.push_back({GroupKind::Scope, std::move(scopeKey), std::move(label)});
    return path;
}

std::string metaShort(const graph::TensorMeta& t)
{
    std::string s(graph::dtypeCode(t.dtype));
    s += '[';
    for (std::size_t i = 0; i < t.sizes.size(); ++i) {
        if (i > 0) {
            s += ", ";
        }
        s += t.sizes[i].toString();
    }
    s += ']';
    return s;
}

} // namespace

ViewGraph::ViewGraph(graph::GraphPtr graph, const GroupingOptions& options)
    : m_graph(std::move(graph))
{
    build(options);
    initState(options);
}

ViewGraph::ViewGraph(graph::GraphPtr graph, std::shared_ptr<const structure::ModuleTree> modules,
                     const GroupingOptions& options)
    : m_graph(std::move(graph))
{
    if (modules && !modules->modules.empty() && modules->moduleOf.size() == m_graph->size()) {
        m_modules = std::move(modules);
        buildFromModules(options);
    } else {
        build(options);
    }
    initState(options);
}

// The ranks the drawing has at the current expansion state: the longest chain of visible
// items, a collapsed group counting once however many of its nodes lie on the chain (graph
// order is topological; an input later in the order, which a well-formed graph has none of,
// is not followed).
std::size_t ViewGraph::drawnRanks() const
{
    const std::size_t groupBase = m_graph->size();
    std::vector<std::size_t> rank(groupBase + m_groups.size(), 0);
    std::vector<std::size_t> itemOf(groupBase);
    std::size_t longest = 0;
    for (NodeId n = 0; n < groupBase; ++n) {
        std::size_t item = n; // the outermost collapsed group around n, else n itself
        for (GroupId g = groupOf(n); g != kRootGroup && g != kNoGroup; g = m_groups[g].parent) {
            if (!m_expanded[g]) {
                item = groupBase + g;
            }
        }
        itemOf[n] = item;
        std::size_t r = rank[item] == 0 ? 1 : rank[item];
        for (NodeId in : m_graph->node(n).inputs) {
            if (in < n) {
                r = std::max(r, rank[itemOf[in]] + (itemOf[in] == item ? 0 : 1));
            }
        }
        rank[item] = r;
        longest = std::max(longest, r);
    }
    return longest;
}

// A graph opens as deep as it stays readable fitted in a window: every group expanded when
// the drawing has at most maxExpandedRanks ranks, else the deepest groups collapsed level by
// level until it has (a graph over collapseAbove nodes opens with every group collapsed). An
// inputs group of more than maxExpandedInputs placeholders stays collapsed (a row of
// parameters wider than any window).
void ViewGraph::initState(const GroupingOptions& options)
{
    const bool collapsed = m_graph->size() > static_cast<std::size_t>(options.collapseAbove);
    m_expanded.assign(m_groups.size(), collapsed ? 0 : 1);
    m_expanded[kRootGroup] = 1;
    for (const Group& g : m_groups) {
        if (g.kind == GroupKind::Inputs &&
            g.nodeCount() > static_cast<std::uint32_t>(std::max(options.maxExpandedInputs, 0))) {
            m_expanded[g.id] = 0;
        }
    }
    int depth = 0;
    for (const Group& g : m_groups) {
        depth = std::max(depth, g.depth);
    }
    const auto maxRanks = static_cast<std::size_t>(std::max(options.maxExpandedRanks, 1));
    for (; !collapsed && depth >= 1 && drawnRanks() > maxRanks; --depth) {
        for (const Group& g : m_groups) {
            if (g.depth == depth) {
                m_expanded[g.id] = 0;
            }
        }
    }
    for (const Node& n : m_graph->nodes()) {
        std::string r = regionOf(n);
        if (!r.empty() && std::find(m_regionValues.begin(), m_regionValues.end(), r) ==
                              m_regionValues.end()) {
            m_regionValues.push_back(std::move(r));
        }
    }
}

std::string_view groupKindName(GroupKind kind)
{
    switch (kind) {
    case GroupKind::Root: return "root";
    case GroupKind::Inputs: return "inputs";
    case GroupKind::File: return "file";
    case GroupKind::Scope: return "scope";
    case GroupKind::NoSource: return "no_source";
    case GroupKind::Chunk: return "chunk";
    case GroupKind::Module: return "module";
    case GroupKind::Repeated: return "repeated";
    }
    return "unknown";
}

GroupId ViewGraph::groupOfModule(structure::ModuleId module) const
{
    for (const Group& g : m_groups) {
        if (module != structure::kNoModule && g.module == module) {
            return g.id;
        }
    }
    return kNoGroup;
}

std::string ViewGraph::titleOf(const Node& node) const
{
    if (const auto it = m_inputTitles.find(node.id); it != m_inputTitles.end()) {
        return it->second;
    }
    return nodeTitle(node);
}

void ViewGraph::setNodeTitles(const std::unordered_map<NodeId, std::string>& titles)
{
    for (const auto& [id, title] : titles) {
        if (id < m_graph->size()) {
            m_inputTitles[id] = title;
        }
    }
}

GroupId ViewGraph::addGroup(GroupId parent, GroupKind kind, std::string label, NodeId first)
{
    Group g;
    g.id = static_cast<GroupId>(m_groups.size());
    g.parent = parent;
    g.kind = kind;
    g.label = std::move(label);
    g.first = first;
    m_groups.push_back(std::move(g));
    if (parent != kNoGroup) {
        m_groups[parent].children.push_back({true, m_groups.back().id});
    }
    return m_groups.back().id;
}

void ViewGraph::build(const GroupingOptions& options)
{
    const graph::Graph& g = *m_graph;
    bool multiFile = false;
    const bool hasSources = graphHasSources(g, multiFile);
    addGroup(kNoGroup, GroupKind::Root, g.name(), 0);
    // Open groups of the previous node, outermost first, with their keys.
    std::vector<std::pair<std::string, GroupId>> open;
    for (const Node& n : g.nodes()) {
        std::vector<ScopeLevel> path = scopePath(n, hasSources, multiFile);
        std::size_t common = 0;
        while (common < open.size() && common < path.size() &&
               open[common].first == path[common].key) {
            ++common;
        }
        open.resize(common);
        for (std::size_t level = common; level < path.size(); ++level) {
            const GroupId parent = open.empty() ? kRootGroup : open.back().second;
            const GroupId id = addGroup(parent, path[level].kind, path[level].label, n.id);
            open.emplace_back(path[level].key, id);
        }
        const GroupId holder = open.empty() ? kRootGroup : open.back().second;
        m_groups[holder].children.push_back({false, n.id});
    }
    simplify(kRootGroup);
    chunk(kRootGroup, options);
    finish(kRootGroup, 0);
}

// Dissolves groups that add nothing: a group with one child is replaced by that child, and a
// root whose only child is a group takes that group's children.
void ViewGraph::simplify(GroupId id)
{
    for (ViewChild& child : m_groups[id].children) {
        if (!child.isGroup) {
            continue;
        }
        simplify(child.index);
        const Group& c = m_groups[child.index];
        if (c.children.size() == 1) {
            child = c.children.front();
            if (child.isGroup) {
                m_groups[child.index].parent = id;
            }
        }
    }
    Group& g = m_groups[id];
    if (id == kRootGroup && g.children.size() == 1 && g.children.front().isGroup) {
        std::vector<ViewChild> lifted = m_groups[g.children.front().index].children;
        m_groups[id].children = std::move(lifted);
    }
}

// Splits groups with more than maxChildren children into balanced chunks, recursively.
void ViewGraph::chunk(GroupId id, const GroupingOptions& options)
{
    const std::size_t maxChildren = static_cast<std::size_t>(std::max(2, options.maxChildren));
    const std::size_t chunkSize = static_cast<std::size_t>(std::max(2, options.chunkSize));
    // A run of identical modules stays one list up to a few hundred: "layers.0–63" expands to
    // its 64 layers, not to chunks of them.
    const std::size_t limit =
        m_groups[id].kind == GroupKind::Repeated ? 4 * maxChildren : maxChildren;
    if (m_groups[id].kind == GroupKind::Module && m_groups[id].children.size() > limit) {
        groupSourceCalls(id);
    }
    while (m_groups[id].children.size() > limit) {
        std::vector<ViewChild> children = std::move(m_groups[id].children);
        m_groups[id].children.clear();
        const std::size_t n = children.size();
        const std::size_t k = (n + chunkSize - 1) / chunkSize;
        const bool inputs = m_groups[id].kind == GroupKind::Inputs;
        std::size_t begin = 0;
        for (std::size_t i = 0; i < k; ++i) {
            const std::size_t stop = n * (i + 1) / k;
            const GroupId c = addGroup(id, GroupKind::Chunk, {}, 0);
            m_groups[c].children.assign(children.begin() + static_cast<std::ptrdiff_t>(begin),
                                        children.begin() + static_cast<std::ptrdiff_t>(stop));
            if (inputs) {
                m_groups[c].label = "inputs " + std::to_string(begin + 1) + "–" +
                                    std::to_string(stop);
            }
            begin = stop;
        }
    }
    const std::vector<ViewChild> children = m_groups[id].children;
    for (const ViewChild& child : children) {
        if (child.isGroup) {
            m_groups[child.index].parent = id;
            chunk(child.index, options);
        }
    }
}

// A module with too many children first gathers its nodes by the source call they come from
// (structure::sourceCalls: "rotate_half · modeling_llama.py:132"), so that a bare graph's block
// reads as its functions; what is left over is chunked as before.
void ViewGraph::groupSourceCalls(GroupId id)
{
    const std::vector<ViewChild> children = std::move(m_groups[id].children);
    std::vector<ViewChild> out;
    for (std::size_t i = 0; i < children.size();) {
        if (children[i].isGroup) {
            out.push_back(children[i++]);
            continue;
        }
        std::vector<NodeId> run;
        for (; i < children.size() && !children[i].isGroup; ++i) {
            run.push_back(children[i].index);
        }
        std::size_t k = 0;
        for (const auto& [begin, end] : structure::sourceCalls(*m_graph, run)) {
            for (; k < begin; ++k) {
                out.push_back({false, run[k]});
            }
            const GroupId g = addGroup(kNoGroup, GroupKind::Scope,
                                       structure::sourceScopeLabel(m_graph->node(run[begin]).source),
                                       run[begin]);
            for (; k < end; ++k) {
                m_groups[g].children.push_back({false, run[k]});
            }
            out.push_back({true, g});
        }
        for (; k < run.size(); ++k) {
            out.push_back({false, run[k]});
        }
    }
    m_groups[id].children = std::move(out);
}

// Renumbers the live groups depth-first (parents before children), drops dissolved ones and
// derives node ranges, depths, chunk labels and groupOf.
void ViewGraph::finish(GroupId rootId, int)
{
    std::vector<Group> old = std::move(m_groups);
    m_groups.clear();
    m_groupOfNode.assign(m_graph->size(), kRootGroup);
    const auto& nodes = m_graph->nodes();
    // Iterative DFS would be longer; depth is small (modules nest a handful deep, plus chunks).
    auto visit = [&](auto&& self, GroupId oldId, GroupId parent, int depth) -> GroupId {
        const GroupId id = static_cast<GroupId>(m_groups.size());
        m_groups.push_back(old[oldId]);
        m_groups[id].id = id;
        m_groups[id].parent = parent;
        m_groups[id].depth = depth;
        std::vector<NodeId> inside;
        for (std::size_t i = 0; i < old[oldId].children.size(); ++i) {
            ViewChild child = old[oldId].children[i];
            if (child.isGroup) {
                child.index = self(self, child.index, id, depth + 1);
                const auto& sub = m_groups[child.index].nodes;
                inside.insert(inside.end(), sub.begin(), sub.end());
            } else {
                m_groupOfNode[child.index] = id;
                inside.push_back(child.index);
            }
            m_groups[id].children[i] = child;
        }
        std::sort(inside.begin(), inside.end());
        Group& g = m_groups[id];
        g.first = inside.empty() ? 0 : inside.front();
        g.end = inside.empty() ? 0 : inside.back() + 1;
        g.nodes = std::move(inside);
        if (g.kind == GroupKind::Chunk && g.label.empty() && g.end > g.first) {
            // The function(s) its nodes come from; a node-name range only without sources.
            g.label = structure::sourceSpanLabel(*m_graph, g.nodes);
            if (g.label.empty()) {
                g.label = nodes[g.first].name + " … " + nodes[g.end - 1].name;
            }
        }
        return id;
    };
    visit(visit, rootId, kNoGroup, 0);
}

std::vector<GroupId> ViewGraph::ancestorsOf(NodeId node) const
{
    std::vector<GroupId> chain;
    for (GroupId g = groupOf(node); g != kRootGroup && g != kNoGroup; g = m_groups[g].parent) {
        chain.push_back(g);
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
}

void ViewGraph::setExpanded(GroupId id, bool expanded)
{
    if (id != kRootGroup) {
        m_expanded.at(id) = expanded ? 1 : 0;
    }
}

void ViewGraph::expandAll()
{
    std::fill(m_expanded.begin(), m_expanded.end(), 1);
}

void ViewGraph::collapseAll()
{
    std::fill(m_expanded.begin(), m_expanded.end(), 0);
    m_expanded[kRootGroup] = 1;
}

bool ViewGraph::reveal(NodeId node)
{
    bool changed = false;
    for (GroupId g : ancestorsOf(node)) {
        if (!m_expanded[g]) {
            m_expanded[g] = 1;
            changed = true;
        }
    }
    return changed;
}

bool ViewGraph::isNodeVisible(NodeId node) const
{
    for (GroupId g = groupOf(node); g != kRootGroup; g = m_groups[g].parent) {
        if (!m_expanded[g]) {
            return false;
        }
    }
    return true;
}

std::size_t ViewGraph::expandedCount() const
{
    return static_cast<std::size_t>(std::count(m_expanded.begin() + 1, m_expanded.end(), 1));
}

std::string ViewGraph::regionOf(const Node& node)
{
    if (!node.annotation) {
        return {};
    }
    const std::string* v = node.annotation->get("compile_with_inductor");
    return v ? *v : std::string();
}

std::string ViewGraph::nodeTitle(const Node& node)
{
    switch (node.op) {
    case graph::OpKind::Placeholder: return node.name;
    case graph::OpKind::Output: return "output";
    case graph::OpKind::CallFunction: {
        std::string title(graph::opBaseName(node.target));
        if (node.getitemOf != graph::kNoNode) {
            title += " [" + std::to_string(node.getitemIndex) + "]";
        }
        return title;
    }
    case graph::OpKind::CallMethod:
    case graph::OpKind::CallModule:
    case graph::OpKind::GetAttr: return node.target;
    }
    return node.name;
}

std::string ViewGraph::nodeSubtitle(const Node& node)
{
    if (node.meta.isTensor()) {
        return metaShort(node.meta.tensor);
    }
    if (node.meta.kind != graph::ValueMeta::Kind::None) {
        return node.meta.text;
    }
    return node.multiOutput ? "tuple" : std::string();
}

void ViewGraph::addVisibleGroup(const Group& g, GroupId cluster, VisibleGraph& out) const
{
    const auto index = static_cast<std::uint32_t>(out.items.size());
    VisibleItem item;
    item.isGroup = true;
    item.index = g.id;
    item.cluster = cluster;
    item.title = g.label;
    item.subtitle = !g.detail.empty() ? g.detail
                                      : std::to_string(g.nodeCount()) +
                                            (g.nodeCount() == 1 ? " node" : " nodes");
    bool first = true;
    bool mixed = false;
    for (NodeId n : g.nodes) {
        out.itemOfNode[n] = index;
        const Node& node = m_graph->node(n);
        if (node.isPlaceholder() || node.isOutput() || mixed) {
            continue;
        }
        std::string r = regionOf(node);
        if (first) {
            item.region = std::move(r);
            first = false;
        } else if (r != item.region) {
            mixed = true;
            item.region.clear();
        }
    }
    out.items.push_back(std::move(item));
}

void ViewGraph::addVisible(GroupId id, VisibleGraph& out) const
{
    for (const ViewChild& child : m_groups[id].children) {
        if (!child.isGroup) {
            const Node& node = m_graph->node(child.index);
            out.itemOfNode[child.index] = static_cast<std::uint32_t>(out.items.size());
            out.items.push_back({false, child.index, id, titleOf(node), nodeSubtitle(node),
                                 regionOf(node)});
        } else if (m_expanded[child.index]) {
            out.clusters.push_back(child.index);
            addVisible(child.index, out);
        } else {
            addVisibleGroup(m_groups[child.index], id, out);
        }
    }
}

VisibleGraph ViewGraph::visible() const
{
    VisibleGraph out;
    out.itemOfNode.assign(m_graph->size(), m_focus == kRootGroup ? 0 : kNoItem);
    addVisible(m_focus, out);
    std::unordered_map<std::uint64_t, std::uint32_t> edgeIndex;
    for (const Node& v : m_graph->nodes()) {
        const std::uint32_t b = out.itemOfNode[v.id];
        for (NodeId u : v.inputs) {
            const std::uint32_t a = out.itemOfNode[u];
            if (a == b || a == kNoItem || b == kNoItem) {
                continue;
            }
            const std::uint64_t key = (std::uint64_t(a) << 32) | b;
            auto [it, inserted] = edgeIndex.try_emplace(key, 0);
            if (inserted) {
                it->second = static_cast<std::uint32_t>(out.edges.size());
                out.edges.push_back({a, b, 1, u, v.id});
            } else {
                ++out.edges[it->second].count;
            }
        }
    }
    return out;
}

} // namespace fxs::layout
