// The Inspector dock: everything known about one node (name, op, target, args/kwargs with
// clickable node references, output meta, users, source location and code line, annotations,
// AOT tags, the raw printed statement). Shows; does not select: a click on a reference emits
// nodeLinkActivated and the app decides.
#pragma once

#include "core/graph/graph.h"

#include <QWidget>

#include <vector>

class QTextBrowser;

namespace fxs::views {

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(QWidget* parent = nullptr);

    // Shows node `id` of `graph`; clears when graph is null or id is out of range.
    void setNode(graph::GraphPtr graph, graph::NodeId id);
    // More than one node selected: "N nodes selected" with their ops, then `current`'s details
    // (none when current is not among them). One node: as setNode; none: clear.
    void setSelection(graph::GraphPtr graph, const std::vector<graph::NodeId>& nodes,
                      graph::NodeId current);
    void clear();
    graph::NodeId node() const { return m_node; }
    // The panel's text as a user reads it (for tests and copying).
    QString plainText() const;

    // HTML of the node's description (links "node:<id>"); exposed for tests.
    static QString nodeHtml(const graph::Graph& graph, graph::NodeId id);
    // "3 nodes selected" and an op summary, most frequent first: "2 × mm, 1 × relu".
    static QString selectionHtml(const graph::Graph& graph,
                                 const std::vector<graph::NodeId>& nodes);

Q_SIGNALS:
    void nodeLinkActivated(fxs::graph::NodeId id);

private:
    QTextBrowser* m_browser;
    graph::GraphPtr m_graph;
    graph::NodeId m_node = graph::kNoNode;
};

} // namespace fxs::views
