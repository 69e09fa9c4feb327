// GraphView's layouts: a graph laid out in the background (the newest request wins), how it
// opens (layout::layoutReadable), the anchor kept across a toggle, and the view state a user
// arranged (saved and restored).
#include "views/graph/graph_view.h"

#include "core/layout/layout_cache.h"
#include "views/graph/graph_canvas.h"
#include "views/graph/graph_legend.h"
#include "views/graph/graph_scene.h"
#include "views/graph/layout_job.h"

#include <QFontMetricsF>
#include <QLabel>
#include <QTimer>

#include <array>

namespace fxs::views {

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

void GraphView::requestLayout()
{
    requestLayout(Anchor{});
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
    job->opening = m_openPending && !m_pendingState;
    job->fit = openingTarget();
    layout::LayoutOptions options = layoutOptions(m_scene->style());
    options.cache = m_layoutCache;
    m_layouts.start(
        [job, options](const CancelToken& cancel, const ProgressSink&) {
            if (cancel.isCancelled()) {
                return job; // a newer request arrived before this one started
            }
            layout::LayoutOptions cancellable = options;
            cancellable.cancel = cancel;
            Result<layout::LayoutResult> result = makeError(ErrorCode::Internal, "no layout");
            if (job->opening) {
                job->opened = std::make_shared<layout::ViewGraph>(*job->view);
                result = layout::layoutReadable(*job->opened, cancellable, job->fit);
            } else {
                result = layout::layoutViewGraph(*job->view, cancellable);
            }
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
    if (job->opened) {
        m_view = job->opened; // the expansion the opening chose
        m_openPending = false;
    }
    m_scene->setLayout(*job->result, job->opened ? job->opened : job->view);
    markSelection();
    drawNodeMarks();
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

// The window a graph's opening is fitted in: the canvas as it is, or a typical one while the
// view has no size on screen yet.
layout::FitTarget GraphView::openingTarget() const
{
    layout::FitTarget target;
    const QSize size = m_canvas->viewport()->size();
    if (size.width() >= 400 && size.height() >= 300) {
        target.width = size.width();
        target.height = size.height();
    }
    return target;
}

std::optional<GraphView::ViewState> GraphView::viewState() const
{
    if (!m_view || !m_graph) {
        return std::nullopt;
    }
    ViewState state;
    for (layout::GroupId id = 0; id < m_view->groups().size(); ++id) {
        if (id != layout::kRootGroup && m_view->isExpanded(id)) {
            state.expanded.push_back(id);
        }
    }
    if (m_pendingState) { // not laid out yet: what it will show
        state.zoom = m_pendingState->zoom;
        state.center = m_pendingState->center;
        return state;
    }
    state.zoom = m_canvas->zoom();
    state.center = m_canvas->mapToScene(m_canvas->viewport()->rect().center());
    return state;
}

void GraphView::restoreViewState(const ViewState& state)
{
    if (!m_view) {
        return;
    }
    expandOnly(state.expanded);
    m_openPending = false;
    m_pendingState = state;
    requestLayout(); // the newest request wins over setGraph's
}

void GraphView::expandOnly(const std::vector<layout::GroupId>& expanded)
{
    m_view->collapseAll();
    for (layout::GroupId id : expanded) {
        if (id < m_view->groups().size()) {
            m_view->setExpanded(id, true);
        }
    }
}

} // namespace fxs::views
