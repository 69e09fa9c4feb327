// AppContext: what the app's controllers may use of the app, handed to them by MainWindow (or
// by a test around a plain QMainWindow): the workspace and its loader, the shown graph
// (ShownGraph), the decorations and node selection of the graph on screen (never the GraphView
// widget: the view renders them), the current region document, the cache database, the status
// line and the dock host. Requests that only the window can serve (show a graph, open paths)
// are signals the window connects. Not a service locator: controllers get nothing else and
// never each other.
#pragma once

#include "core/cache/cache_store.h"
#include "core/remote/remote_tier.h"
#include "core/graph/graph.h"
#include "core/structure/module_tree.h"
#include "core/util/error.h"
#include "views/graph/graph_view.h"
#include "views/models/graph_decorations.h"
#include "views/models/node_selection_model.h"
#include "views/models/workspace.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

class QDockWidget;
class QMainWindow;
class QWidget;

namespace fxs::views {
class RegionDocument;
} // namespace fxs::views

namespace fxs::app {

class ShownGraph;
class WorkspaceLoader;

class AppContext : public QObject {
    Q_OBJECT
public:
    // host: parent of docks and dialogs, owner of the status bar. view: the primary graph
    // view (may be null in tests): it renders this context's decorations and selection. The
    // cache database starts at the default path (cache::defaultCachePath, FXSCOPE_CACHE_DIR).
    AppContext(QMainWindow* host, views::Workspace* workspace, views::GraphView* view,
               QObject* parent = nullptr);

    QMainWindow* host() const { return m_host; }
    views::Workspace* workspace() const { return m_workspace; }
    // Loads and deferred parses into the workspace.
    WorkspaceLoader* loader() const { return m_loader; }
    // The life of the shown graph: which one (refChanged), parsed (graphReady), structured,
    // laid out.
    ShownGraph* shownGraph() const { return m_shown; }
    // What is drawn on the graph on screen, by layer (each controller writes its own), and
    // the graph they are about (decorations()->graph(): the primary view's graph, which may
    // be a body or a comparison's B rather than currentGraph()'s).
    views::GraphDecorations* decorations() const { return m_decorations; }
    // The nodes selected in the graph on screen, and its current node.
    views::NodeSelectionModel* selection() const { return m_selection; }
    // How the user left the view (expanded groups, zoom, centre), for projects; none without
    // a graph on screen. restoreViewState applies one to the graph just shown.
    std::optional<views::GraphView::ViewState> viewState() const;
    void restoreViewState(const views::GraphView::ViewState& state);

    // The workspace graph shown (shownGraph()->ref(); invalid on the welcome page, or while a
    // body is shown). setCurrentGraph requests one (shownGraph()->request).
    views::GraphRef currentGraph() const;
    void setCurrentGraph(views::GraphRef ref);
    // The region document of the shown graph (set by the region controller; null when none).
    views::RegionDocument* currentDocument() const { return m_document; }
    // The module tree of graph ref (set by the structure controller when it is known); the
    // tree of the current graph, null when not known (yet).
    void setStructure(views::GraphRef ref, std::shared_ptr<const structure::ModuleTree> tree);
    std::shared_ptr<const structure::ModuleTree> currentStructure() const
    {
        return m_structureRef == currentGraph() ? m_structure : nullptr;
    }
    void setCurrentDocument(views::RegionDocument* document);

    // The region compiler's cache database: one path for compiling, profiling and browsing.
    // An empty path means the default one; a path without a default stays empty (and the
    // reason goes to the status line).
    QString cachePath() const { return m_cachePath; }
    void setCachePath(const QString& path);
    // Opens the database at cachePath() (any thread; the store is the caller's).
    static Result<std::unique_ptr<cache::CacheStore>> openCache(const std::string& path);
    // The remote tier of the cache (redis://host:port[/db]; empty: none), for compiling and
    // profiling; the Cache browser edits it. Emits remoteUrlChanged.
    QString remoteUrl() const { return m_remoteUrl; }
    void setRemoteUrl(const QString& url);
    // Opens the tier at url (any thread; null when url is empty). Errors: a bad URL, a refused
    // key file. An unreachable server is not an error (the tier's warnings say so).
    static Result<std::unique_ptr<remote::RemoteTier>> openRemote(const std::string& url);
    // A job wrote to the cache database (emits cacheWritten, e.g. the browser reloads).
    void notifyCacheWritten() { Q_EMIT cacheWritten(); }

    // The status line: a transient message (also emitted as statusShown, for tests) and
    // permanent widgets (progress bars, Cancel buttons).
    void showStatus(const QString& text, int timeoutMs = 5000);
    // A file the user asked to open that could not be: the status bar says so for a while and
    // the Problems dock keeps it (file, what went wrong, expected and found). `what`: "project".
    void reportOpenFailure(const QString& path, const QString& what, const Error& error);
    void addStatusWidget(QWidget* widget);

    // A bottom dock for panel (objectName set), tabbed with the Cache dock when there is one.
    QDockWidget* addBottomDock(QWidget* panel, const QString& title, const QString& objectName);
    // A dock of the host by object name; null when absent.
    QDockWidget* dock(const QString& objectName) const;

    // Requests for the window (signals below): show a graph (and select it in the navigator),
    // show a cache lookup (selected in the Cache dock), make a node the current one (inspector,
    // code), open paths in the background.
    void requestGraph(views::GraphRef ref) { Q_EMIT graphRequested(ref); }
    void requestLookup(views::LookupRef ref) { Q_EMIT lookupRequested(ref); }
    void requestNode(graph::NodeId id) { Q_EMIT nodeRequested(id); }
    void requestOpen(const QStringList& paths) { Q_EMIT openRequested(paths); }

Q_SIGNALS:
    void currentDocumentChanged(fxs::views::RegionDocument* document);
    void cachePathChanged(const QString& path);
    void remoteUrlChanged(const QString& url);
    void cacheWritten();
    // The module tree of graph ref became known (setStructure).
    void structureKnown(fxs::views::GraphRef ref);
    void statusShown(const QString& text, int timeoutMs);
    void graphRequested(fxs::views::GraphRef ref);
    void lookupRequested(fxs::views::LookupRef ref);
    void nodeRequested(fxs::graph::NodeId id);
    void openRequested(const QStringList& paths);
    // A background load ended (its results are in the workspace) or was cancelled.
    void loadFinished(bool cancelled);

private:
    QMainWindow* m_host;
    views::Workspace* m_workspace;
    views::GraphView* m_view; // rendering only: never handed out
    views::GraphDecorations* m_decorations;
    views::NodeSelectionModel* m_selection;
    WorkspaceLoader* m_loader;
    ShownGraph* m_shown;
    views::RegionDocument* m_document = nullptr;
    views::GraphRef m_structureRef;
    std::shared_ptr<const structure::ModuleTree> m_structure;
    QString m_cachePath;
    QString m_remoteUrl;
};

} // namespace fxs::app
