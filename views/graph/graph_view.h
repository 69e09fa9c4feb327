// GraphView: the interactive drawing of one FX graph — Graphviz layout run in the background,
// collapsible source-scope groups, pan/zoom/fit, minimap, legend, find bar, selection, diff
// highlights, colour overlays, SVG/PNG export. Shows and reports; the app wires it to the
// inspector and other panels. Every method must be called on the GUI thread.
#pragma once

#include "core/graph/graph.h"
#include "core/layout/view_graph.h"

#include <QColor>
#include <QWidget>

#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

class QLabel;

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

    // Lays out in the background (QtConcurrent) and shows a busy hint meanwhile; the newest
    // request wins. Graphs over ~300 nodes open with their groups collapsed. Null clears.
    void setGraph(fxs::graph::GraphPtr graph);
    fxs::graph::GraphPtr graph() const;
    // Selects the node, expanding the group that holds it, and centres it. Emits nodeSelected
    // when the selection changes.
    void selectNode(fxs::graph::NodeId id);
    std::optional<fxs::graph::NodeId> selectedNode() const;
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
    void expandAll();
    void collapseAll();

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
    void setSelection(std::optional<fxs::graph::NodeId> id);
    void centerOnSelection();
    void onGroupToggled(fxs::layout::GroupId id);
    void updateMatches(const QString& text);
    void stepFind(int direction);
    void positionOverlays();
    void applyStyle();

    fxs::graph::GraphPtr m_graph;
    std::shared_ptr<fxs::layout::ViewGraph> m_view;
    GraphScene* m_scene;
    GraphCanvas* m_canvas;
    Minimap* m_minimap;
    GraphLegend* m_legend;
    FindBar* m_findBar;
    QLabel* m_busy;
    std::shared_ptr<std::atomic<int>> m_latest;
    int m_shown = 0; // generation of the layout on screen
    Anchor m_pendingAnchor;
    bool m_fitPending = false;
    bool m_centerPending = false;
    std::optional<fxs::graph::NodeId> m_selected;
    std::unordered_set<fxs::graph::NodeId> m_highlighted;
    std::unordered_map<fxs::graph::NodeId, QColor> m_colors;
    std::vector<fxs::graph::NodeId> m_matches;
    int m_matchIndex = -1;
    QString m_error;
};

} // namespace fxs::views
