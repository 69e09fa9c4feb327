// The regions being edited in the app and the undo commands that change them: every edit goes
// through core's pure region edits (core/partition/region_edit.h); accepted edits are pushed on
// the QUndoStack as before/after snapshots, refused ones are reported with the reason and the
// nodes to highlight. GUI-thread only. Not a widget: the Regions panel and the graph view show it.
#pragma once

#include "core/partition/region_edit.h"

#include <QObject>
#include <QString>
#include <QUndoCommand>
#include <QUndoStack>

#include <vector>

namespace fxs::views {

class RegionDocument : public QObject {
    Q_OBJECT
public:
    explicit RegionDocument(graph::GraphPtr graph, QObject* parent = nullptr);

    graph::GraphPtr graph() const { return m_graph; }
    const std::vector<partition::Region>& regions() const { return m_regions; }
    QUndoStack* undoStack() { return &m_undo; }

    // Replaces the regions without an undo step (opening a graph or a project); clears undo.
    void resetRegions(std::vector<partition::Region> regions);
    // Used by the commands only: sets the regions and emits regionsChanged.
    void applyRegions(std::vector<partition::Region> regions);

    // Each edit returns whether it was accepted (and pushed); a refusal emits editRefused.
    bool createRegion(std::vector<graph::NodeId> nodes, const QString& name = {});
    bool renameRegion(const QString& id, const QString& name);
    bool deleteRegion(const QString& id);
    bool mergeRegions(const QString& a, const QString& b);
    bool splitRegion(const QString& id, std::vector<graph::NodeId> moveOut);
    // One region per (name, nodes) in one undo step `text` (region_edit.h createRegions):
    // all or none.
    bool createRegions(std::vector<std::pair<std::string, std::vector<graph::NodeId>>> named,
                       const QString& text);
    // Creates the region grown from seed (region_edit.h growToRegion).
    bool growToRegion(graph::NodeId seed);
    // Replaces every region in one undo step (e.g. by the automatic proposal); refused when
    // the list is not valid for the graph (region_edit.h validateRegions).
    bool replaceRegions(std::vector<partition::Region> regions, const QString& text);

Q_SIGNALS:
    void regionsChanged();
    void editRefused(const QString& reason, const std::vector<graph::NodeId>& highlight);

private:
    bool push(const QString& text, const partition::EditResult& result);

    graph::GraphPtr m_graph;
    std::vector<partition::Region> m_regions;
    QUndoStack m_undo;
};

// One accepted edit: redo sets `after`, undo restores `before`.
class RegionEditCommand : public QUndoCommand {
public:
    RegionEditCommand(RegionDocument* doc, const QString& text,
                      std::vector<partition::Region> before, std::vector<partition::Region> after);
    void redo() override;
    void undo() override;

private:
    RegionDocument* m_doc;
    std::vector<partition::Region> m_before;
    std::vector<partition::Region> m_after;
};

} // namespace fxs::views
