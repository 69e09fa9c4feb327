#include "views/panels/problems_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace fxs::views {

ProblemsPanel::ProblemsPanel(const Workspace* workspace, QWidget* parent)
    : QWidget(parent),
      m_model(new ProblemsModel(workspace, this)),
      m_view(new QTableView(this)),
      m_summary(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_summary);
    layout->addWidget(m_view);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(ProblemsModel::SeverityColumn,
                                                     QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(ProblemsModel::WhereColumn,
                                                     QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        Q_EMIT problemActivated(index.data(ProblemsModel::FileRole).toString(),
                                index.data(ProblemsModel::LineRole).toInt());
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &ProblemsPanel::updateSummary);
    updateSummary();
}

QString ProblemsPanel::summaryText() const
{
    return m_summary->text();
}

void ProblemsPanel::updateSummary()
{
    const int n = m_model->rowCount();
    m_summary->setText(n == 0 ? tr("No problems found while reading.")
                              : tr("%n problem(s) found while reading:", "", n));
    Q_EMIT countChanged(n);
}

} // namespace fxs::views
