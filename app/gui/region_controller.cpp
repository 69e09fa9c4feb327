#include "app/gui/region_controller.h"

#include "app/gui/app_context.h"
#include "core/compile/graph_compile.h"
#include "core/layout/palette.h"
#include "core/partition/auto_proposal.h"
#include "core/partition/partitioner.h"
#include "core/partition/region_edit.h"
#include "core/structure/module_match.h"
#include "views/panels/region_commands.h"
#include "views/panels/regions_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>
#include <QUndoGroup>

#include <algorithm>

namespace fxs::app {

namespace {

// Tints follow the number in the id ("r3" → the fourth palette tint), so a region keeps its
// colour when others are deleted.
QColor tintFor(const partition::Region& region, std::size_t index)
{
    std::size_t n = index;
    if (region.id.size() > 1 && region.id[0] == 'r') {
        bool ok = false;
        const int parsed = QString::fromStdString(region.id.substr(1)).toInt(&ok);
        n = ok && parsed >= 0 ? static_cast<std::size_t>(parsed) : index;
    }
    return QColor(QLatin1String(layout::regionTint(n).data()));
}

QString overlayLabel(const partition::Region& region)
{
    QString label = QString::fromStdString(region.label());
    if (region.annotation) {
        label += QStringLiteral(" · %1").arg(QString::fromStdString(*region.annotation));
    }
    return label;
}

} // namespace

RegionController::RegionController(AppContext* context)
    : QObject(context), m_context(context), m_selection(context->selection()),
      m_decorations(context->decorations()),
      m_panel(new views::RegionsPanel(context->host())), m_undoGroup(new QUndoGroup(this))
{
    createDock();
    createActions();
    // The document's hulls and a refusal's path are this controller's layers.
    m_decorations->claim(views::DecorationLayer::Regions, this);
    m_decorations->claim(views::DecorationLayer::Highlight, this);
    connect(m_decorations, &views::GraphDecorations::graphChanged, this,
            &RegionController::onGraphChanged);
    connect(m_selection, &views::NodeSelectionModel::selectionChanged, this,
            [this](const std::vector<graph::NodeId>& nodes) {
                clearRefusal();
                m_panel->setSelectedNodes(nodes);
            });
    connect(m_panel, &views::RegionsPanel::regionActivated, this,
            [this](const std::vector<graph::NodeId>& nodes) { m_selection->select(nodes); });
    connect(context->workspace(), &views::Workspace::changed, this,
            &RegionController::dropStaleDocuments);
    updateActions();
}

RegionController::~RegionController()
{
    // The panel lets go of its document when that is destroyed.
    m_context->setCurrentDocument(nullptr);
    m_current = nullptr;
    m_documents.clear();
}

void RegionController::createDock()
{
    // Bottom, tabbed with Cache and Problems: the table wants width more than height.
    m_dock = m_context->addBottomDock(m_panel, tr("Regions"), QStringLiteral("regionsDock"));
}

void RegionController::createActions()
{
    m_menu = new QMenu(tr("&Regions"), m_context->host());
    m_menu->setObjectName(QStringLiteral("regionsMenu"));
    const auto add = [this](const QString& text, const QKeySequence& key, auto slot) {
        QAction* a = m_menu->addAction(text, key, this, [this, slot] { (this->*slot)(); });
        m_editActions.push_back(a);
        return a;
    };
    add(tr("&Create Region from Selection"), QKeySequence(tr("Ctrl+R")),
        &RegionController::createFromSelection)
        ->setStatusTip(tr("Select nodes with Shift/Ctrl-click, or Shift-drag a rubber band"));
    add(tr("&Grow to Region"), QKeySequence(tr("Ctrl+Shift+R")), &RegionController::growToRegion)
        ->setStatusTip(tr("The largest acyclic region of supported ops around the current node"));
    add(tr("&Merge Regions"), {}, &RegionController::mergeSelected);
    add(tr("&Split off Selection"), {}, &RegionController::splitOffSelection);
    add(tr("&Delete Region"), {}, &RegionController::deleteSelected);
    add(tr("Create per &Module Matching…"), {}, &RegionController::createPerModuleAsked)
        ->setObjectName(QStringLiteral("createPerModuleAction"));
    add(tr("Plan &Nested Regions…"), {}, &RegionController::writeNestedPlanAsked)
        ->setObjectName(QStringLiteral("planNestedAction"));
    m_menu->addSeparator();
    add(tr("&Auto-propose Regions"), {}, &RegionController::autoPropose)
        ->setStatusTip(tr("Add maximal acyclic regions of supported ops outside the regions"));
    m_menu->addSeparator();
    m_menu->addAction(m_dock->toggleViewAction());
}

void RegionController::addFileActions(QMenu* file)
{
    file->addAction(tr("Open &Project…"), this, &RegionController::openProjectDialog)
        ->setObjectName(QStringLiteral("openProjectAction"));
    QAction* save = file->addAction(tr("&Save Project"), QKeySequence::Save, this,
                                    &RegionController::saveProjectAsked);
    save->setObjectName(QStringLiteral("saveProjectAction"));
    QAction* saveAs = file->addAction(tr("Save Project &As…"), QKeySequence::SaveAs, this,
                                      &RegionController::saveProjectDialog);
    saveAs->setObjectName(QStringLiteral("saveProjectAsAction"));
    m_editActions.push_back(save);
    m_editActions.push_back(saveAs);
    updateActions();
}

void RegionController::addEditActions(QMenu* edit)
{
    QAction* first = edit->actions().value(0);
    QAction* undo = m_undoGroup->createUndoAction(edit, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_undoGroup->createRedoAction(edit, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->insertAction(first, undo);
    edit->insertAction(first, redo);
    edit->insertSeparator(first);
}

views::RegionDocument* RegionController::document(views::GraphRef ref) const
{
    const graph::GraphPtr g = m_context->workspace()->graph(ref);
    for (const Entry& e : m_documents) {
        if (e.ref == ref && e.graph == g && g) {
            return e.doc.get();
        }
    }
    return nullptr;
}

void RegionController::onGraphChanged()
{
    const graph::GraphPtr shown = m_decorations->graph();
    const views::GraphRef ref = m_context->currentGraph();
    views::RegionDocument* doc = nullptr;
    // A comparison puts another graph in the primary view: no document for it.
    if (shown && ref.valid() && m_context->workspace()->graph(ref) == shown) {
        doc = ensureDocument(ref);
    }
    setCurrent(doc);
}

views::RegionDocument* RegionController::ensureDocument(views::GraphRef ref)
{
    if (auto* doc = document(ref)) {
        return doc;
    }
    std::erase_if(m_documents, [&](const Entry& e) { return e.ref == ref; });
    const graph::GraphPtr g = m_context->workspace()->graph(ref);
    auto doc = std::make_unique<views::RegionDocument>(g);
    doc->resetRegions(partition::partitionByAnnotation(*g).regions);
    views::RegionDocument* raw = doc.get();
    connect(raw, &views::RegionDocument::regionsChanged, this, [this, raw] {
        if (raw == m_current) {
            showRegions();
        }
    });
    connect(raw, &views::RegionDocument::editRefused, this,
            [this, raw](const QString& reason, const std::vector<graph::NodeId>& highlight) {
                if (raw == m_current) {
                    onRefused(reason, highlight);
                }
            });
    m_undoGroup->addStack(raw->undoStack());
    connect(raw->undoStack(), &QUndoStack::cleanChanged, this,
            &RegionController::documentStateChanged);
    m_documents.push_back({ref, g, std::move(doc)});
    return raw;
}

// After a reload or Close All, a reference may name another graph or none: drop its document.
void RegionController::dropStaleDocuments()
{
    const auto* ws = m_context->workspace();
    const auto stale = [ws](const Entry& e) { return ws->graph(e.ref) != e.graph; };
    if (m_current) {
        for (const Entry& e : m_documents) {
            if (e.doc.get() == m_current && stale(e)) {
                setCurrent(nullptr);
            }
        }
    }
    std::erase_if(m_documents, stale);
    if (m_documents.empty()) {
        m_projectPath.clear(); // Close All closes the project
    }
    Q_EMIT documentStateChanged();
}

bool RegionController::hasUnsavedRegions() const
{
    return std::any_of(m_documents.begin(), m_documents.end(),
                       [](const Entry& e) { return !e.doc->undoStack()->isClean(); });
}

void RegionController::setCurrent(views::RegionDocument* doc)
{
    const bool changed = doc != m_current;
    m_current = doc;
    m_showingRefusal = false;
    if (changed) {
        m_undoGroup->setActiveStack(doc ? doc->undoStack() : nullptr);
        m_panel->setDocument(doc);
        m_panel->setSelectedNodes(m_selection->selectedNodes());
    }
    showRegions();
    updateActions();
    if (changed) {
        m_context->setCurrentDocument(doc);
        Q_EMIT currentDocumentChanged(doc);
    }
}

void RegionController::showRegions()
{
    if (m_showingRefusal) {
        m_decorations->setHighlighted(views::DecorationLayer::Highlight, {});
        m_showingRefusal = false;
    }
    if (!m_current) {
        return; // the view keeps the graph's annotation hulls (or shows nothing)
    }
    std::vector<views::RegionOverlay> overlays;
    const auto& regions = m_current->regions();
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const partition::Region& r = regions[i];
        overlays.push_back({QString::fromStdString(r.id), overlayLabel(r), r.nodes,
                            tintFor(r, i)});
    }
    m_decorations->setRegions(views::DecorationLayer::Regions, std::move(overlays));
}

// A refused edit's highlighted path stays until the selection changes or is cleared (Esc).
void RegionController::clearRefusal()
{
    if (m_showingRefusal) {
        m_decorations->setHighlighted(views::DecorationLayer::Highlight, {});
        m_showingRefusal = false;
    }
}

void RegionController::onRefused(const QString& reason,
                                 const std::vector<graph::NodeId>& highlight)
{
    m_decorations->setHighlighted(views::DecorationLayer::Highlight, highlight);
    m_showingRefusal = !highlight.empty();
    m_context->showStatus(tr("Region edit refused: %1").arg(reason), 15000);
    // The panel shows the whole reason (the status bar cuts long paths).
    m_dock->show();
    m_dock->raise();
}

void RegionController::updateActions()
{
    for (QAction* a : m_editActions) {
        a->setEnabled(m_current != nullptr);
    }
}

QStringList RegionController::targetRegions() const
{
    QStringList ids = m_panel->selectedRegionIds();
    if (!ids.isEmpty() || !m_current) {
        return ids;
    }
    const auto selected = m_selection->selectedNodes();
    for (const partition::Region& r : m_current->regions()) {
        const bool touched = std::any_of(selected.begin(), selected.end(),
                                         [&](graph::NodeId id) { return r.contains(id); });
        if (touched) {
            ids << QString::fromStdString(r.id);
        }
    }
    return ids;
}

// The selected nodes that may be in a region at all (no graph inputs, no output).
std::vector<graph::NodeId> RegionController::selectionForRegion() const
{
    std::vector<graph::NodeId> nodes;
    const graph::Graph& g = *m_current->graph();
    for (graph::NodeId id : m_selection->selectedNodes()) {
        if (!g.node(id).isPlaceholder() && !g.node(id).isOutput()) {
            nodes.push_back(id);
        }
    }
    return nodes;
}

bool RegionController::createFromSelection()
{
    if (!m_current) {
        return false;
    }
    const auto nodes = selectionForRegion();
    if (nodes.empty()) {
        m_context->showStatus(tr("Select the nodes of the new region first"), 8000);
        return false;
    }
    return m_current->createRegion(nodes);
}

bool RegionController::growToRegion()
{
    const auto seed = m_selection->currentNode();
    if (!m_current || !seed) {
        m_context->showStatus(tr("Select the node to grow a region from"), 8000);
        return false;
    }
    if (!m_current->growToRegion(*seed)) {
        return false;
    }
    for (const partition::Region& r : m_current->regions()) {
        if (r.contains(*seed)) {
            m_selection->select(r.nodes);
        }
    }
    return true;
}

bool RegionController::mergeSelected()
{
    const QStringList ids = targetRegions();
    if (!m_current || ids.size() < 2) {
        m_context->showStatus(
            tr("Pick two or more regions (in the Regions panel or by selecting their nodes)"),
            8000);
        return false;
    }
    bool ok = true;
    m_current->undoStack()->beginMacro(tr("Merge regions"));
    for (int i = 1; i < ids.size() && ok; ++i) {
        ok = m_current->mergeRegions(ids.front(), ids[i]);
    }
    m_current->undoStack()->endMacro();
    return ok;
}

bool RegionController::splitOffSelection()
{
    const QStringList ids = targetRegions();
    if (!m_current || ids.size() != 1) {
        m_context->showStatus(
            tr("Select nodes of exactly one region to split them off"), 8000);
        return false;
    }
    std::vector<graph::NodeId> moveOut;
    for (const partition::Region& r : m_current->regions()) {
        if (QString::fromStdString(r.id) == ids.front()) {
            for (graph::NodeId id : m_selection->selectedNodes()) {
                if (r.contains(id)) {
                    moveOut.push_back(id);
                }
            }
        }
    }
    return m_current->splitRegion(ids.front(), moveOut);
}

bool RegionController::deleteSelected()
{
    const QStringList ids = targetRegions();
    if (!m_current || ids.isEmpty()) {
        m_context->showStatus(tr("Pick the regions to delete"), 8000);
        return false;
    }
    bool ok = true;
    m_current->undoStack()->beginMacro(tr("Delete %n region(s)", "", int(ids.size())));
    for (const QString& id : ids) {
        ok = m_current->deleteRegion(id) && ok;
    }
    m_current->undoStack()->endMacro();
    return ok;
}

// Proposes regions among the nodes in no region yet, so hand-made regions stay as they are.
void RegionController::createPerModuleAsked()
{
    bool ok = false;
    const QString pattern = QInputDialog::getText(
        m_context->host(), tr("Create per Module Matching"),
        tr("Module path pattern (* one component, ** any number), e.g. layers.*.mlp:"),
        QLineEdit::Normal, QStringLiteral("layers.*.mlp"), &ok);
    if (ok && !pattern.trimmed().isEmpty()) {
        createPerModule(pattern.trimmed());
    }
}

bool RegionController::createPerModule(const QString& pattern)
{
    const auto tree = m_context->currentStructure();
    if (!m_current || !tree) {
        m_context->showStatus(tr("The module structure of this graph is not known yet"));
        return false;
    }
    auto matches = structure::moduleNodesMatching(*m_current->graph(), *tree,
                                                  pattern.toStdString());
    if (!matches || matches->empty()) {
        m_context->showStatus(matches ? tr("No module matches %1").arg(pattern)
                                      : QString::fromStdString(matches.error().message));
        return false;
    }
    std::vector<std::pair<std::string, std::vector<graph::NodeId>>> named;
    for (auto& m : *matches) {
        named.emplace_back(std::move(m.path), std::move(m.nodes));
    }
    const int count = static_cast<int>(named.size());
    return m_current->createRegions(std::move(named),
                                    tr("Create %1 regions per module %2").arg(count).arg(pattern));
}

bool RegionController::autoPropose()
{
    if (!m_current) {
        return false;
    }
    const graph::Graph& g = *m_current->graph();
    std::vector<partition::Region> regions = m_current->regions();
    partition::ProposalOptions options;
    for (const partition::Region& r : regions) {
        for (graph::NodeId id : r.nodes) {
            options.excludedNodes.push_back(g.node(id).name);
        }
    }
    // What `run --compiled --auto` leaves out for the device it would run on: the sums of
    // matrix products and the convolutions' steps form outside the regions.
    compile::GraphCompileOptions compiled;
    compiled.compile.device = compile::resolveDevice(g, compile::DeviceChoice::Auto);
    for (auto& name : compile::autoProposalLeftOut(g, compiled)) {
        options.excludedNodes.push_back(std::move(name));
    }
    partition::Partition proposal = partition::proposeRegions(g, options);
    if (proposal.regions.empty()) {
        m_context->showStatus(tr("No further regions to propose"), 8000);
        return false;
    }
    for (partition::Region& r : proposal.regions) {
        r.id = partition::nextRegionId(regions);
        regions.push_back(std::move(r));
    }
    return m_current->replaceRegions(
        std::move(regions), tr("Auto-propose %n region(s)", "", int(proposal.regions.size())));
}

} // namespace fxs::app
