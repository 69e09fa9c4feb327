#include "views/models/graph_decorations.h"

#include <QtGlobal>

#include <algorithm>

namespace fxs::views {

int decorationPriority(DecorationLayer layer)
{
    switch (layer) {
    case DecorationLayer::Regions:
        return 10;
    case DecorationLayer::ProfileHeat:
        return 20;
    case DecorationLayer::CompileState:
        return 30;
    case DecorationLayer::KernelProvenance:
        return 40;
    case DecorationLayer::RuntimeTrace:
        return 50;
    case DecorationLayer::Comparison:
        return 55;
    case DecorationLayer::Search:
        return 58;
    case DecorationLayer::Highlight:
        return 60;
    case DecorationLayer::Banner:
        return 70;
    case DecorationLayer::kCount:
        break;
    }
    return 0;
}

const char* decorationLayerName(DecorationLayer layer)
{
    switch (layer) {
    case DecorationLayer::Regions:
        return "regions";
    case DecorationLayer::CompileState:
        return "compileState";
    case DecorationLayer::ProfileHeat:
        return "profileHeat";
    case DecorationLayer::Highlight:
        return "highlight";
    case DecorationLayer::Banner:
        return "banner";
    case DecorationLayer::RuntimeTrace:
        return "runtimeTrace";
    case DecorationLayer::KernelProvenance:
        return "kernelProvenance";
    case DecorationLayer::Comparison:
        return "comparison";
    case DecorationLayer::Search:
        return "search";
    case DecorationLayer::kCount:
        break;
    }
    return "?";
}

GraphDecorations::GraphDecorations(QObject* parent) : QObject(parent) {}

void GraphDecorations::setGraph(graph::GraphPtr graph)
{
    // Also for the same graph set again: the view starts it afresh (as a new layout does), and
    // the owners write their layers again on graphChanged.
    m_graph = std::move(graph);
    for (Layer& l : m_layers) {
        clearContents(l, false);
    }
    Q_EMIT graphChanged(m_graph);
}

bool GraphDecorations::claim(DecorationLayer l, const QObject* owner)
{
    Layer& entry = layer(l);
    if (entry.owner != nullptr && entry.owner != owner) {
        qWarning("fxscope: decoration layer %s is owned already; a second owner refused",
                 decorationLayerName(l));
        return false;
    }
    entry.owner = owner;
    return true;
}

const QObject* GraphDecorations::owner(DecorationLayer l) const
{
    return m_layers[std::size_t(l)].owner;
}

void GraphDecorations::setNodeColors(DecorationLayer l,
                                     std::unordered_map<graph::NodeId, QColor> colors)
{
    setNodeColors(l, std::move(colors), NodeAmounts{});
}

void GraphDecorations::setNodeColors(DecorationLayer l,
                                     std::unordered_map<graph::NodeId, QColor> colors,
                                     NodeAmounts amounts)
{
    Layer& entry = layer(l);
    if (entry.colors.empty() && colors.empty() && entry.amounts.values.empty() &&
        amounts.values.empty()) {
        return;
    }
    entry.colors = std::move(colors);
    entry.amounts = std::move(amounts);
    Q_EMIT nodeColorsChanged();
}

void GraphDecorations::setHighlighted(DecorationLayer l, const std::vector<graph::NodeId>& ids)
{
    Layer& entry = layer(l);
    std::unordered_set<graph::NodeId> set(ids.begin(), ids.end());
    if (set == entry.highlighted) {
        return;
    }
    entry.highlighted = std::move(set);
    Q_EMIT highlightedChanged();
}

void GraphDecorations::setRegions(DecorationLayer l, std::vector<RegionOverlay> regions)
{
    layer(l).regions = std::move(regions);
    Q_EMIT regionsChanged();
}

void GraphDecorations::clearRegions(DecorationLayer l)
{
    Layer& entry = layer(l);
    if (!entry.regions) {
        return;
    }
    entry.regions.reset();
    Q_EMIT regionsChanged();
}

void GraphDecorations::setRegionTint(DecorationLayer l, const QString& id, QColor tint)
{
    Layer& entry = layer(l);
    if (tint.isValid()) {
        entry.regionTints.insert(id, tint);
    } else if (entry.regionTints.remove(id) == 0) {
        return;
    }
    Q_EMIT regionTintChanged(id);
}

void GraphDecorations::setBanner(DecorationLayer l, const QString& text)
{
    Layer& entry = layer(l);
    if (entry.banner == text) {
        return;
    }
    entry.banner = text;
    Q_EMIT bannerChanged();
}

void GraphDecorations::clear(DecorationLayer l)
{
    clearContents(layer(l), true);
}

void GraphDecorations::clearContents(Layer& l, bool banner)
{
    if (!l.colors.empty() || !l.amounts.values.empty()) {
        l.colors.clear();
        l.amounts = NodeAmounts{};
        Q_EMIT nodeColorsChanged();
    }
    if (!l.highlighted.empty()) {
        l.highlighted.clear();
        Q_EMIT highlightedChanged();
    }
    if (l.regions) {
        l.regions.reset();
        Q_EMIT regionsChanged();
    }
    if (!l.regionTints.isEmpty()) {
        const QList<QString> ids = l.regionTints.keys();
        l.regionTints.clear();
        for (const QString& id : ids) {
            Q_EMIT regionTintChanged(id);
        }
    }
    if (banner && !l.banner.isEmpty()) {
        l.banner.clear();
        Q_EMIT bannerChanged();
    }
}

std::array<const GraphDecorations::Layer*, kDecorationLayerCount>
GraphDecorations::byPriority() const
{
    std::array<std::size_t, kDecorationLayerCount> order{};
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [](std::size_t a, std::size_t b) {
        return decorationPriority(DecorationLayer(a)) > decorationPriority(DecorationLayer(b));
    });
    std::array<const Layer*, kDecorationLayerCount> out{};
    for (std::size_t i = 0; i < order.size(); ++i) {
        out[i] = &m_layers[order[i]];
    }
    return out;
}

std::optional<QColor> GraphDecorations::nodeColor(graph::NodeId id) const
{
    for (const Layer* l : byPriority()) {
        if (const auto it = l->colors.find(id); it != l->colors.end()) {
            return it->second;
        }
    }
    return std::nullopt;
}

std::unordered_map<graph::NodeId, QColor> GraphDecorations::nodeColors() const
{
    std::unordered_map<graph::NodeId, QColor> out;
    for (const Layer* l : byPriority()) {
        for (const auto& [id, colour] : l->colors) {
            out.emplace(id, colour); // a higher layer placed it first
        }
    }
    return out;
}

const NodeAmounts& GraphDecorations::nodeAmounts() const
{
    static const NodeAmounts kNone;
    for (const Layer* l : byPriority()) {
        if (!l->colors.empty()) {
            return l->amounts;
        }
    }
    return kNone;
}

std::unordered_set<graph::NodeId> GraphDecorations::highlighted() const
{
    std::unordered_set<graph::NodeId> out;
    for (const Layer& l : m_layers) {
        out.insert(l.highlighted.begin(), l.highlighted.end());
    }
    return out;
}

QColor GraphDecorations::regionTint(const QString& id) const
{
    for (const Layer* l : byPriority()) {
        if (const auto it = l->regionTints.constFind(id); it != l->regionTints.constEnd()) {
            return *it;
        }
        if (l->regions) {
            for (const RegionOverlay& r : *l->regions) {
                if (r.id == id) {
                    return r.tint;
                }
            }
        }
    }
    return {};
}

std::optional<std::vector<RegionOverlay>> GraphDecorations::regions() const
{
    for (const Layer* l : byPriority()) {
        if (l->regions) {
            std::vector<RegionOverlay> out = *l->regions;
            for (RegionOverlay& r : out) {
                r.tint = regionTint(r.id);
            }
            return out;
        }
    }
    return std::nullopt;
}

QString GraphDecorations::banner() const
{
    for (const Layer* l : byPriority()) {
        if (!l->banner.isEmpty()) {
            return l->banner;
        }
    }
    return {};
}

} // namespace fxs::views
