#include "views/panels/cache_browser_panel.h"

#include "core/cache/cache_explain.h"
#include "views/models/component_diff_model.h"

#include <QFutureWatcher>
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
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace fxs::views {
namespace {

struct ListJob {
    std::vector<cache::EntryInfo> entries;
    QString error;
};
struct VerifyJob {
    cache::VerifyReport report;
    QString error;
};
struct GcJob {
    cache::GcReport report;
    QString error;
};

template <typename Job, typename Fn>
Job withStore(const QString& path, Fn&& fn)
{
    Job job;
    cache::StoreOptions so;
    so.path = path.toStdString();
    auto store = cache::CacheStore::open(so);
    if (!store) {
        job.error = QString::fromStdString(store.error().toString());
        return job;
    }
    fn(**store, job);
    return job;
}

// Runs work on the thread pool and hands its result to done on owner's thread.
template <typename Job, typename Work, typename Done>
void runJob(QObject* owner, Work work, Done done)
{
    auto* watcher = new QFutureWatcher<Job>(owner);
    QObject::connect(watcher, &QFutureWatcherBase::finished, owner, [watcher, done] {
        done(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(std::move(work)));
}

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString changeText(cache::ChangeKind kind)
{
    switch (kind) {
    case cache::ChangeKind::Added:
        return QObject::tr("only in B");
    case cache::ChangeKind::Removed:
        return QObject::tr("only in A");
    case cache::ChangeKind::Changed:
        break;
    }
    return QObject::tr("changed");
}

} // namespace

CacheBrowserPanel::CacheBrowserPanel(QWidget* parent)
    : QWidget(parent), m_model(new CacheEntryModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_diff(new ComponentDiffModel(this)), m_path(new QLineEdit(this)),
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
            setDatabasePath(m_path->text());
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

void CacheBrowserPanel::setDatabasePath(const QString& path, bool load)
{
    QString resolved = path.trimmed();
    if (resolved.isEmpty()) {
        auto def = cache::defaultCachePath();
        resolved = def ? qs(*def) : QString();
        if (!def) {
            setStatus(qs(def.error().toString()));
        }
    }
    m_path->setText(resolved);
    Q_EMIT databasePathChanged(resolved);
    if (load) {
        reload();
    }
}

QString CacheBrowserPanel::databasePath() const
{
    return m_path->text();
}

void CacheBrowserPanel::reload()
{
    const QString path = databasePath();
    if (path.isEmpty()) {
        return;
    }
    const int generation = ++m_listGeneration;
    setStatus(tr("Reading %1…").arg(path));
    runJob<ListJob>(
        this,
        [path] {
            return withStore<ListJob>(path, [](cache::CacheStore& s, ListJob& job) {
                auto list = s.list();
                if (list) {
                    job.entries = std::move(*list);
                } else {
                    job.error = qs(list.error().toString());
                }
            });
        },
        [this, generation](const ListJob& job) {
            if (generation != m_listGeneration) {
                return; // a newer reload is on its way
            }
            if (!job.error.isEmpty()) {
                setStatus(job.error);
                Q_EMIT failed(job.error);
                return;
            }
            m_model->setEntries(job.entries);
            m_view->resizeColumnsToContents();
            m_diff->setRows({});
            m_headline->clear();
            setStatus(tr("%1 entries — %2").arg(job.entries.size()).arg(databasePath()));
            Q_EMIT loaded(static_cast<int>(job.entries.size()));
        });
}

void CacheBrowserPanel::verify()
{
    const QString path = databasePath();
    setStatus(tr("Verifying %1…").arg(path));
    runJob<VerifyJob>(
        this,
        [path] {
            return withStore<VerifyJob>(path, [](cache::CacheStore& s, VerifyJob& job) {
                auto r = s.verify();
                r ? void(job.report = std::move(*r)) : void(job.error = qs(r.error().toString()));
            });
        },
        [this](const VerifyJob& job) {
            if (!job.error.isEmpty()) {
                setStatus(job.error);
                Q_EMIT failed(job.error);
                return;
            }
            QSet<QString> corrupt;
            for (const auto& [key, problem] : job.report.corrupt) {
                corrupt.insert(qs(key));
            }
            m_model->setCorrupt(corrupt);
            setStatus(tr("Verified %1 entries: %2 corrupt, integrity %3")
                          .arg(job.report.checked)
                          .arg(corrupt.size())
                          .arg(qs(job.report.integrity)));
            Q_EMIT verified(job.report.checked, static_cast<int>(corrupt.size()));
        });
}

void CacheBrowserPanel::collectGarbage(qint64 maxBytes)
{
    const QString path = databasePath();
    runJob<GcJob>(
        this,
        [path, maxBytes] {
            return withStore<GcJob>(path, [maxBytes](cache::CacheStore& s, GcJob& job) {
                auto r = s.gc(maxBytes);
                r ? void(job.report = *r) : void(job.error = qs(r.error().toString()));
            });
        },
        [this](const GcJob& job) {
            if (!job.error.isEmpty()) {
                setStatus(job.error);
                Q_EMIT failed(job.error);
                return;
            }
            Q_EMIT collected(job.report.removed);
            reload();
            setStatus(tr("GC removed %1 entries (%2 → %3)")
                          .arg(job.report.removed)
                          .arg(QLocale().formattedDataSize(job.report.bytesBefore),
                               QLocale().formattedDataSize(job.report.bytesAfter)));
        });
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
        showDiff(*picked[0], *picked[1]);
    } else if (picked.size() == 1) {
        showOne(*picked[0]);
    } else {
        m_diff->setRows({});
        m_headline->setText(picked.empty() ? QString() : tr("Select two entries to compare."));
    }
}

void CacheBrowserPanel::showDiff(const cache::EntryInfo& a, const cache::EntryInfo& b)
{
    std::vector<ComponentDiffRow> rows;
    for (const auto& c : cache::diffComponents(a.components, b.components)) {
        rows.push_back({qs(c.label), qs(c.field), changeText(c.kind), qs(c.before), qs(c.after)});
    }
    m_diff->setRows(std::move(rows));
    // B looked up with A as the only candidate: the explainer's headline for "why not A".
    const auto why = cache::explainMiss(b.components, {a});
    m_headline->setText(tr("A %1 → B %2: %3")
                            .arg(qs(a.key).left(CacheEntryModel::kShortKey),
                                 qs(b.key).left(CacheEntryModel::kShortKey), qs(why.headline)));
}

void CacheBrowserPanel::showOne(const cache::EntryInfo& e)
{
    std::vector<ComponentDiffRow> rows;
    for (const auto& c : e.components) {
        rows.push_back({qs(c.label), QString(), tr("—"), qs(c.text), QString()});
    }
    m_diff->setRows(std::move(rows));
    m_headline->setText(qs(cache::hitHeadline(e)));
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
