#include "app/gui/app_context.h"

#include "app/gui/shown_graph.h"
#include "app/gui/workspace_loader.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QStatusBar>

namespace fxs::app {

AppContext::AppContext(QMainWindow* host, views::Workspace* workspace, views::GraphView* view,
                       QObject* parent)
    : QObject(parent), m_host(host), m_workspace(workspace), m_view(view),
      m_decorations(new views::GraphDecorations(this)),
      m_selection(new views::NodeSelectionModel(this)), m_loader(new WorkspaceLoader(this)),
      m_shown(new ShownGraph(workspace, m_loader, this))
{
    m_loader->setWorkspace(workspace);
    if (m_view != nullptr) {
        m_view->setDecorations(m_decorations);
        m_view->setSelectionModel(m_selection);
    }
    setCachePath(QString());
}

std::optional<views::GraphView::ViewState> AppContext::viewState() const
{
    return m_view != nullptr ? m_view->viewState() : std::nullopt;
}

void AppContext::restoreViewState(const views::GraphView::ViewState& state)
{
    if (m_view != nullptr) {
        m_view->restoreViewState(state);
    }
}

views::GraphRef AppContext::currentGraph() const
{
    return m_shown->ref();
}

void AppContext::setStructure(views::GraphRef ref,
                              std::shared_ptr<const structure::ModuleTree> tree)
{
    m_structureRef = ref;
    m_structure = std::move(tree);
    if (m_structure) {
        Q_EMIT structureKnown(ref);
    }
}

void AppContext::setCurrentGraph(views::GraphRef ref)
{
    m_shown->request(ref);
}

void AppContext::setCurrentDocument(views::RegionDocument* document)
{
    if (m_document != document) {
        m_document = document;
        Q_EMIT currentDocumentChanged(document);
    }
}

void AppContext::setCachePath(const QString& path)
{
    QString resolved = path.trimmed();
    if (resolved.isEmpty()) {
        auto def = cache::defaultCachePath();
        if (def) {
            resolved = QString::fromStdString(*def);
        } else {
            showStatus(QString::fromStdString(def.error().toString()), 8000);
        }
    }
    m_cachePath = resolved;
    Q_EMIT cachePathChanged(resolved);
}

void AppContext::setRemoteUrl(const QString& url)
{
    m_remoteUrl = url.trimmed();
    Q_EMIT remoteUrlChanged(m_remoteUrl);
}

Result<std::unique_ptr<remote::RemoteTier>> AppContext::openRemote(const std::string& url)
{
    if (url.empty()) {
        return std::unique_ptr<remote::RemoteTier>();
    }
    remote::RemoteOptions options;
    options.url = url;
    return remote::RemoteTier::open(options);
}

Result<std::unique_ptr<cache::CacheStore>> AppContext::openCache(const std::string& path)
{
    cache::StoreOptions options;
    options.path = path;
    return cache::CacheStore::open(options);
}

void AppContext::showStatus(const QString& text, int timeoutMs)
{
    m_host->statusBar()->showMessage(text, timeoutMs);
    Q_EMIT statusShown(text, timeoutMs);
}

void AppContext::reportOpenFailure(const QString& path, const QString& what, const Error& error)
{
    Diagnostic d;
    d.file = path.toStdString();
    d.message = tr("could not open the %1: %2").arg(what, QString::fromStdString(error.message))
                    .toStdString();
    d.expected = error.expected;
    d.found = error.found;
    showStatus(QString::fromStdString(d.toString()), 10000);
    m_workspace->reportProblem(std::move(d));
}

void AppContext::addStatusWidget(QWidget* widget)
{
    m_host->statusBar()->addPermanentWidget(widget);
}

QDockWidget* AppContext::addBottomDock(QWidget* panel, const QString& title,
                                       const QString& objectName)
{
    auto* dock = new QDockWidget(title, m_host);
    dock->setObjectName(objectName);
    dock->setWidget(panel);
    m_host->addDockWidget(Qt::BottomDockWidgetArea, dock);
    if (QDockWidget* cache = this->dock(QStringLiteral("cacheDock"))) {
        m_host->tabifyDockWidget(cache, dock);
        cache->raise(); // tabifying shows the new tab; the Cache tab stays in front
    }
    return dock;
}

QDockWidget* AppContext::dock(const QString& objectName) const
{
    return m_host->findChild<QDockWidget*>(objectName, Qt::FindDirectChildrenOnly);
}

} // namespace fxs::app
