// The app's region editing: one RegionDocument per shown graph (seeded with the graph's own
// annotation regions), the Regions dock, the Regions menu and Undo/Redo, `.fxscope` project
// save/open, and the wiring that keeps the hulls (its Regions and Highlight decoration layers),
// the node selection and the panel in sync. The current document is published through the
// AppContext. Not the region logic
// (core/partition) nor the drawing (views/graph). GUI thread only.
#pragma once

#include "core/partition/region.h"
#include "views/models/region_overlay.h"
#include "views/models/workspace.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <utility>
#include <vector>

class QAction;
class QJsonObject;
class QDockWidget;
class QMenu;
class QUndoGroup;

namespace fxs::views {
class GraphDecorations;
class NodeSelectionModel;
class RegionDocument;
class RegionsPanel;
} // namespace fxs::views

namespace fxs::partition {
struct Project;
}

namespace fxs::app {

class AppContext;

class RegionController : public QObject {
    Q_OBJECT
public:
    // Creates and docks the Regions panel ("regionsDock", tabbed with the Cache dock) and the
    // Regions menu ("regionsMenu").
    explicit RegionController(AppContext* context);
    ~RegionController() override;

    // The document of a graph once it has been shown; null otherwise.
    views::RegionDocument* document(views::GraphRef ref) const;
    // The document of the graph in the primary view; null on the welcome page or while the
    // view shows a comparison.
    views::RegionDocument* currentDocument() const { return m_current; }
    views::RegionsPanel* panel() const { return m_panel; }
    QDockWidget* dock() const { return m_dock; }
    QMenu* menu() const { return m_menu; }
    QUndoGroup* undoGroup() const { return m_undoGroup; }

    // Menu entries for MainWindow: Save/Open Project in File, Undo/Redo in Edit.
    void addFileActions(QMenu* file);
    void addEditActions(QMenu* edit);

    // Regions menu actions, also callable directly (tests). Each returns whether the edit was
    // accepted; a refusal is shown in the panel and the status bar and highlights its path.
    bool createFromSelection();
    bool growToRegion();
    bool mergeSelected();
    bool splitOffSelection();
    bool deleteSelected();
    bool autoPropose();
    // One region per outermost module of the current graph matching pattern (`layers.*.mlp`,
    // core/structure/module_match.h), in one undo step; refused when the graph's module tree is
    // not known yet, the pattern is invalid or matches nothing (said on the status line).
    bool createPerModule(const QString& pattern);

    // Regions › Plan Nested Regions…: writes the nested-region plan of the current graph's
    // repeated blocks (core/structure/nested_plan.h) to path and says on the status line how
    // many regions and instances it has; refused when the graph's module tree is not known yet
    // or the file cannot be written (said on the status line).
    bool writeNestedPlan(const QString& path);

    // Writes the current graph's regions as a `.fxscope` project. Errors go to the status bar.
    bool saveProject(const QString& path);
    // Loads the project's source (if not open yet), shows its graph and restores its regions.
    // Re-matching problems become warnings in the Problems panel. Returns false at once when
    // the project cannot be read; otherwise the regions arrive when the source has loaded
    // (projectOpened is emitted then).
    // With loadWith, a source that is not open yet is appended to it instead of being loaded
    // by itself: the caller loads everything it was given in one request (the command line).
    bool openProject(const QString& path, QStringList* loadWith = nullptr);
    // The project last saved or opened ("" when none).
    QString projectPath() const { return m_projectPath; }
    // Whether any graph's regions changed since they were opened or saved.
    bool hasUnsavedRegions() const;
    // Save Project's suggestion: the open project, else "<source name>.fxscope" beside the source
    // (a TORCH_TRACE directory names its project after the directory).
    static QString suggestedProjectPath(const QString& project, const QString& source);
    // Saves to the open project, else asks where (false when the user cancels or it fails).
    bool saveProjectAsked();

Q_SIGNALS:
    void currentDocumentChanged(fxs::views::RegionDocument* document);
    // A project's regions were restored; rematch problems counts what did not match.
    void projectOpened(const QString& path, int problems);
    // The project path or the unsaved state of the regions changed (the window title follows).
    void documentStateChanged();

public:
    // Takes a refused edit's highlighted path away (also when the selection changes); the
    // window calls it on Esc in the graph view.
    void clearRefusal();

private:
    void createDock();
    void createActions();
    void onGraphChanged();
    void setCurrent(views::RegionDocument* doc);
    views::RegionDocument* ensureDocument(views::GraphRef ref);
    void dropStaleDocuments();
    void showRegions();
    void onRefused(const QString& reason, const std::vector<graph::NodeId>& highlight);
    void updateActions();
    void createPerModuleAsked();
    void writeNestedPlanAsked();
    // Ids of the regions to act on: those picked in the panel, else those holding selected
    // nodes (document order).
    QStringList targetRegions() const;
    std::vector<graph::NodeId> selectionForRegion() const;
    void finishProjectOpen(const QString& path, const partition::Project& project,
                           views::GraphRef ref);
    views::GraphRef findGraph(const QString& file, int ordinal) const;
    void restoreSavedView(const QJsonObject& view);
    std::pair<QString, int> sourceOf(views::GraphRef ref) const;
    bool saveProjectDialog();
    void openProjectDialog();

    AppContext* m_context;
    views::NodeSelectionModel* m_selection;
    views::GraphDecorations* m_decorations;
    views::RegionsPanel* m_panel;
    QDockWidget* m_dock = nullptr;
    QMenu* m_menu = nullptr;
    QUndoGroup* m_undoGroup;
    std::vector<QAction*> m_editActions;
    struct Entry {
        views::GraphRef ref;
        graph::GraphPtr graph;
        std::unique_ptr<views::RegionDocument> doc;
    };
    std::vector<Entry> m_documents;
    views::RegionDocument* m_current = nullptr;
    bool m_showingRefusal = false;
    QString m_projectPath;
};

} // namespace fxs::app
