// The Inspector dock: everything known about one node (name, op, target, args/kwargs with
// clickable node references, output meta, users, source location and code line, module stack,
// annotations, AOT tags, the module path and parameter path when the graph's module tree is
// known, the raw printed statement; for a higher-order node, the bodies it runs with their call
// sites). Shows; does not select: a click on a reference emits nodeLinkActivated
// (bodyLinkActivated for a body) and the app decides. It never recovers structure itself: the
// app hands it the tree.
#pragma once

#include "core/graph/graph.h"
#include "core/structure/module_tree.h"

#include <QWidget>

#include <memory>
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
    // The module tree of graph (null: none known). Nodes of that graph then show their module
    // path ("Module") and, for inputs, the parameter they are ("Parameter"); the node shown is
    // redrawn. Kept until another tree is set; nodes of other graphs show no module.
    void setModules(graph::GraphPtr graph, std::shared_ptr<const structure::ModuleTree> tree);
    // The panel's text as a user reads it (for tests and copying).
    QString plainText() const;

    // HTML of the node's description (links "node:<id>", "body:<name>"); exposed for tests.
    // modules: graph's module tree, or null.
    static QString nodeHtml(const graph::Graph& graph, graph::NodeId id,
                            const structure::ModuleTree* modules = nullptr);
    // "3 nodes selected" and an op summary, most frequent first: "2 × mm, 1 × relu".
    static QString selectionHtml(const graph::Graph& graph,
                                 const std::vector<graph::NodeId>& nodes);

Q_SIGNALS:
    void nodeLinkActivated(fxs::graph::NodeId id);
    // A higher-order body of the shown graph (its submodule name) was clicked.
    void bodyLinkActivated(const QString& body);
    // A module path (or one of its prefixes) in the Module row was clicked: "model.layers.3".
    void moduleLinkActivated(const QString& path);

private:
    QTextBrowser* m_browser;
    graph::GraphPtr m_graph;
    graph::NodeId m_node = graph::kNoNode;
    graph::GraphPtr m_modulesGraph;
    std::shared_ptr<const structure::ModuleTree> m_modules;

    const structure::ModuleTree* modulesFor(const graph::Graph& graph) const;
};

} // namespace fxs::views
