// GraphView: draws (graph, decorations, selection) and lets a person act on it — Graphviz
// layout in the background (level by level for large graphs, levels cached), collapsible module
// or source-scope groups, pan/zoom/fit, the Minimap, legend, the find bar (GraphFinder),
// clicks and rubber bands that change its NodeSelectionModel, SVG/PNG export (GraphExporter).
// What is drawn over the graph (region hulls, tints, node colours, highlights, the banner) is
// read from a GraphDecorations, whose layers their owners write; the view writes none. Every
// method must be called on the GUI thread.
#pragma once

#include "core/graph/graph.h"
#include "core/layout/view_graph.h"
#include "views/graph/minimap.h"
#include "views/jobs/job_tracker.h"
#include "views/models/graph_decorations.h"
#include "views/models/node_selection_model.h"

#include <QColor>
#include <QWidget>

#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

class QLabel;
class QShortcut;

namespace fxs::layout {
class LayoutCache;
struct FitTarget;
}

namespace fxs::views {

class FindBar;
class GraphCanvas;
class GraphFinder;
class GraphLegend;
class GraphScene;
struct GraphStyle;
struct LayoutJob;

class GraphView : public QWidget {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    // What the view draws over the graph, and its selection. The view makes its own; the app
    // hands it shared ones (AppContext), as a QAbstractItemView takes a selection model. Not
    // owned when set; setGraph sets the graph on both.
    void setDecorations(GraphDecorations* decorations);
    GraphDecorations* decorations() const { return m_decorations; }
    void setSelectionModel(NodeSelectionModel* selection);
    NodeSelectionModel* selectionModel() const { return m_selectionModel; }

    // Lays out in the background (a JobTracker) and shows a busy hint meanwhile; the newest
    // request wins. A graph opens as deep as it reads fitted in the view (layoutReadable:
    // the tallest expanded groups collapsed until the fitted zoom reads); graphs over ~300
    // nodes open with their groups collapsed. Null clears.
    // With modulesPending the first layout waits for setModules (the graph's module tree is
    // being recovered) rather than drawing source-scope groups that would be replaced at once.
    void setGraph(fxs::graph::GraphPtr graph, bool modulesPending = false);
    // Clears the view and says why it is empty for now ("Reading 11246 lines of graph
    // code…"); the next setGraph replaces the message.
    void showPending(const QString& message);
    // The message shown instead of a graph, or empty.
    QString pendingMessage() const;
    fxs::graph::GraphPtr graph() const;
    // Groups the shown graph by its modules (a tree core/structure recovered for this graph):
    // "embed_tokens", "layers.0–23 · 24 identical", ... A null tree, or one without modules,
    // keeps the source-scope groups. Ignored for another graph or the tree already shown; a
    // view state restored meanwhile is applied to the module groups.
    void setModules(fxs::graph::GraphPtr graph,
                    std::shared_ptr<const fxs::structure::ModuleTree> tree);
    bool isWaitingForModules() const { return m_modulesPending; }
    // Selects only this node, expanding the group that holds it, and centres it. Emits
    // nodeSelected when the current node changes.
    void selectNode(fxs::graph::NodeId id);
    // The current node: the one last clicked or added (what the inspector shows).
    std::optional<fxs::graph::NodeId> selectedNode() const;

    // Multi-selection. Mouse: a click selects one node; Shift- or Ctrl-click toggles one; a
    // Shift-drag from empty space selects the nodes whose boxes lie in the band (a collapsed
    // group inside stands for all its nodes), a Ctrl-drag adds them; a plain drag pans. The
    // selection survives collapse/expand: a collapsed group holding selected nodes is drawn
    // selected. selectionChanged reports every change (graph order); nodeSelected still
    // reports the current node. The selection lives in selectionModel().
    std::vector<fxs::graph::NodeId> selectedNodes() const;
    // selectionModel()->select(ids), for a view on its own (tests, the diff pane): replaces the
    // selection without revealing or centring. Controllers go through the NodeSelectionModel.
    void setSelectedNodes(const std::vector<fxs::graph::NodeId>& ids);
    // The banner drawn (decorations()->banner()).
    QString banner() const;
    // Write the current view (at its expansion state); false when nothing is shown or the file
    // cannot be written.
    bool exportSvg(const QString& path);
    bool exportPng(const QString& path);
    // The zoom at which node labels read (9-pt titles at ≥ 7 px): a find step from a view
    // zoomed out further (a fitted large graph) zooms in to it, centred on the match.
    static constexpr qreal kReadableZoom = 0.8;
    void fitToView();
    void zoomIn();
    void zoomOut();
    void showFindBar(); // Ctrl+F
    // Ctrl+F, Ctrl+0 and zoom keys belong to the view (a view on its own, the default) or to
    // a window whose actions act on the focused view (false: one owner per shortcut; F3 and
    // Shift+F3, which no window action claims, stay with the view).
    void setOwnsShortcuts(bool owns);
    void expandAll();
    void collapseAll();

    // What a user arranged: the expanded groups (ids of this graph's ViewGraph, stable for a
    // graph parsed from the same text), zoom and the scene point at the viewport's centre.
    struct ViewState {
        std::vector<fxs::layout::GroupId> expanded;
        qreal zoom = 1.0;
        QPointF center;
        bool operator==(const ViewState&) const = default;
    };
    // The state now; none while nothing is shown or laid out.
    std::optional<ViewState> viewState() const;
    // Restores a state on the graph just set (instead of opening fitted with its default
    // groups); applied when the layout arrives. Ids past the graph's groups are ignored.
    void restoreViewState(const ViewState& state);

    // The overview map (shown while the graph does not fit the view): the user may turn it
    // off; remembered in QSettings ("graphView/overview").
    void setOverviewEnabled(bool enabled);
    bool isOverviewEnabled() const;
    GraphLegend* legend() const { return m_legend; }

    // Titles drawn instead of the computed ones for nodes of `graph` (a body's inputs named by
    // the arguments its callers pass), kept until another graph is set; ignored for a graph
    // not shown.
    void setNodeTitles(fxs::graph::GraphPtr graph,
                       std::unordered_map<fxs::graph::NodeId, std::string> titles);

    // Additions beyond the app contract (tests, menus).
    void setGroupExpanded(fxs::layout::GroupId id, bool expanded);
    const fxs::layout::ViewGraph* viewGraph() const { return m_view.get(); }
    GraphScene* scene() const { return m_scene; }
    GraphCanvas* canvas() const { return m_canvas; }
    Minimap* minimap() const { return m_minimap; }
    FindBar* findBar() const { return m_findBar; }
    bool isLayoutPending() const;
    QString lastError() const { return m_error; }
    GraphFinder* finder() const { return m_finder; }
    void setFindText(const QString& text);
    void findNext();
    void findPrevious();
    int findMatchCount() const;

Q_SIGNALS:
    void nodeSelected(fxs::graph::NodeId id);
    void selectionCleared();
    void selectionChanged(std::vector<fxs::graph::NodeId> nodes);
    // setGraph was called (the new graph, possibly null); the decorations were reset.
    void graphChanged(fxs::graph::GraphPtr graph);
    void layoutFinished();
    // Esc on the canvas (the app clears what Esc dismisses, e.g. a refused edit's path).
    void escapePressed();
    // A node was double-clicked (after it became the current node): the app opens what it
    // stands for, e.g. the higher-order body it runs.
    void nodeActivated(fxs::graph::NodeId id);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Anchor {
        fxs::layout::GroupId group = fxs::layout::kNoGroup;
        QPointF viewportPos;
    };
    void setupShortcuts();
    void requestLayout();
    void requestLayout(const Anchor& anchor);
    void applyLayout(const std::shared_ptr<LayoutJob>& job);
    void restoreAnchor(const Anchor& anchor);
    // Collapses every group of the view graph but these (ids past its groups ignored).
    void expandOnly(const std::vector<fxs::layout::GroupId>& expanded);
    void markSelection();
    void onNodeClicked(fxs::graph::NodeId id, Qt::KeyboardModifiers modifiers);
    void onRubberBand(const QRectF& rect, Qt::KeyboardModifiers modifiers);
    void onCurrentChanged();
    // Draw the decorations' resolved state (each after its signal).
    void drawRegions();
    void drawRegionTint(const QString& id);
    void drawNodeMarks();
    void onHighlightedChanged();
    layout::FitTarget openingTarget() const;
    void drawBanner();
    void updateLegend();
    void centerOnSelection();
    void goToMatch(fxs::graph::NodeId id); // a find step: select, reveal, zoom to read
    void onGroupToggled(fxs::layout::GroupId id);
    void positionOverlays();
    void applyStyle();

    fxs::graph::GraphPtr m_graph;
    std::shared_ptr<fxs::layout::ViewGraph> m_view;
    std::unordered_map<fxs::graph::NodeId, std::string> m_nodeTitles; // setNodeTitles
    GraphScene* m_scene;
    GraphCanvas* m_canvas;
    Minimap* m_minimap;
    GraphLegend* m_legend;
    FindBar* m_findBar;
    GraphFinder* m_finder;
    GraphDecorations* m_decorations = nullptr;
    NodeSelectionModel* m_selectionModel = nullptr;
    std::vector<QMetaObject::Connection> m_decorationConnections;
    std::vector<QMetaObject::Connection> m_selectionConnections;
    QLabel* m_busy;
    QLabel* m_banner;
    jobs::JobTracker m_layouts; // the newest layout request wins
    // Levels laid out before, by content: re-layouts after a toggle and identical modules reuse
    // them (core/layout/layout_cache.h).
    std::shared_ptr<fxs::layout::LayoutCache> m_layoutCache;
    bool m_modulesPending = false;
    QString m_pendingMessage; // shown instead of a graph (showPending)
    Anchor m_pendingAnchor;
    bool m_fitPending = false;
    // The graph's first layout chooses how deep it opens (layout::layoutReadable) until a
    // layout so chosen is shown or the user (or a restored state) sets the expansion.
    bool m_openPending = false;
    std::optional<ViewState> m_pendingState;
    bool m_centerPending = false; // centre the current node after the next layout
    bool m_zoomPending = false;   // and zoom in to kReadableZoom (a find step)
    QString m_error;
    std::vector<QShortcut*> m_sharedShortcuts; // the keys a window may take over
};

} // namespace fxs::views
