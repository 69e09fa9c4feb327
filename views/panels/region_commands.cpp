#include "views/panels/region_commands.h"

namespace fxs::views {

RegionDocument::RegionDocument(graph::GraphPtr graph, QObject* parent)
    : QObject(parent), m_graph(std::move(graph))
{
}

void RegionDocument::resetRegions(std::vector<partition::Region> regions)
{
    m_undo.clear();
    applyRegions(std::move(regions));
}

void RegionDocument::applyRegions(std::vector<partition::Region> regions)
{
    m_regions = std::move(regions);
    Q_EMIT regionsChanged();
}

bool RegionDocument::push(const QString& text, const partition::EditResult& result)
{
    if (!result.ok()) {
        Q_EMIT editRefused(QString::fromStdString(result.refusal), result.highlight);
        return false;
    }
    m_undo.push(new RegionEditCommand(this, text, m_regions, *result.regions));
    return true;
}

bool RegionDocument::createRegion(std::vector<graph::NodeId> nodes, const QString& name)
{
    return push(tr("Create region"),
                partition::createRegion(*m_graph, m_regions, std::move(nodes), name.toStdString()));
}

bool RegionDocument::createRegions(
    std::vector<std::pair<std::string, std::vector<graph::NodeId>>> named, const QString& text)
{
    return push(text, partition::createRegions(*m_graph, m_regions, std::move(named)));
}

bool RegionDocument::renameRegion(const QString& id, const QString& name)
{
    return push(tr("Rename region %1").arg(id),
                partition::renameRegion(m_regions, id.toStdString(), name.toStdString()));
}

bool RegionDocument::deleteRegion(const QString& id)
{
    return push(tr("Delete region %1").arg(id),
                partition::deleteRegion(m_regions, id.toStdString()));
}

bool RegionDocument::mergeRegions(const QString& a, const QString& b)
{
    return push(tr("Merge %2 into %1").arg(a, b),
                partition::mergeRegions(*m_graph, m_regions, a.toStdString(), b.toStdString()));
}

bool RegionDocument::splitRegion(const QString& id, std::vector<graph::NodeId> moveOut)
{
    return push(tr("Split region %1").arg(id),
                partition::splitRegion(*m_graph, m_regions, id.toStdString(), std::move(moveOut)));
}

bool RegionDocument::growToRegion(graph::NodeId seed)
{
    auto nodes = partition::growToRegion(*m_graph, m_regions, seed);
    if (nodes.empty()) {
        partition::EditResult refused;
        refused.refusal = "nothing to grow: the node is in a region already, a graph input or "
                          "output, or not an op regions support";
        refused.highlight = {seed};
        return push({}, refused);
    }
    return push(tr("Grow region"), partition::createRegion(*m_graph, m_regions, std::move(nodes)));
}

bool RegionDocument::replaceRegions(std::vector<partition::Region> regions, const QString& text)
{
    return push(text, partition::validateRegions(*m_graph, regions));
}

RegionEditCommand::RegionEditCommand(RegionDocument* doc, const QString& text,
                                     std::vector<partition::Region> before,
                                     std::vector<partition::Region> after)
    : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after))
{
}

void RegionEditCommand::redo() { m_doc->applyRegions(m_after); }

void RegionEditCommand::undo() { m_doc->applyRegions(m_before); }

} // namespace fxs::views
