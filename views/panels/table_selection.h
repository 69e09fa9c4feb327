// Row tables of the panels: the one look of a table whose rows are the items (whole-row single
// selection, no row numbers, the last column stretched), and selecting a source-model row in a
// QTableView that shows it through a sort/filter proxy: the row becomes current and selected
// (whole row) and is scrolled into view; -1 or a filtered-out row clears the selection.
#pragma once

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace fxs::views {

inline QTableView* makeRowTable(QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setWordWrap(false);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    // Interactive first: setting a mode for all sections would undo the last one's stretch.
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

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
