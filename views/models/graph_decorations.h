// GraphDecorations: everything drawn on a graph besides the graph itself, as named layers —
// regions, compile state, profile heat, highlight, banner, a diff's changed nodes, the runtime
// heat (RuntimeTrace), the find bar's matches (Search) and the kernel-provenance layer to
// come. One owner each (claim) and a
// fixed priority: where two layers decorate the same node or region, the higher priority wins
// whatever the order of the writes, and clearing a layer shows what the lower ones hold. The
// GraphView renders the resolved result; it holds no decoration state of its own. Not a
// selection (NodeSelectionModel) and not a layout. QtCore/QtGui only; GUI thread.
#pragma once

#include "core/graph/graph.h"
#include "views/models/region_overlay.h"

#include <QColor>
#include <QHash>
#include <QObject>
#include <QString>

#include <array>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fxs::views {

// What a colouring layer measured per node (µs of GPU time, ms of eager time), so that a
// collapsed group can say what its nodes add up to. Empty when the layer gave none.
struct NodeAmounts {
    std::unordered_map<graph::NodeId, double> values;
    QString unit; // "µs", "ms"
};

// The layers, with their owners in the app. Append new layers before kCount.
enum class DecorationLayer {
    Regions,          // RegionController: the region document's hulls (and their own tints)
    CompileState,     // CompileController: hull tints by cache outcome
    ProfileHeat,      // ProfileController: node colours by time share
    Highlight,        // RegionController: a refused edit's path
    Banner,           // DiagnosisController: a note about the graph as a whole
    RuntimeTrace,     // RuntimeController: runtime heat, node colours by measured GPU time
    KernelProvenance, // reserved: which generated kernel computes a node
    Comparison,       // GraphArea: the changed nodes of a side-by-side graph diff
    Search,           // each GraphView's GraphFinder: every match of the find bar
    kCount
};
inline constexpr std::size_t kDecorationLayerCount = std::size_t(DecorationLayer::kCount);

// Higher wins. The one table of precedence between overlays (not the order of calls):
// runtime facts over provenance over compile outcomes over the profile over plain regions.
int decorationPriority(DecorationLayer layer);
// "regions", "compileState", ... (for messages and tests).
const char* decorationLayerName(DecorationLayer layer);

class GraphDecorations : public QObject {
    Q_OBJECT
public:
    explicit GraphDecorations(QObject* parent = nullptr);

    // The graph decorated. Another graph clears every layer but the banner (a banner is about
    // the graph the app shows, its owner rewrites it when that changes) and emits
    // graphChanged after the clearing, for owners to write their layer for the new graph.
    void setGraph(graph::GraphPtr graph);
    graph::GraphPtr graph() const { return m_graph; }

    // One owner per layer: the first claim takes it (owners claim their layer when they are
    // built); a claim by another owner is refused (false, with a warning), so two writers of
    // one layer show at once. A view on its own (tests, the diff pane) writes unclaimed layers.
    bool claim(DecorationLayer layer, const QObject* owner);
    const QObject* owner(DecorationLayer layer) const;

    // Writes to one layer; each replaces what that layer held of its kind.
    void setNodeColors(DecorationLayer layer, std::unordered_map<graph::NodeId, QColor> colors);
    // The same, with what each coloured node measured (a heat layer's times).
    void setNodeColors(DecorationLayer layer, std::unordered_map<graph::NodeId, QColor> colors,
                       NodeAmounts amounts);
    void setHighlighted(DecorationLayer layer, const std::vector<graph::NodeId>& ids);
    // Regions drawn as hulls; a layer without regions set (or cleared) holds none.
    void setRegions(DecorationLayer layer, std::vector<RegionOverlay> regions);
    void clearRegions(DecorationLayer layer);
    // A tint for the hull of region `id` (whichever layer holds the region); invalid removes.
    void setRegionTint(DecorationLayer layer, const QString& id, QColor tint);
    void setBanner(DecorationLayer layer, const QString& text);
    // Empties the layer (everything it held, of every kind).
    void clear(DecorationLayer layer);

    // Resolved, what the view draws:
    // the colour of a node from the highest layer colouring it; none when no layer does.
    std::optional<QColor> nodeColor(graph::NodeId id) const;
    std::unordered_map<graph::NodeId, QColor> nodeColors() const;
    // The amounts of the highest layer colouring nodes, when that layer gave amounts.
    const NodeAmounts& nodeAmounts() const;
    // Nodes marked by any layer.
    std::unordered_set<graph::NodeId> highlighted() const;
    // Nodes marked by one layer.
    const std::unordered_set<graph::NodeId>& highlighted(DecorationLayer layer) const
    {
        return m_layers[std::size_t(layer)].highlighted;
    }
    // The regions of the highest layer holding any, each with its resolved tint; none when no
    // layer holds regions (the view then draws the graph's annotation hulls).
    std::optional<std::vector<RegionOverlay>> regions() const;
    // The tint of region id: the highest layer's tint for it, or the own tint of the region in
    // the highest layer that holds it; invalid when none.
    QColor regionTint(const QString& id) const;
    // The text of the highest layer with a banner; empty when none.
    QString banner() const;

Q_SIGNALS:
    void graphChanged(fxs::graph::GraphPtr graph);
    void nodeColorsChanged();
    void highlightedChanged();
    void regionsChanged();
    void regionTintChanged(const QString& id);
    void bannerChanged();

private:
    struct Layer {
        const QObject* owner = nullptr;
        std::unordered_map<graph::NodeId, QColor> colors;
        NodeAmounts amounts;
        std::unordered_set<graph::NodeId> highlighted;
        std::optional<std::vector<RegionOverlay>> regions;
        QHash<QString, QColor> regionTints;
        QString banner;
    };
    Layer& layer(DecorationLayer l) { return m_layers[std::size_t(l)]; }
    // Layers from the highest priority down.
    std::array<const Layer*, kDecorationLayerCount> byPriority() const;
    // Empties a layer's contents (not its owner), emitting what changed.
    void clearContents(Layer& l, bool banner);

    graph::GraphPtr m_graph;
    std::array<Layer, kDecorationLayerCount> m_layers;
};

} // namespace fxs::views
