#include "app/gui/graph_area.h"

#include "views/graph/graph_view.h"
#include "views/panels/cache_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

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
    auto* split = new QSplitter(Qt::Horizontal, this);
    m_secondaryPane = makePane(m_secondary, m_secondaryTitle, close);
    split->addWidget(m_secondaryPane);
    split->addWidget(makePane(m_primary, m_primaryTitle, nullptr));
    split->setChildrenCollapsible(false);
    m_secondaryPane->hide();

    m_stack->addWidget(makeWelcome());
    m_stack->addWidget(split);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
}

QWidget* GraphArea::makeWelcome()
{
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    auto* text = new QLabel(
        tr("<h2>fxscope</h2><p>Open a TORCH_TRACE log or directory, or a file of printed graph "
           "code,<br>with <b>File › Open</b> or by dropping it here.</p>"),
        page);
    text->setAlignment(Qt::AlignCenter);
    text->setTextFormat(Qt::RichText);
    auto* open = new QPushButton(tr("Open…"), page);
    connect(open, &QPushButton::clicked, this, &GraphArea::openRequested);
    layout->addStretch(1);
    layout->addWidget(text);
    layout->addWidget(open, 0, Qt::AlignHCenter);
    layout->addStretch(2);
    return page;
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
    bar->addWidget(title, 1);
    if (close) {
        bar->addWidget(close);
    }
    layout->addLayout(bar);
    layout->addWidget(view, 1);
    return pane;
}

void GraphArea::showGraph(graph::GraphPtr graph, const QString& title)
{
    m_stack->setCurrentIndex(1);
    m_primaryTitle->setText(title);
    m_primary->setHighlighted({});
    m_primary->setGraph(std::move(graph));
}

void GraphArea::showComparison(const views::GraphComparison& c)
{
    m_stack->setCurrentIndex(1);
    m_secondaryTitle->setText(tr("<b>A</b> %1 — %2").arg(c.titleA.toHtmlEscaped(), c.summary.toHtmlEscaped()));
    m_primaryTitle->setText(tr("<b>B</b> %1").arg(c.titleB.toHtmlEscaped()));
    m_secondary->setGraph(c.a);
    m_secondary->setHighlighted(c.changedA);
    m_primary->setGraph(c.b);
    m_primary->setHighlighted(c.changedB);
    m_secondaryPane->show();
}

void GraphArea::closeComparison()
{
    m_secondaryPane->hide();
    m_secondary->setGraph(nullptr);
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
