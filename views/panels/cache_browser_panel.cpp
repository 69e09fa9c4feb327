#include "views/panels/cache_browser_panel.h"

#include "views/models/component_diff_model.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace fxs::views {
namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

CacheBrowserPanel::CacheBrowserPanel(QWidget* parent)
    : QWidget(parent), m_model(new CacheEntryModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_diff(new ComponentDiffModel(this)), m_path(new QLineEdit(this)),
      m_remote(new QLineEdit(this)),
      m_search(new QLineEdit(this)), m_maxMb(new QSpinBox(this)), m_view(new QTableView(this)),
      m_diffView(new QTableView(this)), m_headline(new QLabel(this)), m_status(new QLabel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CacheEntryModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(CacheEntryModel::LastHitColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->verticalHeader()->hide();
    m_view->setWordWrap(false); // full texts are in the tooltips
    m_view->horizontalHeader()->setSectionResizeMode(CacheEntryModel::RegionColumn,
                                                     QHeaderView::Stretch);
    m_diffView->setModel(m_diff);
    m_diffView->verticalHeader()->hide();
    m_diffView->horizontalHeader()->setStretchLastSection(true);
    m_diff->setSideNames(tr("A (first selected)"), tr("B (second)"));
    m_path->setPlaceholderText(tr("cache database"));
    m_remote->setObjectName(QStringLiteral("remoteUrlEdit"));
    m_remote->setPlaceholderText(tr("remote: redis://host:port[/db]"));
    m_remote->setToolTip(tr("Remote cache tier shared by a team (optional). Compile and profile "
                            "look there after a local miss; team key: FXSCOPE_CACHE_KEY or "
                            "FXSCOPE_CACHE_KEY_FILE"));
    m_search->setPlaceholderText(tr("Search key, region, state…"));
    m_search->setClearButtonEnabled(true);
    m_maxMb->setRange(0, 1 << 20);
    m_maxMb->setValue(512);
    m_maxMb->setSuffix(tr(" MiB"));
    m_maxMb->setToolTip(tr("GC keeps the most recently hit entries within this size"));
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* reload = new QPushButton(tr("Reload"), this);
    auto* verifyButton = new QPushButton(tr("Verify"), this);
    auto* gcButton = new QPushButton(tr("GC"), this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Database:"), this));
    bar->addWidget(m_path, 2);
    bar->addWidget(m_remote, 1);
    bar->addWidget(reload);
    bar->addWidget(m_search, 2);
    bar->addWidget(verifyButton);
    bar->addWidget(m_maxMb);
    bar->addWidget(gcButton);
    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(m_headline);
    lowerLayout->addWidget(m_diffView, 1);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_view);
    splitter->addWidget(lower);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_status);

    connect(m_path, &QLineEdit::editingFinished, this, [this] {
        if (m_path->isModified()) {
            m_path->setModified(false);
            Q_EMIT databasePathEdited(m_path->text());
        }
    });
    connect(m_remote, &QLineEdit::editingFinished, this, [this] {
        if (m_remote->isModified()) {
            m_remote->setModified(false);
            Q_EMIT remoteUrlEdited(m_remote->text());
        }
    });
    connect(reload, &QPushButton::clicked, this, &CacheBrowserPanel::reload);
    connect(verifyButton, &QPushButton::clicked, this, &CacheBrowserPanel::verify);
    connect(gcButton, &QPushButton::clicked, this,
            [this] { collectGarbage(qint64(m_maxMb->value()) * 1024 * 1024); });
    connect(m_search, &QLineEdit::textChanged, this, &CacheBrowserPanel::setSearchText);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &CacheBrowserPanel::onSelectionChanged);
}

CacheBrowserPanel::~CacheBrowserPanel() = default;

void CacheBrowserPanel::showDatabasePath(const QString& path)
{
    m_path->setText(path);
}

QString CacheBrowserPanel::databasePath() const
{
    return m_path->text();
}

void CacheBrowserPanel::showRemoteUrl(const QString& url)
{
    m_remote->setText(url);
}

QString CacheBrowserPanel::remoteUrl() const
{
    return m_remote->text();
}

void CacheBrowserPanel::reload()
{
    if (databasePath().isEmpty()) {
        return;
    }
    setStatus(tr("Reading %1…").arg(databasePath()));
    Q_EMIT reloadRequested();
}

void CacheBrowserPanel::verify()
{
    setStatus(tr("Verifying %1…").arg(databasePath()));
    Q_EMIT verifyRequested();
}

void CacheBrowserPanel::collectGarbage(qint64 maxBytes)
{
    Q_EMIT collectRequested(maxBytes);
}

void CacheBrowserPanel::setEntries(std::vector<cache::EntryInfo> entries)
{
    const int count = static_cast<int>(entries.size());
    m_model->setEntries(std::move(entries));
    m_view->resizeColumnsToContents();
    m_diff->setRows({});
    m_headline->clear();
    setStatus(tr("%1 entries — %2").arg(count).arg(databasePath()));
    Q_EMIT loaded(count);
}

void CacheBrowserPanel::showVerified(const cache::VerifyReport& report)
{
    QSet<QString> corrupt;
    for (const auto& [key, problem] : report.corrupt) {
        corrupt.insert(qs(key));
    }
    m_model->setCorrupt(corrupt);
    setStatus(tr("Verified %1 entries: %2 corrupt, integrity %3")
                  .arg(report.checked)
                  .arg(corrupt.size())
                  .arg(qs(report.integrity)));
    Q_EMIT verified(report.checked, static_cast<int>(corrupt.size()));
}

void CacheBrowserPanel::showCollected(const cache::GcReport& report)
{
    setStatus(tr("GC removed %1 entries (%2 → %3)")
                  .arg(report.removed)
                  .arg(QLocale().formattedDataSize(report.bytesBefore),
                       QLocale().formattedDataSize(report.bytesAfter)));
    Q_EMIT collected(report.removed);
}

void CacheBrowserPanel::showFailure(const QString& message)
{
    setStatus(message);
    Q_EMIT failed(message);
}

void CacheBrowserPanel::setSearchText(const QString& text)
{
    if (m_search->text() != text) {
        m_search->setText(text); // comes back here through textChanged
        return;
    }
    m_proxy->setFilterFixedString(text);
}

void CacheBrowserPanel::selectKeys(const QStringList& keys)
{
    QItemSelection selection;
    for (const QString& key : keys) {
        const int row = m_model->rowOf(key);
        const QModelIndex at = m_proxy->mapFromSource(m_model->index(row, 0));
        if (row >= 0 && at.isValid()) {
            selection.select(at, at);
        }
    }
    // Selected one by one so that the first key stays "A" (selection order).
    m_view->selectionModel()->clearSelection();
    for (const auto& range : selection) {
        m_view->selectionModel()->select(QItemSelection(range.topLeft(), range.bottomRight()),
                                         QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
}

void CacheBrowserPanel::onSelectionChanged()
{
    std::vector<const cache::EntryInfo*> picked;
    for (const QModelIndex& index : m_view->selectionModel()->selectedRows()) {
        if (const auto* e = m_model->entry(m_proxy->mapToSource(index).row())) {
            picked.push_back(e);
        }
    }
    if (picked.size() == 2) {
        Q_EMIT comparisonRequested(*picked[0], *picked[1]);
    } else if (picked.size() == 1) {
        Q_EMIT entryRequested(*picked[0]);
    } else {
        m_diff->setRows({});
        m_headline->setText(picked.empty() ? QString() : tr("Select two entries to compare."));
    }
}

void CacheBrowserPanel::showComparison(const std::vector<explain::ComponentChange>& changes,
                                       const QString& headline)
{
    m_diff->setChanges(changes);
    m_headline->setText(headline);
}

void CacheBrowserPanel::showEntry(const cache::EntryInfo& e, const QString& headline)
{
    std::vector<ComponentDiffRow> rows;
    for (const auto& c : e.components) {
        rows.push_back({qs(c.label), QString(), tr("—"), qs(c.text), QString()});
    }
    m_diff->setRows(std::move(rows));
    m_headline->setText(headline);
}

QString CacheBrowserPanel::headline() const
{
    return m_headline->text();
}

QString CacheBrowserPanel::statusText() const
{
    return m_status->text();
}

void CacheBrowserPanel::setStatus(const QString& text)
{
    m_status->setText(text);
}

} // namespace fxs::views
