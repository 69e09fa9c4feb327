// GraphView's multi-selection (clicks, toggles, rubber band, programmatic) and the region hulls
// it draws from the app's document, with per-region tints.
#include "views/graph/graph_view.h"

#include "views/graph/graph_legend.h"
#include "views/graph/graph_scene.h"

#include <algorithm>

namespace fxs::views {

namespace {

std::vector<graph::NodeId> sortedUnique(std::vector<graph::NodeId> ids)
{
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

bool holds(const std::vector<graph::NodeId>& sorted, graph::NodeId id)
{
    return std::binary_search(sorted.begin(), sorted.end(), id);
}

} // namespace

std::optional<graph::NodeId> GraphView::selectedNode() const
{
    return m_selected;
}

void GraphView::setSelection(std::optional<graph::NodeId> id)
{
    applySelection(id ? std::vector<graph::NodeId>{*id} : std::vector<graph::NodeId>{}, id);
}

// The one place the selection changes: marks the scene and emits what changed.
void GraphView::applySelection(std::vector<graph::NodeId> nodes,
                               std::optional<graph::NodeId> current)
{
    const bool setChanged = nodes != m_selection;
    const bool currentChanged = current != m_selected;
    if (!setChanged && !currentChanged) {
        return;
    }
    m_selection = std::move(nodes);
    m_selected = current;
    if (!isLayoutPending()) {
        markSelection();
    }
    if (setChanged) {
        Q_EMIT selectionChanged(m_selection);
    }
    if (currentChanged) {
        if (m_selected) {
            Q_EMIT nodeSelected(*m_selected);
        } else {
            Q_EMIT selectionCleared();
        }
    }
}

void GraphView::markSelection()
{
    m_scene->markSelection(
        std::unordered_set<graph::NodeId>(m_selection.begin(), m_selection.end()), m_selected);
    positionOverlays(); // keep the legend and overview off the current node
}

void GraphView::onNodeClicked(graph::NodeId id, Qt::KeyboardModifiers modifiers)
{
    if (!(modifiers & (Qt::ShiftModifier | Qt::ControlModifier))) {
        setSelection(id);
        return;
    }
    std::vector<graph::NodeId> nodes = m_selection;
    std::optional<graph::NodeId> current = id;
    if (holds(nodes, id)) {
        nodes.erase(std::find(nodes.begin(), nodes.end(), id));
        // Toggling the current node off: the inspector moves to the last one left.
        current = m_selected != id ? m_selected
                  : nodes.empty()  ? std::nullopt
                                   : std::optional<graph::NodeId>(nodes.back());
    } else {
        nodes.insert(std::lower_bound(nodes.begin(), nodes.end(), id), id);
    }
    applySelection(std::move(nodes), current);
}

// Shift-drag replaces the selection, Ctrl-drag (with or without Shift) adds to it.
void GraphView::onRubberBand(const QRectF& rect, Qt::KeyboardModifiers modifiers)
{
    std::vector<graph::NodeId> inside = m_scene->nodesInRect(rect);
    std::vector<graph::NodeId> nodes = inside;
    if (modifiers & Qt::ControlModifier) {
        nodes.insert(nodes.end(), m_selection.begin(), m_selection.end());
        nodes = sortedUnique(std::move(nodes));
    }
    std::optional<graph::NodeId> current = m_selected;
    if (!current || !holds(nodes, *current)) {
        current = inside.empty() ? std::optional<graph::NodeId>()
                                 : std::optional<graph::NodeId>(inside.back());
    }
    applySelection(std::move(nodes), current);
}

void GraphView::setSelectedNodes(const std::vector<graph::NodeId>& ids)
{
    std::vector<graph::NodeId> valid;
    const std::size_t size = m_graph ? m_graph->size() : 0;
    std::copy_if(ids.begin(), ids.end(), std::back_inserter(valid),
                 [size](graph::NodeId id) { return id < size; });
    std::optional<graph::NodeId> current;
    if (m_selected && std::find(valid.begin(), valid.end(), *m_selected) != valid.end()) {
        current = m_selected;
    } else if (!valid.empty()) {
        current = valid.back();
    }
    applySelection(sortedUnique(std::move(valid)), current);
}

void GraphView::setRegions(std::vector<RegionOverlay> regions)
{
    m_regions = std::move(regions);
    m_scene->setRegionOverlays(tintedRegions());
    updateLegend();
}

void GraphView::clearRegions()
{
    m_regions.reset();
    m_scene->setRegionOverlays(std::nullopt);
    updateLegend();
}

void GraphView::setRegionTint(const QString& id, QColor tint)
{
    if (tint.isValid()) {
        m_regionTints.insert(id, tint);
    } else {
        m_regionTints.remove(id);
    }
    if (!m_regions) {
        return;
    }
    for (const RegionOverlay& r : *m_regions) {
        if (r.id == id) {
            m_scene->setRegionTint(id, tint.isValid() ? tint : r.tint);
        }
    }
    updateLegend();
}

std::vector<RegionOverlay> GraphView::tintedRegions() const
{
    std::vector<RegionOverlay> regions = m_regions.value_or(std::vector<RegionOverlay>{});
    for (RegionOverlay& r : regions) {
        r.tint = m_regionTints.value(r.id, r.tint);
    }
    return regions;
}

void GraphView::updateLegend()
{
    if (!m_regions) {
        m_legend->setRegions(m_view ? m_view->regionValues() : std::vector<std::string>{});
        return;
    }
    std::vector<std::pair<QColor, QString>> entries;
    for (const RegionOverlay& r : tintedRegions()) {
        entries.emplace_back(r.tint, r.label);
    }
    m_legend->setRegionEntries(entries);
}

} // namespace fxs::views
