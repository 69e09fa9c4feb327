#include "views/panels/navigator_panel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>

namespace fxs::views {

namespace {

// Names elide in the middle, so a narrow dock keeps what tells rows apart at their ends: a
// body's call count ("repeated_sub…0 · 24 calls"), a graph's side ("Inductor…(forward)" and
// "Inductor…(backward)", which right elision made the same "Inductor post-…"), a log's suffix.
class NameElidingDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QStyleOptionViewItem optionFor(const QModelIndex& index) const
    {
        QStyleOptionViewItem option;
        option.initFrom(qobject_cast<QWidget*>(parent()));
        initStyleOption(&option, index);
        return option;
    }

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.column() == RunTreeModel::NameColumn) {
            option->textElideMode = Qt::ElideMiddle;
        }
    }
};

} // namespace

NavigatorPanel::NavigatorPanel(const Workspace* workspace, QWidget* parent)
    : QWidget(parent),
      m_model(new RunTreeModel(workspace, this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_filter(new QLineEdit(this)),
      m_view(new QTreeView(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_filter);
    layout->addWidget(m_view);
    m_filter->setPlaceholderText(tr("Filter graphs…"));
    m_filter->setClearButtonEnabled(true);
    m_proxy->setSourceModel(m_model);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(RunTreeModel::NameColumn);
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);
    m_view->setAllColumnsShowFocus(true);
    // Bodies sit four levels down: a narrow dock keeps more of "repeated_subgraph0 · 24 calls".
    m_view->setIndentation(14);
    m_view->setItemDelegate(new NameElidingDelegate(m_view));
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(RunTreeModel::NameColumn, QHeaderView::Stretch);
    m_view->header()->setSectionResizeMode(RunTreeModel::NodesColumn, QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(RunTreeModel::CacheColumn, QHeaderView::ResizeToContents);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterFixedString(text);
        m_view->expandAll();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) {
                const auto ref = current.data(RunTreeModel::GraphRefRole);
                if (m_quiet || !ref.isValid()) {
                    return;
                }
                const QStringList body = current.data(RunTreeModel::BodyPathRole).toStringList();
                if (body.isEmpty()) {
                    Q_EMIT graphActivated(ref.value<GraphRef>());
                } else {
                    Q_EMIT bodyActivated(ref.value<GraphRef>(), body);
                }
            });
    connect(m_model, &QAbstractItemModel::modelReset, this, &NavigatorPanel::onModelReset);
    // Bodies of a graph read later: shown at once under it.
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex& parent) { m_view->expand(parent); });
}

void NavigatorPanel::onModelReset()
{
    m_view->expandAll();
}

void NavigatorPanel::selectGraph(GraphRef ref)
{
    const QModelIndex index = m_proxy->mapFromSource(m_model->indexOf(ref));
    if (!index.isValid()) {
        return;
    }
    m_quiet = true;
    m_view->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
    m_quiet = false;
}

GraphRef NavigatorPanel::currentGraph() const
{
    const auto ref = m_view->currentIndex().data(RunTreeModel::GraphRefRole);
    return ref.isValid() ? ref.value<GraphRef>() : GraphRef{};
}

GraphRef NavigatorPanel::firstGraph(int run) const
{
    // Depth-first over the source model: the first graph row in display order.
    std::vector<QModelIndex> stack{QModelIndex()};
    while (!stack.empty()) {
        const QModelIndex parent = stack.back();
        stack.pop_back();
        for (int r = m_model->rowCount(parent) - 1; r >= 0; --r) {
            stack.push_back(m_model->index(r, 0, parent));
        }
        const auto ref = parent.data(RunTreeModel::GraphRefRole);
        if (ref.isValid() && (run < 0 || ref.value<GraphRef>().run == run)) {
            return ref.value<GraphRef>();
        }
    }
    return {};
}

QString NavigatorPanel::shownName(const QModelIndex& sourceIndex, int width) const
{
    const QModelIndex index = m_proxy->mapFromSource(sourceIndex.siblingAtColumn(
        RunTreeModel::NameColumn));
    const auto* delegate = static_cast<const NameElidingDelegate*>(m_view->itemDelegate());
    const QStyleOptionViewItem option = delegate->optionFor(index);
    return option.fontMetrics.elidedText(option.text, option.textElideMode, width);
}

} // namespace fxs::views
