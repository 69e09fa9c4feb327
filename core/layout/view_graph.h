// The collapsible view of a Graph: nested groups of nodes (by `# File:` file and function
// scopes, else fixed-size chunks in graph order), which groups are expanded, and the visible
// items (nodes and collapsed group boxes) with aggregated edges between them. Pure data: no
// Graphviz, no Qt. Layout (graph_layout.h) and the views draw what this says is visible.
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxs::layout {

using GroupId = std::uint32_t;
inline constexpr GroupId kRootGroup = 0;
inline constexpr GroupId kNoGroup = 0xffffffffu;

enum class GroupKind : std::uint8_t {
    Root,     // the whole graph; always expanded, never drawn
    Inputs,   // a run of placeholders
    File,     // nodes from one source file (only when the graph spans several files)
    Scope,    // a run of nodes from one `# File: path:line in fn` location
    NoSource, // a run of nodes printed under "No stacktrace found"
    Chunk,    // a fixed-size slice of a group with too many children
};

// A child of a group: a node or a nested group.
struct ViewChild {
    bool isGroup = false;
    std::uint32_t index = 0; // NodeId or GroupId
};

struct Group {
    GroupId id = kRootGroup;
    GroupId parent = kNoGroup;
    GroupKind kind = GroupKind::Root;
    std::string label;            // "mlp · models.py:22", "inputs", "nodes 51–100"
    std::vector<ViewChild> children;
    graph::NodeId first = 0;      // every group covers the contiguous node range [first, end)
    graph::NodeId end = 0;
    int depth = 0;                // root 0
    std::uint32_t nodeCount() const { return end - first; }
};

struct GroupingOptions {
    int maxChildren = 60;       // a group with more children is split into chunks
    int chunkSize = 50;         // target chunk size (chunks are balanced)
    int collapseAbove = 300;    // graphs with more nodes open with every group collapsed
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
    std::vector<std::uint32_t> itemOfNode;  // node -> index of the item that shows it
};

// A copyable value; not thread-safe for concurrent mutation, but a const copy may be laid out
// on a worker thread while the GUI keeps its own.
class ViewGraph {
public:
    explicit ViewGraph(graph::GraphPtr graph, const GroupingOptions& options = {});

    const graph::Graph& graph() const { return *m_graph; }
    const graph::GraphPtr& graphPtr() const { return m_graph; }
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

    // The items and edges at the current expansion state.
    VisibleGraph visible() const;

    // Distinct non-empty region values in node order.
    const std::vector<std::string>& regionValues() const { return m_regionValues; }
    // "compile_with_inductor" value of a node's annotation, or "".
    static std::string regionOf(const graph::Node& node);
    // Short label lines of a node: op (or name for placeholders/output) and meta.
    static std::string nodeTitle(const graph::Node& node);
    static std::string nodeSubtitle(const graph::Node& node);

private:
    void build(const GroupingOptions& options);
    GroupId addGroup(GroupId parent, GroupKind kind, std::string label, graph::NodeId first);
    void simplify(GroupId id);
    void chunk(GroupId id, const GroupingOptions& options);
    void finish(GroupId id, int depth);
    void addVisible(GroupId id, VisibleGraph& out) const;
    void addVisibleGroup(const Group& g, GroupId cluster, VisibleGraph& out) const;

    graph::GraphPtr m_graph;
    std::vector<Group> m_groups;
    std::vector<GroupId> m_groupOfNode;
    std::vector<char> m_expanded; // char, not bool: cheap copies and addressable
    std::vector<std::string> m_regionValues;
};

} // namespace fxs::layout
