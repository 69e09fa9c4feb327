// GraphFinder: the find bar's logic — which nodes of a graph match the text, over node names,
// op targets, module paths and attribute text (kwargs, output meta, annotation: what the
// Inspector shows), as plain text (case-insensitive; module paths as whole components) or as a
// regular expression; stepping through the matches from the current node. Every match is
// written to the GraphDecorations' Search layer (the view draws it); nodeFound says which node
// to go to (the GraphView selects, reveals and zooms to it). Not a widget (the FindBar is) and
// not a selection.
#pragma once

#include "core/graph/graph.h"
#include "core/structure/module_tree.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace fxs::views {

class FindBar;
class GraphDecorations;

// The part of a node a match was found in, in the order they are tried.
enum class FindField { Name, Op, Module, Attribute };
// "name", "op", "module", "attribute".
QString findFieldName(FindField field);

struct FindMatch {
    graph::NodeId node = graph::kNoNode;
    FindField field = FindField::Name;
    QString text; // the text that matched: the name, target, module path or attribute
};

class GraphFinder : public QObject {
    Q_OBJECT
public:
    // bar: the widget typed into (its text, regex toggle, status line); not owned.
    explicit GraphFinder(FindBar* bar, QObject* parent = nullptr);

    // The graph searched and its module tree (may be null); matches are recomputed while the
    // bar is visible.
    void setGraph(graph::GraphPtr graph, std::shared_ptr<const structure::ModuleTree> modules);
    // Where every match is marked (DecorationLayer::Search, unclaimed: one finder per view);
    // the previous decorations' layer is emptied. Not owned; null marks nothing.
    void setDecorations(GraphDecorations* decorations);
    // Opens the bar (Ctrl+F) and matches its text.
    void activate();
    // Sets the text typed (and matches it).
    void setText(const QString& text);
    // Regular expression (case-insensitive, unanchored) instead of plain text; the bar's `.*`
    // button and Alt+R set it too. An invalid expression matches nothing and says why in
    // the bar's status.
    void setRegex(bool regex);
    bool isRegex() const;
    // The next (direction 1) or previous (-1) match, continuing from `from` (the current node)
    // the first time after the text changed (or after close(): the last text is matched and
    // marked again); emits nodeFound.
    void step(int direction, std::optional<graph::NodeId> from);
    // The bar was closed: the matches are no longer marked.
    void close();

    int matchCount() const { return static_cast<int>(m_matches.size()); }
    const std::vector<FindMatch>& matches() const { return m_matches; } // graph order
    int currentIndex() const { return m_index; } // -1 before the first step
    QString error() const { return m_error; }   // the invalid expression's message, or empty

Q_SIGNALS:
    void nodeFound(fxs::graph::NodeId id);

private:
    void update();
    void mark();
    void showStatus();

    FindBar* m_bar;
    GraphDecorations* m_decorations = nullptr;
    graph::GraphPtr m_graph;
    std::shared_ptr<const structure::ModuleTree> m_modules;
    std::vector<FindMatch> m_matches; // graph order
    int m_index = -1;
    QString m_error;
};

} // namespace fxs::views
