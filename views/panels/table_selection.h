// Selecting a source-model row in a QTableView that shows it through a sort/filter proxy: the
// row becomes current and selected (whole row) and is scrolled into view; -1 or a filtered-out
// row clears the selection. Shared by the panels that select rows "from outside".
#pragma once

#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace fxs::views {

inline void selectSourceRow(QTableView* view, const QSortFilterProxyModel* proxy, int sourceRow)
{
    const QModelIndex at = sourceRow >= 0
                               ? proxy->mapFromSource(proxy->sourceModel()->index(sourceRow, 0))
                               : QModelIndex();
    if (!at.isValid()) {
        view->selectionModel()->clearSelection();
        return;
    }
    view->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect |
                                                    QItemSelectionModel::Rows);
    view->scrollTo(at);
}

} // namespace fxs::views
