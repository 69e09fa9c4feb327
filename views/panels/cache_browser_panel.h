// The Cache browser dock: the region compiler's SQLite store as a searchable, sortable table
// (CacheEntryModel), the component diff of two selected entries with the cache explainer's
// headline, Verify (checksums + integrity check) and GC (LRU down to a byte cap). Runs no core
// work and opens no database: it asks (the *Requested signals) and shows what the app's
// CacheBrowserController answers (setEntries, showVerified, ...).
#pragma once

#include "core/explain/component_change.h"
#include "views/models/cache_entry_model.h"

#include <QWidget>

#include <vector>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace fxs::views {

class ComponentDiffModel;

class CacheBrowserPanel : public QWidget {
    Q_OBJECT
public:
    explicit CacheBrowserPanel(QWidget* parent = nullptr);
    ~CacheBrowserPanel() override;

    // The database shown (the app's cache path); editing it emits databasePathEdited.
    void showDatabasePath(const QString& path);
    QString databasePath() const;
    // The remote tier's URL (the app's setting; empty: none); editing it emits remoteUrlEdited.
    // This panel lists the local store; compile and profile use the remote tier behind it.
    void showRemoteUrl(const QString& url);
    QString remoteUrl() const;
    // Requests (answered by the app): re-read the entries; check every entry; evict least
    // recently hit entries until the blobs fit in maxBytes.
    void reload();
    void verify();
    void collectGarbage(qint64 maxBytes);
    void setSearchText(const QString& text);
    // Selects the rows of these keys (the diff follows the selection).
    void selectKeys(const QStringList& keys);

    // Answers. Each emits the matching signal below.
    void setEntries(std::vector<cache::EntryInfo> entries);           // loaded
    void showVerified(const cache::VerifyReport& report);             // verified
    void showCollected(const cache::GcReport& report);                // collected
    void showFailure(const QString& message);                         // failed
    // The diff of the two selected entries (A first) and its headline.
    void showComparison(const std::vector<explain::ComponentChange>& changes,
                        const QString& headline);
    // The one selected entry's components and its headline.
    void showEntry(const cache::EntryInfo& entry, const QString& headline);

    CacheEntryModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    ComponentDiffModel* diffModel() const { return m_diff; }
    QString headline() const;
    QString statusText() const;

Q_SIGNALS:
    void databasePathEdited(const QString& path);
    void remoteUrlEdited(const QString& url);
    void reloadRequested();
    void verifyRequested();
    void collectRequested(qint64 maxBytes);
    void comparisonRequested(const fxs::cache::EntryInfo& a, const fxs::cache::EntryInfo& b);
    void entryRequested(const fxs::cache::EntryInfo& entry);

    void loaded(int entries);
    void verified(int checked, int corrupt);
    void collected(int removed);
    void failed(const QString& message);

private:
    void onSelectionChanged();
    void setStatus(const QString& text);

    CacheEntryModel* m_model;
    QSortFilterProxyModel* m_proxy;
    ComponentDiffModel* m_diff;
    QLineEdit* m_path;
    QLineEdit* m_remote;
    QLineEdit* m_search;
    QSpinBox* m_maxMb;
    QTableView* m_view;
    QTableView* m_diffView;
    QLabel* m_headline;
    QLabel* m_status;
};

} // namespace fxs::views
