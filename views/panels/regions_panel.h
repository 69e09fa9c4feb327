// The Regions dock: the regions of the open graph with their statistics (nodes, inputs,
// outputs, bytes in/out, annotation), and the edits on them (rename, delete, merge two, split
// off the selected nodes, undo/redo) through a RegionDocument. A refused edit shows its reason
// and asks the app to highlight the offending path. Not the graph drawing (GraphView draws hulls).
#pragma once

#include "views/panels/region_commands.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace fxs::views {

class RegionsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RegionsPanel(QWidget* parent = nullptr);

    // The document to show and edit; null clears. The panel does not own it.
    void setDocument(RegionDocument* doc);
    // Nodes selected in the graph view: what "Split off selection" moves out.
    void setSelectedNodes(std::vector<graph::NodeId> nodes);
    // Ids of the regions selected in the table, in table order.
    QStringList selectedRegionIds() const;
    int rowCount() const;

Q_SIGNALS:
    // The user picked regions in the table: their nodes (union, graph order), for the app to
    // select in the graph view. Not emitted for setSelectedNodes or refreshes.
    void regionActivated(const std::vector<graph::NodeId>& nodes);
    // An edit was refused: highlight these nodes (the path that would form a cycle, ...).
    void highlightRequested(const std::vector<graph::NodeId>& nodes);

private:
    void refresh();
    void onSelectionChanged();
    void onTableSelectionChanged();
    void renameSelected();
    void deleteSelected();
    void mergeSelected();
    void splitSelected();
    void showRefusal(const QString& reason, const std::vector<graph::NodeId>& highlight);

    RegionDocument* m_doc = nullptr;
    std::vector<graph::NodeId> m_selectedNodes;
    QTableWidget* m_table;
    QLabel* m_message;
    QPushButton* m_rename;
    QPushButton* m_delete;
    QPushButton* m_merge;
    QPushButton* m_split;
    QPushButton* m_undo;
    QPushButton* m_redo;
};

} // namespace fxs::views
