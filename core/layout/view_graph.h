// The collapsible view of a Graph: nested groups of nodes, which groups are expanded, and the
// visible items (nodes and collapsed group boxes) with aggregated edges between them. Groups are
// the model's modules when a module tree is given (core/structure: `layers.3.self_attn`, runs of
// identical sibling modules folded into one "layers.0–23 · 24 identical" group, parameters inside
// the module that uses them), else `# File:` files and function scopes; fixed-size chunks split
// groups with too many children. Pure data: no Graphviz, no Qt. Layout (graph_layout.h) and the
// views draw what this says is visible.
#pragma once

#include "core/graph/graph.h"
#include "core/structure/module_tree.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fxs::layout {

using GroupId = std::uint32_t;
inline constexpr GroupId kRootGroup = 0;
inline constexpr GroupId kNoGroup = 0xffffffffu;

inline constexpr std::uint32_t kNoItem = 0xffffffffu;

enum class GroupKind : std::uint8_t {
    Root,     // the whole graph; always expanded, never drawn
    Inputs,   // a run of placeholders
    File,     // nodes from one source file (only when the graph spans several files)
    Scope,    // a run of nodes from one `# File: path:line in fn` location
    NoSource, // a run of nodes printed under "No stacktrace found"
    Chunk,    // a fixed-size slice of a group with too many children
    Module,   // one module of the module tree ("self_attn"; a bare graph's "block 3 of 24")
    Repeated, // a run of identical sibling modules ("layers.0–23 · 24 identical")
};
// "root", "inputs", "file", "scope", "no_source", "chunk", "module", "repeated" (CLI JSON).
std::string_view groupKindName(GroupKind kind);

// A child of a group: a node or a nested group.
struct ViewChild {
    bool isGroup = false;
    std::uint32_t index = 0; // NodeId or GroupId
};

struct Group {
    GroupId id = kRootGroup;
    GroupId parent = kNoGroup;
    GroupKind kind = GroupKind::Root;
    std::string label;            // "mlp · models.py:22", "inputs", "self_attn", "layers.0–23"
    std::string detail;           // second line of a collapsed box: "24 identical · 94 nodes each"
    std::vector<ViewChild> children;
    std::vector<graph::NodeId> nodes; // every node inside (descendants too), graph order
    graph::NodeId first = 0;      // smallest and one past the largest node id inside; source
    graph::NodeId end = 0;        //   groups are contiguous (nodes == [first, end)), modules not
    int depth = 0;                // root 0
    // Module groups: the module shown; Repeated groups standing for a module that holds only
    // them (a ModuleList such as `layers`): that module.
    structure::ModuleId module = structure::kNoModule;
    std::uint32_t nodeCount() const { return static_cast<std::uint32_t>(nodes.size()); }
};

struct GroupingOptions {
    int maxChildren = 60;       // a group with more children is split into chunks
    int chunkSize = 50;         // target chunk size (chunks are balanced)
    int collapseAbove = 300;    // graphs with more nodes open with every group collapsed
    // A smaller graph opens as deep as its drawing stays readable fitted in a window: the
    // deepest groups are collapsed, level by level, while its longest chain of visible items
    // (the drawing's ranks) is longer than this.
    int maxExpandedRanks = 60;
    // The inputs group opens collapsed when it holds more placeholders than this (a row of
    // parameters wider than any window).
    int maxExpandedInputs = 24;
};

// One thing drawn at the current expansion state.
struct VisibleItem {
    bool isGroup = false;
    std::uint32_t index = 0;        // NodeId, or GroupId of a collapsed group
    GroupId cluster = kRootGroup;   // innermost expanded group around it (root: none)
    std::string title;              // op name / node name, or the group label
    std::string subtitle;           // "f32[4, 64, 256]", or "37 nodes"
    std::string region;             // compile_with_inductor value shared by all its nodes, or ""
};

// An edge between visible items, standing for `count` node edges; fromNode/toNode is the first
// of them (so an edge into a collapsed group can still jump to a real node).
struct VisibleEdge {
    std::uint32_t from = 0; // indices into VisibleGraph::items
    std::uint32_t to = 0;
    int count = 1;
    graph::NodeId fromNode = graph::kNoNode;
    graph::NodeId toNode = graph::kNoNode;
};

struct VisibleGraph {
    std::vector<VisibleItem> items;
    std::vector<VisibleEdge> edges;
    std::vector<GroupId> clusters;          // expanded groups other than root, parents first
    // node -> index of the item that shows it (kNoItem: outside the focused group)
    std::vector<std::uint32_t> itemOfNode;
};

// A copyable value; not thread-safe for concurrent mutation, but a const copy may be laid out
// on a worker thread while the GUI keeps its own.
class ViewGraph {
public:
    explicit ViewGraph(graph::GraphPtr graph, const GroupingOptions& options = {});
    // Grouped by the graph's modules (a tree recovered from this graph by core/structure).
    // A tree without modules (Source::None) falls back to the source-scope groups.
    ViewGraph(graph::GraphPtr graph, std::shared_ptr<const structure::ModuleTree> modules,
              const GroupingOptions& options = {});

    const graph::Graph& graph() const { return *m_graph; }
    const graph::GraphPtr& graphPtr() const { return m_graph; }
    // The module tree the groups come from (null: source scopes).
    const std::shared_ptr<const structure::ModuleTree>& modules() const { return m_modules; }
    // The group showing a module (kNoGroup when it has none: dissolved or not in the tree).
    GroupId groupOfModule(structure::ModuleId module) const;
    const std::vector<Group>& groups() const { return m_groups; }
    const Group& group(GroupId id) const { return m_groups.at(id); }
    // Innermost group holding the node (kRootGroup for top-level nodes).
    GroupId groupOf(graph::NodeId node) const { return m_groupOfNode.at(node); }
    // Groups from the root's child down to groupOf(node).
    std::vector<GroupId> ancestorsOf(graph::NodeId node) const;

    bool isExpanded(GroupId id) const { return id == kRootGroup || m_expanded.at(id); }
    void setExpanded(GroupId id, bool expanded);
    void expandAll();
    void collapseAll();
    // Expands every group around the node; returns whether anything changed.
    bool reveal(graph::NodeId node);
    bool isNodeVisible(graph::NodeId node) const;
    std::size_t expandedCount() const;

    // The items and edges at the current expansion state, of the focused group (the whole graph
    // unless setFocus chose one group: `render --module`).
    VisibleGraph visible() const;
    void setFocus(GroupId id) { m_focus = id < m_groups.size() ? id : kRootGroup; }
    GroupId focus() const { return m_focus; }

    // Distinct non-empty region values in node order.
    const std::vector<std::string>& regionValues() const { return m_regionValues; }
    // "compile_with_inductor" value of a node's annotation, or "".
    static std::string regionOf(const graph::Node& node);
    // Short label lines of a node: op (or name for placeholders/output) and meta. Within a
    // module view an input naming a parameter is titled by it ("q_proj.weight"), so identical
    // layers draw identical boxes (and share one cached layout).
    std::string titleOf(const graph::Node& node) const;
    // Titles given from outside over the computed ones (the app names a higher-order body's
    // inputs by the arguments its callers pass); ids past the graph are ignored.
    void setNodeTitles(const std::unordered_map<graph::NodeId, std::string>& titles);
    static std::string nodeTitle(const graph::Node& node);
    static std::string nodeSubtitle(const graph::Node& node);

private:
    void build(const GroupingOptions& options);
    void buildFromModules(const GroupingOptions& options); // module_grouping.cpp
    void groupRootInputs();                               // module_grouping.cpp
    void groupLooseRuns();                                // module_grouping.cpp
    void initState(const GroupingOptions& options);
    std::size_t drawnRanks() const;
    GroupId addGroup(GroupId parent, GroupKind kind, std::string label, graph::NodeId first);
    void simplify(GroupId id);
    void chunk(GroupId id, const GroupingOptions& options);
    void groupSourceCalls(GroupId id);
    void finish(GroupId id, int depth);
    void addVisible(GroupId id, VisibleGraph& out) const;
    void addVisibleGroup(const Group& g, GroupId cluster, VisibleGraph& out) const;

    graph::GraphPtr m_graph;
    std::shared_ptr<const structure::ModuleTree> m_modules;
    std::unordered_map<graph::NodeId, std::string> m_inputTitles;
    std::vector<Group> m_groups;
    std::vector<GroupId> m_groupOfNode;
    std::vector<char> m_expanded; // char, not bool: cheap copies and addressable
    GroupId m_focus = kRootGroup;
    std::vector<std::string> m_regionValues;
};

} // namespace fxs::layout
