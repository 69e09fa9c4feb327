#include "app/gui/graph_area.h"

#include "views/graph/graph_canvas.h"
#include "views/graph/graph_view.h"
#include "views/panels/cache_panel.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fxs::app {

GraphArea::GraphArea(QWidget* parent)
    : QWidget(parent),
      m_stack(new QStackedWidget(this)),
      m_primary(new views::GraphView(this)),
      m_secondary(new views::GraphView(this)),
      m_primaryTitle(new QLabel(this)),
      m_secondaryTitle(new QLabel(this))
{
    auto* close = new QPushButton(tr("Close Comparison"), this);
    connect(close, &QPushButton::clicked, this, &GraphArea::closeComparison);
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->setObjectName(QStringLiteral("comparisonSplitter"));
    m_secondaryPane = makePane(m_secondary, m_secondaryTitle, close);
    m_split->addWidget(m_secondaryPane);
    m_split->addWidget(makePane(m_primary, m_primaryTitle, nullptr));
    m_split->setChildrenCollapsible(false);
    m_split->setStretchFactor(0, 1);
    m_split->setStretchFactor(1, 1);
    m_secondaryPane->hide();
    linkScrollBars(m_primary->canvas()->horizontalScrollBar(),
                   m_secondary->canvas()->horizontalScrollBar());
    linkScrollBars(m_primary->canvas()->verticalScrollBar(),
                   m_secondary->canvas()->verticalScrollBar());

    // The window's actions own Ctrl+F, Ctrl+0 and the zoom keys (one owner per shortcut).
    m_primary->setOwnsShortcuts(false);
    m_secondary->setOwnsShortcuts(false);

    m_stack->addWidget(makeWelcome());
    m_stack->addWidget(m_split);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
}

QWidget* GraphArea::makeWelcome()
{
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    auto* text = new QLabel(
        tr("<h2>fxscope</h2><p>Open a TORCH_TRACE log or directory, a file of printed graph "
           "code,<br>a TorchScript <tt>.pt</tt>, a <tt>torch.export</tt> <tt>.pt2</tt> or an "
           "<tt>.fxscope</tt> project —<br>and a <tt>torch.profiler</tt> trace with its log — "
           "with <b>File › Open</b> or by dropping them here.</p>"),
        page);
    text->setAlignment(Qt::AlignCenter);
    text->setTextFormat(Qt::RichText);
    auto* open = new QPushButton(tr("Open…"), page);
    connect(open, &QPushButton::clicked, this, &GraphArea::openRequested);
    auto* guide = new QPushButton(tr("Getting Started"), page);
    guide->setObjectName(QStringLiteral("welcomeGettingStarted"));
    connect(guide, &QPushButton::clicked, this, &GraphArea::gettingStartedRequested);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(open);
    buttons->addWidget(guide);
    buttons->addStretch(1);
    layout->addStretch(1);
    layout->addWidget(text);
    layout->addLayout(buttons);
    layout->addStretch(2);
    return page;
}

void GraphArea::linkScrollBars(QScrollBar* a, QScrollBar* b)
{
    const auto follow = [this](QScrollBar* from, QScrollBar* to) {
        connect(from, &QScrollBar::valueChanged, this, [this, from, to] {
            if (m_syncingScroll || !isComparing() || from->maximum() <= from->minimum()) {
                return;
            }
            m_syncingScroll = true;
            const double fraction = double(from->value() - from->minimum()) /
                                    double(from->maximum() - from->minimum());
            to->setValue(to->minimum() +
                         int(std::lround(fraction * double(to->maximum() - to->minimum()))));
            m_syncingScroll = false;
        });
    };
    follow(a, b);
    follow(b, a);
}

QWidget* GraphArea::makePane(views::GraphView* view, QLabel* title, QPushButton* close)
{
    auto* pane = new QWidget(this);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 2, 6, 2);
    title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long title (a comparison's summary) wraps instead of widening its pane.
    title->setWordWrap(true);
    title->setMinimumWidth(1);
    bar->addWidget(title, 1);
    if (close) {
        bar->addWidget(close);
    }
    layout->addLayout(bar);
    layout->addWidget(view, 1);
    return pane;
}

void GraphArea::showGraph(graph::GraphPtr graph, const QString& title, bool modulesPending)
{
    m_stack->setCurrentIndex(1);
    m_primaryTitle->setText(title);
    m_primary->setGraph(std::move(graph), modulesPending); // a comparison's marks go with it
}

void GraphArea::showPending(const QString& title, const QString& message)
{
    m_stack->setCurrentIndex(1);
    m_primaryTitle->setText(title);
    m_primary->showPending(message);
}

void GraphArea::showComparison(const views::GraphComparison& c)
{
    m_stack->setCurrentIndex(1);
    m_secondaryTitle->setText(tr("<b>A</b> %1 — %2").arg(c.titleA.toHtmlEscaped(), c.summary.toHtmlEscaped()));
    m_primaryTitle->setText(tr("<b>B</b> %1").arg(c.titleB.toHtmlEscaped()));
    // The changed nodes are the area's own layer of each pane's decorations.
    m_secondary->setGraph(c.a);
    m_secondary->decorations()->setHighlighted(views::DecorationLayer::Comparison, c.changedA);
    m_primary->setGraph(c.b);
    m_primary->decorations()->setHighlighted(views::DecorationLayer::Comparison, c.changedB);
    m_secondaryPane->show();
    // A and B side by side, equally wide (again once the shown pane is laid out).
    const auto even = [this] {
        const int half = std::max(1, m_split->width() / 2);
        m_split->setSizes({half, half});
    };
    even();
    QTimer::singleShot(0, this, even);
}

void GraphArea::closeComparison()
{
    m_secondaryPane->hide();
    m_secondary->setGraph(nullptr);
}

views::GraphView* GraphArea::activeView() const
{
    const QWidget* focus = QApplication::focusWidget();
    return isComparing() && focus && m_secondary->isAncestorOf(focus) ? m_secondary : m_primary;
}

bool GraphArea::isComparing() const
{
    return !m_secondaryPane->isHidden();
}

void GraphArea::showWelcome()
{
    closeComparison();
    m_primary->setGraph(nullptr);
    m_primaryTitle->clear();
    m_stack->setCurrentIndex(0);
}

} // namespace fxs::app
