// The main window's central area: a welcome page until something is open, then the GraphView
// of the selected graph, with an optional second GraphView on its left for comparisons
// (a changed `gm`: graph A | graph B, changed nodes highlighted; the panes share the width
// evenly and scroll together). Layout and wiring of the views only; what to show is decided by
// MainWindow.
#pragma once

#include "core/graph/graph.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QScrollBar;
class QSplitter;
class QStackedWidget;

namespace fxs::views {
class GraphView;
struct GraphComparison;
} // namespace fxs::views

namespace fxs::app {

class GraphArea : public QWidget {
    Q_OBJECT
public:
    explicit GraphArea(QWidget* parent = nullptr);

    views::GraphView* primary() const { return m_primary; }
    views::GraphView* secondary() const { return m_secondary; }
    // The view the window's view actions (find, fit, zoom) act on: the comparison's left pane
    // when the focus is in it, else the primary view.
    views::GraphView* activeView() const;

    // Shows the graph in the primary view and leaves the welcome page.
    // modulesPending: the module tree is being recovered; the first layout waits for it.
    void showGraph(graph::GraphPtr graph, const QString& title, bool modulesPending = false);
    // The primary view empty, with a message in its place, until showGraph (a graph whose code
    // is being read).
    void showPending(const QString& title, const QString& message);
    // A on the left (secondary), B on the right (primary), changed nodes highlighted.
    void showComparison(const views::GraphComparison& comparison);
    void closeComparison();
    bool isComparing() const;
    void showWelcome();

Q_SIGNALS:
    void openRequested();
    void gettingStartedRequested(); // the welcome page's "Getting Started" button

private:
    QWidget* makeWelcome();
    QWidget* makePane(views::GraphView* view, QLabel* title, QPushButton* close);
    // While comparing, scrolling one pane scrolls the other to the same fraction.
    void linkScrollBars(QScrollBar* a, QScrollBar* b);

    QStackedWidget* m_stack;
    views::GraphView* m_primary;
    views::GraphView* m_secondary;
    QLabel* m_primaryTitle;
    QLabel* m_secondaryTitle;
    QWidget* m_secondaryPane = nullptr;
    QSplitter* m_split = nullptr;
    bool m_syncingScroll = false;
};

} // namespace fxs::app
