// The Navigator dock: the tree of runs › compile ids › graphs › bodies (RunTreeModel) with a
// filter box. Emits graphActivated when the user picks a graph, bodyActivated for a body;
// selectGraph() follows selections made elsewhere (cache panel) without re-emitting.
#pragma once

#include "views/models/run_tree_model.h"

#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace fxs::views {

class NavigatorPanel : public QWidget {
    Q_OBJECT
public:
    explicit NavigatorPanel(const Workspace* workspace, QWidget* parent = nullptr);

    RunTreeModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }
    // Selects and reveals the graph's row; emits nothing.
    void selectGraph(GraphRef ref);
    GraphRef currentGraph() const;
    // The first graph of the tree in display order (of one run when run >= 0), invalid if
    // none; for "show something after opening".
    GraphRef firstGraph(int run = -1) const;
    // The name of a row (a source-model index) as the dock draws it in `width` pixels:
    // elided in the middle, so rows that differ only at their ends still differ.
    QString shownName(const QModelIndex& sourceIndex, int width) const;

Q_SIGNALS:
    void graphActivated(fxs::views::GraphRef ref);
    // A body row: the graph calling it and the body names from that graph down.
    void bodyActivated(fxs::views::GraphRef caller, const QStringList& bodyPath);

private:
    void onModelReset();

    RunTreeModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLineEdit* m_filter;
    QTreeView* m_view;
    bool m_quiet = false;
};

} // namespace fxs::views
