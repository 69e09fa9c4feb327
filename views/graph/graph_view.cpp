#include "views/graph/graph_view.h"

#include "core/layout/layout_cache.h"
#include "views/graph/find_bar.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_exporter.h"
#include "views/graph/graph_finder.h"
#include "views/graph/graph_legend.h"
#include "views/graph/graph_scene.h"
#include "views/graph/layout_job.h"

#include <QEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QShortcut>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace fxs::views {



GraphView::GraphView(QWidget* parent)
    : QWidget(parent), m_scene(new GraphScene(this)), m_canvas(new GraphCanvas(this)),
      m_layoutCache(std::make_shared<layout::LayoutCache>())
{
    m_canvas->setScene(m_scene);
    m_findBar = new FindBar(this);
    m_findBar->hide();
    m_finder = new GraphFinder(m_findBar, this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_findBar);
    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("graphBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::PlainText);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setAutoFillBackground(true);
    m_banner->setBackgroundRole(QPalette::ToolTipBase);
    m_banner->setForegroundRole(QPalette::ToolTipText);
    m_banner->setMargin(6);
    m_banner->hide();
    layout->addWidget(m_banner);
    layout->addWidget(m_canvas, 1);
    m_minimap = new Minimap(m_canvas, m_canvas);
    m_minimap->resize(200, 140);
    m_legend = new GraphLegend(m_canvas);
    m_busy = new QLabel(tr("Laying out…"), m_canvas);
    m_busy->setAutoFillBackground(true);
    m_busy->setBackgroundRole(QPalette::ToolTipBase);
    m_busy->setForegroundRole(QPalette::ToolTipText);
    m_busy->setMargin(8);
    m_busy->hide();
    m_canvas->installEventFilter(this);
    m_canvas->viewport()->installEventFilter(this); // its geometry is final when it resizes
    applyStyle();
    setupShortcuts();
    setDecorations(new GraphDecorations(this));
    setSelectionModel(new NodeSelectionModel(this));

    connect(m_scene, &GraphScene::nodeClicked, this, &GraphView::onNodeClicked);
    connect(m_canvas, &GraphCanvas::rubberBandSelected, this, &GraphView::onRubberBand);
    connect(m_scene, &GraphScene::groupToggled, this, &GraphView::onGroupToggled);
    connect(m_scene, &GraphScene::jumpRequested, this, &GraphView::selectNode);
    connect(m_scene, &GraphScene::nodeDoubleClicked, this, &GraphView::nodeActivated);
    connect(m_canvas, &GraphCanvas::backgroundClicked, this,
            [this] { m_selectionModel->clear(); });
    connect(m_canvas, &GraphCanvas::viewportChanged, this, [this] {
        m_minimap->updateVisibility();
        positionOverlays(); // the selected node may have moved under one of them
    });
    connect(m_finder, &GraphFinder::nodeFound, this, &GraphView::goToMatch);
    connect(m_findBar, &FindBar::nextRequested, this, &GraphView::findNext);
    connect(m_findBar, &FindBar::previousRequested, this, &GraphView::findPrevious);
    connect(m_findBar, &FindBar::closed, m_finder, &GraphFinder::close);
    connect(m_findBar, &FindBar::closed, m_canvas, qOverload<>(&QWidget::setFocus));
}

// Layout jobs hold only shared snapshots; the tracker cancels them and waits a bounded time.
GraphView::~GraphView() = default;

void GraphView::setDecorations(GraphDecorations* decorations)
{
    for (const auto& c : m_decorationConnections) {
        disconnect(c);
    }
    m_decorations = decorations;
    m_decorationConnections = {
        connect(decorations, &GraphDecorations::regionsChanged, this, &GraphView::drawRegions),
        connect(decorations, &GraphDecorations::regionTintChanged, this,
                &GraphView::drawRegionTint),
        connect(decorations, &GraphDecorations::nodeColorsChanged, this,
                &GraphView::drawNodeMarks),
        connect(decorations, &GraphDecorations::highlightedChanged, this,
                &GraphView::onHighlightedChanged),
        connect(decorations, &GraphDecorations::bannerChanged, this, &GraphView::drawBanner),
    };
    if (decorations->graph() != m_graph) {
        decorations->setGraph(m_graph); // they are about what this view shows
    }
    m_finder->setDecorations(decorations);
    drawRegions();
    drawNodeMarks();
    drawBanner();
}

void GraphView::setSelectionModel(NodeSelectionModel* selection)
{
    for (const auto& c : m_selectionConnections) {
        disconnect(c);
    }
    m_selectionModel = selection;
    m_selectionConnections = {
        connect(selection, &NodeSelectionModel::selectionChanged, this,
                [this](const std::vector<graph::NodeId>& nodes) {
                    if (!isLayoutPending()) {
                        markSelection();
                    }
                    Q_EMIT selectionChanged(nodes);
                }),
        connect(selection, &NodeSelectionModel::currentChanged, this,
                &GraphView::onCurrentChanged),
        connect(selection, &NodeSelectionModel::currentCleared, this,
                &GraphView::onCurrentChanged),
    };
    if (selection->graph() != m_graph) {
        selection->setGraph(m_graph);
    }
}

// The current node moved (or went): drawn, and reported as the view's own signals.
void GraphView::onCurrentChanged()
{
    if (!isLayoutPending()) {
        markSelection();
    }
    if (const auto current = m_selectionModel->currentNode()) {
        Q_EMIT nodeSelected(*current);
    } else {
        Q_EMIT selectionCleared();
    }
}

void GraphView::setupShortcuts()
{
    const auto add = [this](const QKeySequence& key, auto slot) {
        auto* s = new QShortcut(key, this);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, this, slot);
        return s;
    };
    m_sharedShortcuts = {add(QKeySequence::Find, [this] { showFindBar(); }),
                         add(QKeySequence(Qt::CTRL | Qt::Key_0), [this] { fitToView(); }),
                         add(QKeySequence::ZoomIn, [this] { zoomIn(); }),
                         add(QKeySequence::ZoomOut, [this] { zoomOut(); })};
    add(QKeySequence(Qt::Key_F3), [this] { findNext(); });
    add(QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { findPrevious(); });
}

void GraphView::setOwnsShortcuts(bool owns)
{
    for (QShortcut* s : m_sharedShortcuts) {
        s->setEnabled(owns);
    }
}

void GraphView::applyStyle()
{
    const QPalette pal = palette();
    GraphStyle s;
    s.background = pal.color(QPalette::Base);
    s.text = pal.color(QPalette::Text);
    s.boxText = QColor(QStringLiteral("#1a1a1a"));
    s.edge = pal.color(QPalette::Text);
    s.edge.setAlphaF(0.65f);
    s.frame = pal.color(QPalette::Text);
    s.frame.setAlphaF(0.55f);
    s.selection = pal.color(QPalette::Highlight);
    s.highlight = QColor(QStringLiteral("#ff8c00"));
    s.titleFont = font();
    s.titleFont.setPointSizeF(9);
    s.titleFont.setBold(true);
    s.subtitleFont = font();
    s.subtitleFont.setPointSizeF(8);
    m_scene->setStyle(s);
}

void GraphView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        applyStyle();
    }
    QWidget::changeEvent(event);
}

bool GraphView::eventFilter(QObject* watched, QEvent* event)
{
    if ((watched == m_canvas || watched == m_canvas->viewport()) &&
        event->type() == QEvent::Resize) {
        positionOverlays();
    }
    if (watched == m_canvas && event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape) {
        Q_EMIT escapePressed();
    }
    return QWidget::eventFilter(watched, event);
}

void GraphView::setOverviewEnabled(bool enabled)
{
    m_minimap->setUserEnabled(enabled);
}

bool GraphView::isOverviewEnabled() const
{
    return m_minimap->isUserEnabled();
}

// Legend top-left and overview bottom-right of the viewport, each moving to the other corner
// on its side when the selected node lies under it (they never cover what the user picked).
void GraphView::positionOverlays()
{
    const QRect area = m_canvas->viewport()->geometry();
    QRect selected;
    if (const auto current = m_selectionModel->currentNode()) {
        if (const auto* item = m_scene->nodeItem(*current)) {
            selected = m_canvas->mapFromScene(item->sceneBoundingRect()).boundingRect().translated(
                area.topLeft());
        }
    }
    const auto place = [&](QWidget* w, QPoint first, QPoint second) {
        const QRect there(first, w->size());
        w->move(selected.isValid() && there.intersects(selected) ? second : first);
    };
    const int m = 8;
    place(m_legend, {area.left() + m, area.top() + m},
          {area.left() + m, area.bottom() + 1 - m_legend->height() - m});
    const int miniLeft = area.right() + 1 - m_minimap->width() - m;
    place(m_minimap, {miniLeft, area.bottom() + 1 - m_minimap->height() - m},
          {miniLeft, area.top() + m});
    m_busy->adjustSize();
    m_busy->move(area.center() - QPoint(m_busy->width() / 2, m_busy->height() / 2));
}

void GraphView::setGraph(graph::GraphPtr graph, bool modulesPending)
{
    m_modulesPending = false;
    m_pendingMessage.clear();
    m_graph = std::move(graph);
    m_scene->clearLayout();
    m_error.clear();
    m_selectionModel->setGraph(m_graph);
    if (!m_graph) {
        m_view.reset();
        m_layouts.abandon();
        m_busy->hide();
        m_decorations->setGraph(nullptr); // layers cleared (drawn: nothing), owners told
        m_finder->setGraph(nullptr, nullptr);
        updateLegend();
        Q_EMIT graphChanged(nullptr);
        return;
    }
    m_nodeTitles.clear();
    m_view = std::make_shared<layout::ViewGraph>(m_graph);
    m_pendingState.reset();
    m_fitPending = true;
    m_openPending = true;
    m_modulesPending = modulesPending;
    requestLayout();
    m_decorations->setGraph(m_graph);
    m_finder->setGraph(m_graph, nullptr); // after the decorations: it marks its matches there
    updateLegend();
    Q_EMIT graphChanged(m_graph);
}

void GraphView::showPending(const QString& message)
{
    setGraph(nullptr);
    m_pendingMessage = message;
    m_busy->setText(message);
    positionOverlays();
    m_busy->show();
    m_busy->raise();
}

QString GraphView::pendingMessage() const
{
    return m_pendingMessage;
}

graph::GraphPtr GraphView::graph() const
{
    return m_graph;
}

bool GraphView::isLayoutPending() const
{
    return m_view && (m_layouts.isRunning() || m_modulesPending);
}

void GraphView::setModules(graph::GraphPtr graph, std::shared_ptr<const structure::ModuleTree> tree)
{
    if (!m_graph || graph != m_graph || (m_view && m_view->modules() == tree && tree)) {
        return;
    }
    const bool wasPending = m_modulesPending;
    m_modulesPending = false;
    if (tree && !tree->modules.empty()) {
        m_view = std::make_shared<layout::ViewGraph>(m_graph, std::move(tree));
        m_view->setNodeTitles(m_nodeTitles);
        if (m_pendingState) { // restored while waiting: ids of the module groups
            expandOnly(m_pendingState->expanded);
        } else {
            m_fitPending = true;
            m_openPending = true;
        }
    } else if (!wasPending) {
        return; // source scopes are shown already
    }
    updateLegend();
    m_finder->setGraph(m_graph, m_view->modules()); // module paths can match now
    requestLayout();
}

void GraphView::setNodeTitles(graph::GraphPtr graph,
                              std::unordered_map<graph::NodeId, std::string> titles)
{
    if (!m_view || graph != m_graph || titles == m_nodeTitles) {
        return;
    }
    m_nodeTitles = std::move(titles);
    m_view->setNodeTitles(m_nodeTitles);
    requestLayout();
}

void GraphView::onGroupToggled(layout::GroupId id)
{
    if (!m_view || id >= m_view->groups().size()) {
        return;
    }
    Anchor anchor{id, {}};
    if (auto* g = m_scene->groupItem(id)) {
        const QPointF top = g->mapToScene(QPointF(0, g->boundingRect().top()));
        anchor.viewportPos = m_canvas->mapFromScene(top);
    } else if (auto* c = m_scene->clusterItem(id)) {
        const QRectF r = c->boundingRect();
        anchor.viewportPos = m_canvas->mapFromScene(QPointF(r.center().x(), r.top()));
    }
    m_openPending = false;
    m_view->setExpanded(id, !m_view->isExpanded(id));
    requestLayout(anchor);
}

void GraphView::setGroupExpanded(layout::GroupId id, bool expanded)
{
    if (m_view && id < m_view->groups().size() && m_view->isExpanded(id) != expanded) {
        m_openPending = false;
        m_view->setExpanded(id, expanded);
        requestLayout();
    }
}

void GraphView::selectNode(graph::NodeId id)
{
    if (!m_view || id >= m_graph->size()) {
        return;
    }
    const bool revealed = m_view->reveal(id);
    m_openPending = m_openPending && !revealed;
    m_selectionModel->setCurrentNode(id);
    if (revealed || isLayoutPending()) {
        m_centerPending = true;
        if (revealed) {
            requestLayout();
        }
        return;
    }
    markSelection();
    centerOnSelection();
}

void GraphView::goToMatch(graph::NodeId id)
{
    // Read by centerOnSelection, now or after the reveal's layout.
    m_zoomPending = m_view != nullptr;
    selectNode(id);
}

// Centres the current node; after a find step, from a view zoomed out too far to read (a
// fitted large graph), zooms in to kReadableZoom first.
void GraphView::centerOnSelection()
{
    const bool zoom = std::exchange(m_zoomPending, false);
    const auto current = m_selectionModel->currentNode();
    if (!current) {
        return;
    }
    if (QGraphicsItem* item = m_scene->itemShowing(*current)) {
        if (zoom && m_canvas->zoom() < kReadableZoom) {
            m_canvas->zoomBy(kReadableZoom / m_canvas->zoom());
        }
        m_canvas->centerOn(item);
    }
}

bool GraphView::exportSvg(const QString& path)
{
    return GraphExporter(*m_scene).writeSvg(
        path, m_graph ? QString::fromStdString(m_graph->name()) : QString());
}

bool GraphView::exportPng(const QString& path)
{
    return GraphExporter(*m_scene).writePng(path);
}

void GraphView::showFindBar()
{
    m_finder->activate();
}

void GraphView::setFindText(const QString& text)
{
    m_finder->setText(text);
}

void GraphView::findNext()
{
    m_finder->step(1, m_selectionModel->currentNode());
}

void GraphView::findPrevious()
{
    m_finder->step(-1, m_selectionModel->currentNode());
}

int GraphView::findMatchCount() const
{
    return m_finder->matchCount();
}

void GraphView::fitToView()
{
    m_canvas->fitScene();
}

void GraphView::zoomIn()
{
    m_canvas->zoomBy(1.25);
}

void GraphView::zoomOut()
{
    m_canvas->zoomBy(0.8);
}

void GraphView::expandAll()
{
    if (m_view) {
        m_openPending = false;
        m_view->expandAll();
        m_fitPending = true;
        requestLayout();
    }
}

void GraphView::collapseAll()
{
    if (m_view) {
        m_openPending = false;
        m_view->collapseAll();
        m_fitPending = true;
        requestLayout();
    }
}

// ---- Selection: the NodeSelectionModel changed by clicks and bands, drawn on the scene ----

std::optional<graph::NodeId> GraphView::selectedNode() const
{
    return m_selectionModel->currentNode();
}

std::vector<graph::NodeId> GraphView::selectedNodes() const
{
    return m_selectionModel->selectedNodes();
}

void GraphView::setSelectedNodes(const std::vector<graph::NodeId>& ids)
{
    m_selectionModel->select(ids);
}

void GraphView::markSelection()
{
    const auto& nodes = m_selectionModel->selectedNodes();
    m_scene->markSelection(std::unordered_set<graph::NodeId>(nodes.begin(), nodes.end()),
                           m_selectionModel->currentNode());
    positionOverlays(); // keep the legend and overview off the current node
}

void GraphView::onNodeClicked(graph::NodeId id, Qt::KeyboardModifiers modifiers)
{
    if (modifiers & (Qt::ShiftModifier | Qt::ControlModifier)) {
        m_selectionModel->toggle(id);
    } else {
        m_selectionModel->setCurrentNode(id);
    }
}

// Shift-drag replaces the selection, Ctrl-drag (with or without Shift) adds to it.
void GraphView::onRubberBand(const QRectF& rect, Qt::KeyboardModifiers modifiers)
{
    const std::vector<graph::NodeId> inside = m_scene->nodesInRect(rect);
    std::vector<graph::NodeId> nodes = inside;
    if (modifiers & Qt::ControlModifier) {
        const auto& had = m_selectionModel->selectedNodes();
        nodes.insert(nodes.end(), had.begin(), had.end());
        std::sort(nodes.begin(), nodes.end());
        nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    }
    std::optional<graph::NodeId> current = m_selectionModel->currentNode();
    if (!current || !std::binary_search(nodes.begin(), nodes.end(), *current)) {
        current = inside.empty() ? std::optional<graph::NodeId>()
                                 : std::optional<graph::NodeId>(inside.back());
    }
    m_selectionModel->setSelection(std::move(nodes), current);
}

// ---- Decorations: drawn from the GraphDecorations' resolved layers ----

void GraphView::drawRegions()
{
    m_scene->setRegionOverlays(m_decorations->regions());
    updateLegend();
}

void GraphView::drawRegionTint(const QString& id)
{
    const auto regions = m_decorations->regions();
    if (!regions) {
        return;
    }
    for (const RegionOverlay& r : *regions) {
        if (r.id == id) {
            m_scene->setRegionTint(id, r.tint);
        }
    }
    updateLegend();
}

// A highlighted path (a refused edit's cycle) is shown whole: the groups holding its nodes
// open. Other layers mark a collapsed group instead (find matches, heat).
void GraphView::onHighlightedChanged()
{
    bool revealed = false;
    if (m_view) {
        for (graph::NodeId id : m_decorations->highlighted(DecorationLayer::Highlight)) {
            revealed = (id < m_graph->size() && m_view->reveal(id)) || revealed;
        }
    }
    if (revealed) {
        m_openPending = false;
        requestLayout(); // marks are drawn when it is shown
        return;
    }
    drawNodeMarks();
}

void GraphView::drawNodeMarks()
{
    if (!isLayoutPending()) {
        m_scene->markHighlighted(m_decorations->highlighted());
        m_scene->setOverlays(m_decorations->nodeColors(), m_decorations->nodeAmounts());
    }
}

void GraphView::drawBanner()
{
    const QString text = m_decorations->banner();
    m_banner->setText(text);
    m_banner->setVisible(!text.isEmpty());
}

QString GraphView::banner() const
{
    return m_banner->text();
}

void GraphView::updateLegend()
{
    const auto regions = m_decorations->regions();
    if (!regions) {
        m_legend->setRegions(m_view ? m_view->regionValues() : std::vector<std::string>{});
        return;
    }
    std::vector<std::pair<QColor, QString>> entries;
    for (const RegionOverlay& r : *regions) {
        entries.emplace_back(r.tint, r.label);
    }
    m_legend->setRegionEntries(entries);
}

// ---- View state: expanded groups, zoom and centre ----

} // namespace fxs::views
