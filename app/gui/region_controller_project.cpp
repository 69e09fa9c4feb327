// RegionController's `.fxscope` projects: File › Save Project… / Open Project…. The source is
// the graph's file (a graph text or a TORCH_TRACE log); the view state names which graph of
// that file and what was selected: {"ordinal": n, "kind": "...", "selected": [node names]}
// (the n-th graph read from the file).
#include "app/gui/region_controller.h"

#include "app/gui/app_context.h"
#include "core/io/loader.h"
#include "core/partition/project_file.h"
#include "views/graph/graph_view.h"
#include "views/panels/region_commands.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QFile>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace fxs::app {

namespace {

bool sameFile(const QString& a, const QString& b)
{
    const QString ca = QFileInfo(a).canonicalFilePath();
    const QString cb = QFileInfo(b).canonicalFilePath();
    return ca.isEmpty() || cb.isEmpty() ? a == b : ca == cb;
}

// Every graph of the workspace in a fixed order (runs, then standalone files).
std::vector<views::GraphRef> allGraphs(const views::Workspace& ws)
{
    std::vector<views::GraphRef> refs;
    for (std::size_t r = 0; r < ws.runs().size(); ++r) {
        for (std::size_t i = 0; i < ws.runs()[r]->graphs.size(); ++i) {
            refs.push_back({int(r), int(i)});
        }
    }
    for (std::size_t i = 0; i < ws.graphFiles().size(); ++i) {
        refs.push_back({views::GraphRef::kStandalone, int(i)});
    }
    return refs;
}

QByteArray readSource(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

std::pair<QString, int> RegionController::sourceOf(views::GraphRef ref) const
{
    const auto* ws = m_context->workspace();
    const auto* artifact = ws->artifact(ref);
    if (!artifact) {
        return {{}, -1};
    }
    const QString file = QString::fromStdString(artifact->file);
    int ordinal = 0;
    for (views::GraphRef other : allGraphs(*ws)) {
        if (other == ref) {
            return {file, ordinal};
        }
        ordinal += sameFile(QString::fromStdString(ws->artifact(other)->file), file) ? 1 : 0;
    }
    return {file, -1};
}

views::GraphRef RegionController::findGraph(const QString& file, int ordinal) const
{
    const auto* ws = m_context->workspace();
    for (views::GraphRef ref : allGraphs(*ws)) {
        const auto* artifact = ws->artifact(ref);
        // Counted like sourceOf counts; a graph still to be read (deferred) will be there.
        if (sameFile(QString::fromStdString(artifact->file), file) && ordinal-- == 0) {
            return artifact->graph || artifact->deferred ? ref : views::GraphRef{};
        }
    }
    return {};
}

bool RegionController::saveProject(const QString& path)
{
    const views::GraphRef ref = m_context->currentGraph();
    const auto [file, ordinal] = sourceOf(ref);
    if (!m_current || file.isEmpty() || ordinal < 0) {
        m_context->showStatus(tr("No graph to save a project for"), 8000);
        return false;
    }
    QJsonArray selected;
    for (graph::NodeId id : m_selection->selectedNodes()) {
        selected.append(QString::fromStdString(m_current->graph()->node(id).name));
    }
    QJsonObject view{{QStringLiteral("ordinal"), ordinal},
                     {QStringLiteral("kind"),
                      QString::fromStdString(m_context->workspace()->artifact(ref)->kind)},
                     {QStringLiteral("selected"), selected}};
    if (const auto state = m_context->viewState()) {
        QJsonArray expanded;
        for (layout::GroupId id : state->expanded) {
            expanded.append(qint64(id));
        }
        view.insert(QStringLiteral("expanded"), expanded);
        view.insert(QStringLiteral("zoom"), state->zoom);
        view.insert(QStringLiteral("center"), QJsonArray{state->center.x(), state->center.y()});
    }
    const QByteArray text = readSource(file);
    const partition::Project project = partition::makeProject(
        *m_current->graph(), m_current->regions(), file.toStdString(),
        std::string_view(text.constData(), std::size_t(text.size())),
        QJsonDocument(view).toJson(QJsonDocument::Compact).toStdString());
    const Status saved = partition::saveProject(path.toStdString(), project);
    m_context->showStatus(
        saved.ok() ? tr("Saved project %1").arg(path)
                   : tr("Could not save %1: %2")
                         .arg(path, QString::fromStdString(saved.error().toString())),
        8000);
    if (saved.ok()) {
        m_projectPath = path;
        m_current->undoStack()->setClean();
        Q_EMIT documentStateChanged();
    }
    return saved.ok();
}

bool RegionController::openProject(const QString& path, QStringList* loadWith)
{
    auto loaded = partition::loadProject(path.toStdString());
    if (!loaded.ok()) {
        m_context->reportOpenFailure(path, tr("project"), loaded.error());
        return false;
    }
    auto project = std::make_shared<partition::Project>(std::move(loaded).value());
    const QString source = QString::fromStdString(project->sourcePath);
    const int ordinal = QJsonDocument::fromJson(QByteArray::fromStdString(project->viewState))
                            .object()
                            .value(QStringLiteral("ordinal"))
                            .toInt(0);
    if (const views::GraphRef ref = findGraph(source, ordinal); ref.valid()) {
        finishProjectOpen(path, *project, ref);
        return true;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(m_context, &AppContext::loadFinished, this,
                          [this, path, project, source, ordinal, connection](bool cancelled) {
                              disconnect(*connection);
                              const views::GraphRef ref = findGraph(source, ordinal);
                              if (!cancelled && ref.valid()) {
                                  finishProjectOpen(path, *project, ref);
                                  return;
                              }
                              m_context->showStatus(
                                  tr("Project %1: its graph was not found in %2")
                                      .arg(path, source),
                                  10000);
                          });
    if (loadWith) {
        loadWith->append(source);
    } else {
        m_context->requestOpen({source});
    }
    return true;
}

void RegionController::finishProjectOpen(const QString& path, const partition::Project& project,
                                         views::GraphRef ref)
{
    m_context->requestGraph(ref);
    views::Workspace* ws = m_context->workspace();
    if (ws->parsePending(ref)) { // read in the background since requestGraph: come back then
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = connect(ws, &views::Workspace::graphReady, this,
                              [this, path, project, ref, connection](views::GraphRef parsed) {
                                  if (parsed == ref) {
                                      disconnect(*connection);
                                      finishProjectOpen(path, project, ref);
                                  }
                              });
        return;
    }
    if (!ws->graph(ref)) {
        m_context->showStatus(tr("Project %1: its graph could not be read").arg(path), 10000);
        return;
    }
    views::RegionDocument* doc = ensureDocument(ref);
    const QByteArray text = readSource(QString::fromStdString(project.sourcePath));
    partition::Rematch rematch = partition::rematchProject(
        project, *doc->graph(), std::string_view(text.constData(), std::size_t(text.size())));
    doc->resetRegions(std::move(rematch.regions));
    std::vector<graph::NodeId> selected;
    const QJsonArray names = QJsonDocument::fromJson(QByteArray::fromStdString(project.viewState))
                                 .object()
                                 .value(QStringLiteral("selected"))
                                 .toArray();
    for (const QJsonValue& name : names) {
        if (auto id = doc->graph()->find(name.toString().toStdString())) {
            selected.push_back(*id);
        }
    }
    m_selection->select(selected);
    restoreSavedView(QJsonDocument::fromJson(QByteArray::fromStdString(project.viewState))
                         .object());
    m_projectPath = path;
    Q_EMIT documentStateChanged();
    io::LoadResult report;
    Diagnostics& d = report.diagnostics;
    const std::string file = path.toStdString();
    if (rematch.sourceChanged) {
        d.warning(file, 0, "the graph's source changed since the project was saved; regions "
                           "were re-matched by node name");
    }
    for (const partition::Unmatched& u : rematch.missingNodes) {
        d.warning(file, 0, "region " + u.region + ": node '" + u.node + "' is not in the graph");
    }
    for (const std::string& id : rematch.emptyRegions) {
        d.warning(file, 0, "region " + id + ": none of its nodes is in the graph; left out");
    }
    for (const partition::InvalidRegion& r : rematch.invalidRegions) {
        d.warning(file, 0, "region " + r.region + " left out: " + r.reason);
    }
    const int problems = int(d.size());
    if (problems > 0) {
        m_context->workspace()->add(std::move(report));
        if (QDockWidget* dock = m_context->dock(QStringLiteral("problemsDock"))) {
            dock->show();
            dock->raise();
        }
    }
    m_context->showStatus(
        problems == 0 ? tr("Opened project %1").arg(path)
                      : tr("Opened project %1 — %n problem(s), see the Problems panel", "",
                           problems)
                            .arg(path),
        10000);
    Q_EMIT projectOpened(path, problems);
}

// The expansion, zoom and centre a project saved (projects without them open fitted).
void RegionController::restoreSavedView(const QJsonObject& view)
{
    if (!view.contains(QStringLiteral("expanded")) || !view.contains(QStringLiteral("zoom"))) {
        return;
    }
    views::GraphView::ViewState state;
    for (const QJsonValue& id : view.value(QStringLiteral("expanded")).toArray()) {
        if (id.toInteger(-1) >= 0) {
            state.expanded.push_back(layout::GroupId(id.toInteger()));
        }
    }
    state.zoom = view.value(QStringLiteral("zoom")).toDouble(1.0);
    if (!(state.zoom > 0.0)) {
        return;
    }
    const QJsonArray center = view.value(QStringLiteral("center")).toArray();
    state.center = QPointF(center.at(0).toDouble(), center.at(1).toDouble());
    m_context->restoreViewState(state);
}

QString RegionController::suggestedProjectPath(const QString& project, const QString& source)
{
    if (!project.isEmpty()) {
        return project;
    }
    if (source.isEmpty()) {
        return QStringLiteral("regions.fxscope");
    }
    const QFileInfo info(source);
    const QString name = info.isDir() ? info.fileName() : info.completeBaseName();
    return info.dir().filePath((name.isEmpty() ? QStringLiteral("regions") : name) +
                               QStringLiteral(".fxscope"));
}

bool RegionController::saveProjectAsked()
{
    return m_projectPath.isEmpty() ? saveProjectDialog() : saveProject(m_projectPath);
}

bool RegionController::saveProjectDialog()
{
    const QString suggestion =
        suggestedProjectPath(m_projectPath, sourceOf(m_context->currentGraph()).first);
    QString path = QFileDialog::getSaveFileName(m_context->host(), tr("Save Project"),
                                                suggestion, tr("fxscope projects (*.fxscope)"));
    if (path.isEmpty()) {
        return false;
    }
    if (!path.endsWith(QStringLiteral(".fxscope"), Qt::CaseInsensitive)) {
        path += QStringLiteral(".fxscope");
    }
    return saveProject(path);
}

void RegionController::openProjectDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        m_context->host(), tr("Open Project"), QString(),
        tr("fxscope projects (*.fxscope);;All files (*)"));
    if (!path.isEmpty()) {
        openProject(path);
    }
}

} // namespace fxs::app
