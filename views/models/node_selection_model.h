// NodeSelectionModel: which nodes of a graph are selected and which one is current, as
// QItemSelectionModel is for item views. The GraphView draws it and changes it on clicks and
// rubber bands; panels and controllers read it, follow its signals and change it through it,
// never through the view. Not a decoration (GraphDecorations) and not a graph. GUI thread.
#pragma once

#include "core/graph/graph.h"

#include <QObject>

#include <optional>
#include <vector>

namespace fxs::views {

class NodeSelectionModel : public QObject {
    Q_OBJECT
public:
    explicit NodeSelectionModel(QObject* parent = nullptr);

    // The graph whose nodes are selected; setting one (even the same again) clears the
    // selection, emitting what changed.
    void setGraph(graph::GraphPtr graph);
    graph::GraphPtr graph() const { return m_graph; }

    // Selected nodes, sorted and unique; the current node is one of them.
    const std::vector<graph::NodeId>& selectedNodes() const { return m_selection; }
    std::optional<graph::NodeId> currentNode() const { return m_current; }
    bool isSelected(graph::NodeId id) const;

    // Replaces the selection (ids past the graph ignored). The current node stays when still
    // selected, else becomes the last id given.
    void select(const std::vector<graph::NodeId>& ids);
    // Only this node, and current (none: clears).
    void setCurrentNode(std::optional<graph::NodeId> id);
    // Shift/Ctrl-click: adds the node (current) or takes it out (the current node moves to the
    // last one left).
    void toggle(graph::NodeId id);
    // The one place the selection changes: nodes (sorted, unique) and the current node (one of
    // them, or none). Emits selectionChanged when the set changes, then currentChanged or
    // currentCleared when the current node does.
    void setSelection(std::vector<graph::NodeId> nodes, std::optional<graph::NodeId> current);
    void clear();

Q_SIGNALS:
    void selectionChanged(std::vector<fxs::graph::NodeId> nodes);
    void currentChanged(fxs::graph::NodeId id);
    void currentCleared();

private:
    graph::GraphPtr m_graph;
    std::vector<graph::NodeId> m_selection;
    std::optional<graph::NodeId> m_current;
};

} // namespace fxs::views
