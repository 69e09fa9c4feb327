// GraphFinder: the find bar's logic — which nodes of a graph match the text (node names, op
// targets and module paths as whole components, case-insensitive) and stepping through them
// from the current node. Says which node to go to (nodeFound); the GraphView selects and
// reveals it. Not a widget (the FindBar is) and not a selection.
#pragma once

#include "core/graph/graph.h"
#include "core/structure/module_tree.h"

#include <QObject>

#include <memory>
#include <optional>
#include <vector>

namespace fxs::views {

class FindBar;

class GraphFinder : public QObject {
    Q_OBJECT
public:
    // bar: the widget typed into (its text, its status line); not owned.
    explicit GraphFinder(FindBar* bar, QObject* parent = nullptr);

    // The graph searched and its module tree (may be null); matches are recomputed while the
    // bar is visible.
    void setGraph(graph::GraphPtr graph, std::shared_ptr<const structure::ModuleTree> modules);
    // Opens the bar (Ctrl+F) and matches its text.
    void activate();
    // Sets the text typed (and matches it).
    void setText(const QString& text);
    // The next (direction 1) or previous (-1) match, continuing from `from` (the current node)
    // the first time after the text changed; emits nodeFound.
    void step(int direction, std::optional<graph::NodeId> from);
    int matchCount() const { return static_cast<int>(m_matches.size()); }

Q_SIGNALS:
    void nodeFound(fxs::graph::NodeId id);

private:
    void update(const QString& text);

    FindBar* m_bar;
    graph::GraphPtr m_graph;
    std::shared_ptr<const structure::ModuleTree> m_modules;
    std::vector<graph::NodeId> m_matches; // graph order
    int m_index = -1;
};

} // namespace fxs::views
