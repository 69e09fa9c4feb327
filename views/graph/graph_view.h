// GraphView: the interactive drawing of one FX graph — Graphviz layout run in the background
// (level by level for large graphs, levels cached), collapsible module or source-scope groups, pan/zoom/fit, minimap, legend, find bar, multi-selection
// (click, Shift/Ctrl-click, Shift/Ctrl rubber band), region hulls, diff highlights, colour
// overlays, SVG/PNG export. Shows and reports; the app wires it to the inspector and other
// panels. Every method must be called on the GUI thread.
#pragma once

#include "core/graph/graph.h"
#include "core/layout/view_graph.h"
#include "views/graph/region_overlay.h"
#include "views/jobs/job_tracker.h"

#include <QColor>
#include <QHash>
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
}

namespace fxs::views {

class FindBar;
class GraphCanvas;
class GraphLegend;
class GraphScene;
class Minimap;
struct GraphStyle;
struct LayoutJob;

class GraphView : public QWidget {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    // Lays out in the background (a JobTracker) and shows a busy hint meanwhile; the newest
    // request wins. Graphs over ~300 nodes open with their groups collapsed. Null clears.
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
    // reports the current node.
    std::vector<fxs::graph::NodeId> selectedNodes() const { return m_selection; }
    // Replaces the selection without revealing or centring (ids past the graph are ignored).
    // The current node stays when still selected, else becomes the last id given.
    void setSelectedNodes(const std::vector<fxs::graph::NodeId>& ids);

    // Regions drawn as hulls from the app's document; they replace the annotation hulls until
    // clearRegions(). A collapsed group's box stands for the nodes it holds.
    void setRegions(std::vector<RegionOverlay> regions);
    void clearRegions();
    const std::optional<std::vector<RegionOverlay>>& regions() const { return m_regions; }
    // Recolours one region's hull (e.g. by cache state). The tint sticks to the id across
    // setRegions calls until setGraph; an invalid QColor returns to the region's own tint.
    void setRegionTint(const QString& id, QColor tint);

    // A note above the drawing about the graph as a whole (e.g. the graph break that ends it);
    // kept until replaced, empty hides it.
    void setBanner(const QString& text);
    QString banner() const;
    void setHighlighted(const std::vector<fxs::graph::NodeId>& ids); // e.g. changed nodes of a diff
    void setNodeColors(const std::unordered_map<fxs::graph::NodeId, QColor>& colors); // overlays
    void clearNodeColors();
    // Write the current view (at its expansion state); false when nothing is shown or the file
    // cannot be written.
    bool exportSvg(const QString& path);
    bool exportPng(const QString& path);
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
    bool isOverviewEnabled() const { return m_overviewEnabled; }
    GraphLegend* legend() const { return m_legend; }

    // Additions beyond the app contract (tests, menus).
    void setGroupExpanded(fxs::layout::GroupId id, bool expanded);
    const fxs::layout::ViewGraph* viewGraph() const { return m_view.get(); }
    GraphScene* scene() const { return m_scene; }
    GraphCanvas* canvas() const { return m_canvas; }
    Minimap* minimap() const { return m_minimap; }
    FindBar* findBar() const { return m_findBar; }
    bool isLayoutPending() const;
    QString lastError() const { return m_error; }
    void setFindText(const QString& text);
    void findNext();
    void findPrevious();
    int findMatchCount() const { return static_cast<int>(m_matches.size()); }

Q_SIGNALS:
    void nodeSelected(fxs::graph::NodeId id);
    void selectionCleared();
    void selectionChanged(std::vector<fxs::graph::NodeId> nodes);
    // setGraph was called (the new graph, possibly null); regions and tints were reset.
    void graphChanged(fxs::graph::GraphPtr graph);
    void layoutFinished();

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
    void setSelection(std::optional<fxs::graph::NodeId> id);
    void applySelection(std::vector<fxs::graph::NodeId> nodes,
                        std::optional<fxs::graph::NodeId> current);
    void markSelection();
    void onNodeClicked(fxs::graph::NodeId id, Qt::KeyboardModifiers modifiers);
    void onRubberBand(const QRectF& rect, Qt::KeyboardModifiers modifiers);
    std::vector<RegionOverlay> tintedRegions() const;
    void updateLegend();
    void centerOnSelection();
    void onGroupToggled(fxs::layout::GroupId id);
    void updateMatches(const QString& text);
    void stepFind(int direction);
    void positionOverlays();
    void updateMinimapVisibility();
    void applyStyle();

    fxs::graph::GraphPtr m_graph;
    std::shared_ptr<fxs::layout::ViewGraph> m_view;
    GraphScene* m_scene;
    GraphCanvas* m_canvas;
    Minimap* m_minimap;
    GraphLegend* m_legend;
    FindBar* m_findBar;
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
    std::optional<ViewState> m_pendingState;
    bool m_overviewEnabled = true; // zoom and centre to apply after the next layout
    bool m_centerPending = false;
    std::optional<fxs::graph::NodeId> m_selected; // the current node
    std::vector<fxs::graph::NodeId> m_selection;  // sorted, holds m_selected
    std::optional<std::vector<RegionOverlay>> m_regions;
    QHash<QString, QColor> m_regionTints;
    std::unordered_set<fxs::graph::NodeId> m_highlighted;
    std::unordered_map<fxs::graph::NodeId, QColor> m_colors;
    std::vector<fxs::graph::NodeId> m_matches;
    int m_matchIndex = -1;
    QString m_error;
    std::vector<QShortcut*> m_sharedShortcuts; // the keys a window may take over
};

} // namespace fxs::views
