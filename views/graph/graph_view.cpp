#include "views/graph/graph_view.h"

#include "core/layout/graph_layout.h"
#include "core/layout/layout_cache.h"
#include "views/graph/find_bar.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_legend.h"
#include "views/graph/graph_scene.h"

#include <QEvent>
#include <QLabel>
#include <QSettings>
#include <QShortcut>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <array>

namespace fxs::views {

// One background layout request and its outcome.
struct LayoutJob {
    std::shared_ptr<const layout::ViewGraph> view;
    std::optional<layout::LayoutResult> result;
    QString error;
};

namespace {

// Per-character advances of the label fonts, so layout can measure text on a worker thread
// without touching QFont there.
struct TextMeasure {
    std::array<double, 128> advance{};
    double fallback = 7.0;
    double operator()(std::string_view s) const
    {
        double w = 0;
        for (unsigned char c : s) {
            if (c < 128) {
                w += advance[c];
            } else if ((c & 0xC0) != 0x80) {
                w += fallback;
            }
        }
        return w;
    }
};

layout::LayoutOptions layoutOptions(const GraphStyle& style)
{
    const QFontMetricsF title(style.titleFont);
    const QFontMetricsF sub(style.subtitleFont);
    TextMeasure m;
    for (int c = 32; c < 128; ++c) {
        const QString ch(QChar(static_cast<char16_t>(c)));
        m.advance[c] = std::max(title.horizontalAdvance(ch), sub.horizontalAdvance(ch));
    }
    m.fallback = title.averageCharWidth() * 1.2;
    layout::LayoutOptions o;
    o.textWidth = m;
    o.lineHeight = std::max(title.height(), sub.height());
    o.paddingX = 8;
    o.paddingY = 4;
    return o;
}

} // namespace

GraphView::GraphView(QWidget* parent)
    : QWidget(parent), m_scene(new GraphScene(this)), m_canvas(new GraphCanvas(this)),
      m_layoutCache(std::make_shared<layout::LayoutCache>())
{
    m_canvas->setScene(m_scene);
    m_findBar = new FindBar(this);
    m_findBar->hide();
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

    connect(m_scene, &GraphScene::nodeClicked, this, &GraphView::onNodeClicked);
    connect(m_canvas, &GraphCanvas::rubberBandSelected, this, &GraphView::onRubberBand);
    connect(m_scene, &GraphScene::groupToggled, this, &GraphView::onGroupToggled);
    connect(m_scene, &GraphScene::jumpRequested, this, &GraphView::selectNode);
    connect(m_canvas, &GraphCanvas::backgroundClicked, this,
            [this] { setSelection(std::nullopt); });
    m_overviewEnabled = QSettings().value(QStringLiteral("graphView/overview"), true).toBool();
    connect(m_canvas, &GraphCanvas::viewportChanged, this, [this] {
        updateMinimapVisibility();
        positionOverlays(); // the selected node may have moved under one of them
    });
    connect(m_findBar, &FindBar::textChanged, this, &GraphView::updateMatches);
    connect(m_findBar, &FindBar::nextRequested, this, &GraphView::findNext);
    connect(m_findBar, &FindBar::previousRequested, this, &GraphView::findPrevious);
    connect(m_findBar, &FindBar::closed, m_canvas, qOverload<>(&QWidget::setFocus));
}

// Layout jobs hold only shared snapshots; the tracker cancels them and waits a bounded time.
GraphView::~GraphView() = default;

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
    return QWidget::eventFilter(watched, event);
}

void GraphView::updateMinimapVisibility()
{
    const bool all = m_canvas->visibleSceneRect().contains(m_scene->sceneRect());
    m_minimap->setVisible(m_overviewEnabled && !all && !m_scene->sceneRect().isEmpty());
}

void GraphView::setOverviewEnabled(bool enabled)
{
    m_overviewEnabled = enabled;
    QSettings().setValue(QStringLiteral("graphView/overview"), enabled);
    updateMinimapVisibility();
}

// Legend top-left and overview bottom-right of the viewport, each moving to the other corner
// on its side when the selected node lies under it (they never cover what the user picked).
void GraphView::positionOverlays()
{
    const QRect area = m_canvas->viewport()->geometry();
    QRect selected;
    if (m_selected) {
        if (const auto* item = m_scene->nodeItem(*m_selected)) {
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
    const bool hadSelection = m_selected.has_value();
    const bool hadNodes = !m_selection.empty();
    m_graph = std::move(graph);
    m_selected.reset();
    m_selection.clear();
    m_regions.reset();
    m_regionTints.clear();
    m_scene->setRegionOverlays(std::nullopt);
    m_highlighted.clear();
    m_colors.clear();
    m_matches.clear();
    m_matchIndex = -1;
    m_scene->clearLayout();
    m_error.clear();
    if (hadNodes) {
        Q_EMIT selectionChanged({});
    }
    if (hadSelection) {
        Q_EMIT selectionCleared();
    }
    if (!m_graph) {
        m_view.reset();
        m_layouts.abandon();
        m_busy->hide();
        updateLegend();
        Q_EMIT graphChanged(nullptr);
        return;
    }
    m_view = std::make_shared<layout::ViewGraph>(m_graph);
    updateLegend();
    m_pendingState.reset();
    m_fitPending = true;
    m_modulesPending = modulesPending;
    requestLayout();
    if (m_findBar->isVisible()) {
        updateMatches(m_findBar->text());
    }
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

void GraphView::requestLayout()
{
    requestLayout(Anchor{});
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
        if (m_pendingState) { // restored while waiting: ids of the module groups
            expandOnly(m_pendingState->expanded);
        } else {
            m_fitPending = true;
        }
    } else if (!wasPending) {
        return; // source scopes are shown already
    }
    updateLegend();
    if (m_findBar->isVisible()) {
        updateMatches(m_findBar->text()); // module paths can match now
    }
    requestLayout();
}

void GraphView::requestLayout(const Anchor& anchor)
{
    if (!m_view) {
        return;
    }
    if (m_modulesPending) {
        m_busy->setText(tr("Reading the model's modules…"));
        positionOverlays();
        m_busy->show();
        m_busy->raise();
        return;
    }
    m_pendingAnchor = anchor;
    auto job = std::make_shared<LayoutJob>();
    job->view = std::make_shared<const layout::ViewGraph>(*m_view);
    layout::LayoutOptions options = layoutOptions(m_scene->style());
    options.cache = m_layoutCache;
    m_layouts.start(
        [job, options](const CancelToken& cancel, const ProgressSink&) {
            if (cancel.isCancelled()) {
                return job; // a newer request arrived before this one started
            }
            layout::LayoutOptions cancellable = options;
            cancellable.cancel = cancel;
            auto result = layout::layoutViewGraph(*job->view, cancellable);
            if (result.ok()) {
                job->result = std::move(result).value();
            } else {
                job->error = QString::fromStdString(result.error().toString());
            }
            return job;
        },
        [this](const std::shared_ptr<LayoutJob>& done) { applyLayout(done); });
    m_busy->setText(tr("Laying out…"));
    positionOverlays();
    m_busy->show();
    m_busy->raise();
}

void GraphView::applyLayout(const std::shared_ptr<LayoutJob>& job)
{
    m_busy->hide();
    if (!job->result) {
        m_error = job->error;
        m_busy->setText(tr("Layout failed: %1").arg(job->error));
        m_busy->show();
        Q_EMIT layoutFinished();
        return;
    }
    m_error.clear();
    m_scene->setLayout(*job->result, job->view);
    markSelection();
    m_scene->markHighlighted(m_highlighted);
    m_scene->setOverlays(m_colors);
    m_minimap->refit();
    if (m_pendingState) {
        m_fitPending = false;
        m_canvas->resetTransform();
        m_canvas->scale(m_pendingState->zoom, m_pendingState->zoom);
        m_canvas->centerOn(m_pendingState->center);
        // Scroll ranges follow the new scene rect on the next turn: centre again then.
        QTimer::singleShot(0, this, [this, center = m_pendingState->center] {
            m_canvas->centerOn(center);
        });
        m_pendingState.reset();
    } else if (m_fitPending) {
        m_fitPending = false;
        m_canvas->fitScene();
    } else {
        restoreAnchor(m_pendingAnchor);
    }
    if (m_centerPending) {
        m_centerPending = false;
        centerOnSelection();
    }
    m_minimap->raise();
    m_legend->raise();
    Q_EMIT layoutFinished();
}

// Puts the toggled group (now a box or a frame) where the user clicked it: expand and
// collapse happen in place.
void GraphView::restoreAnchor(const Anchor& anchor)
{
    if (anchor.group == layout::kNoGroup) {
        return;
    }
    QPointF top;
    if (auto* g = m_scene->groupItem(anchor.group)) {
        top = g->mapToScene(QPointF(0, g->boundingRect().top()));
    } else if (auto* c = m_scene->clusterItem(anchor.group)) {
        top = QPointF(c->boundingRect().center().x(), c->boundingRect().top());
    } else {
        return;
    }
    const QPointF shift = m_canvas->mapToScene(anchor.viewportPos.toPoint()) - top;
    m_canvas->centerOn(m_canvas->mapToScene(m_canvas->viewport()->rect().center()) - shift);
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
    m_view->setExpanded(id, !m_view->isExpanded(id));
    requestLayout(anchor);
}

void GraphView::setGroupExpanded(layout::GroupId id, bool expanded)
{
    if (m_view && id < m_view->groups().size() && m_view->isExpanded(id) != expanded) {
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
    setSelection(id);
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

void GraphView::centerOnSelection()
{
    if (!m_selected) {
        return;
    }
    if (QGraphicsItem* item = m_scene->itemShowing(*m_selected)) {
        m_canvas->centerOn(item);
    }
}

void GraphView::setBanner(const QString& text)
{
    m_banner->setText(text);
    m_banner->setVisible(!text.isEmpty());
}

QString GraphView::banner() const { return m_banner->text(); }

void GraphView::setHighlighted(const std::vector<graph::NodeId>& ids)
{
    m_highlighted = std::unordered_set<graph::NodeId>(ids.begin(), ids.end());
    if (!isLayoutPending()) {
        m_scene->markHighlighted(m_highlighted);
    }
}

void GraphView::setNodeColors(const std::unordered_map<graph::NodeId, QColor>& colors)
{
    m_colors = colors;
    if (!isLayoutPending()) {
        m_scene->setOverlays(m_colors);
    }
}

void GraphView::clearNodeColors()
{
    setNodeColors({});
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
        m_view->expandAll();
        m_fitPending = true;
        requestLayout();
    }
}

void GraphView::collapseAll()
{
    if (m_view) {
        m_view->collapseAll();
        m_fitPending = true;
        requestLayout();
    }
}

} // namespace fxs::views
