#include "views/models/node_selection_model.h"

#include <algorithm>
#include <iterator>

namespace fxs::views {

namespace {

std::vector<graph::NodeId> sortedUnique(std::vector<graph::NodeId> ids)
{
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

} // namespace

NodeSelectionModel::NodeSelectionModel(QObject* parent) : QObject(parent) {}

void NodeSelectionModel::setGraph(graph::GraphPtr graph)
{
    m_graph = std::move(graph);
    clear();
}

bool NodeSelectionModel::isSelected(graph::NodeId id) const
{
    return std::binary_search(m_selection.begin(), m_selection.end(), id);
}

void NodeSelectionModel::select(const std::vector<graph::NodeId>& ids)
{
    std::vector<graph::NodeId> valid;
    const std::size_t size = m_graph ? m_graph->size() : 0;
    std::copy_if(ids.begin(), ids.end(), std::back_inserter(valid),
                 [size](graph::NodeId id) { return id < size; });
    std::optional<graph::NodeId> current;
    if (m_current && std::find(valid.begin(), valid.end(), *m_current) != valid.end()) {
        current = m_current;
    } else if (!valid.empty()) {
        current = valid.back();
    }
    setSelection(sortedUnique(std::move(valid)), current);
}

void NodeSelectionModel::setCurrentNode(std::optional<graph::NodeId> id)
{
    setSelection(id ? std::vector<graph::NodeId>{*id} : std::vector<graph::NodeId>{}, id);
}

void NodeSelectionModel::toggle(graph::NodeId id)
{
    std::vector<graph::NodeId> nodes = m_selection;
    std::optional<graph::NodeId> current = id;
    if (isSelected(id)) {
        nodes.erase(std::find(nodes.begin(), nodes.end(), id));
        // Toggling the current node off: the current one is the last one left.
        current = m_current != id ? m_current
                  : nodes.empty() ? std::nullopt
                                  : std::optional<graph::NodeId>(nodes.back());
    } else {
        nodes.insert(std::lower_bound(nodes.begin(), nodes.end(), id), id);
    }
    setSelection(std::move(nodes), current);
}

void NodeSelectionModel::setSelection(std::vector<graph::NodeId> nodes,
                                      std::optional<graph::NodeId> current)
{
    const bool setChanged = nodes != m_selection;
    const bool currentMoved = current != m_current;
    if (!setChanged && !currentMoved) {
        return;
    }
    m_selection = std::move(nodes);
    m_current = current;
    if (setChanged) {
        Q_EMIT selectionChanged(m_selection);
    }
    if (currentMoved) {
        if (m_current) {
            Q_EMIT currentChanged(*m_current);
        } else {
            Q_EMIT currentCleared();
        }
    }
}

void NodeSelectionModel::clear()
{
    setSelection({}, std::nullopt);
}

} // namespace fxs::views
