// The Cache browser dock: the region compiler's SQLite store as a searchable, sortable table
// (CacheEntryModel), the component diff of two selected entries with the cache explainer's
// differ and headline, Verify (checksums + integrity check) and GC (LRU down to a byte cap).
// The database defaults to the compiler's default path and can be changed here. Every database
// access runs on a worker thread (QtConcurrent); the newest request wins.
#pragma once

#include "views/models/cache_entry_model.h"

#include <QWidget>

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

    // Sets the database (empty: the default path) and reloads unless load is false. Emits
    // databasePathChanged.
    void setDatabasePath(const QString& path, bool load = true);
    QString databasePath() const;
    // Re-reads the entries in the background; emits loaded (or failed).
    void reload();
    // Checks every entry in the background; corrupt ones are marked; emits verified.
    void verify();
    // Evicts least recently hit entries until the blobs fit in maxBytes, then reloads.
    void collectGarbage(qint64 maxBytes);
    void setSearchText(const QString& text);
    // Selects the rows of these keys (the diff follows the selection).
    void selectKeys(const QStringList& keys);

    CacheEntryModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    ComponentDiffModel* diffModel() const { return m_diff; }
    QString headline() const;
    QString statusText() const;

Q_SIGNALS:
    void databasePathChanged(const QString& path);
    void loaded(int entries);
    void verified(int checked, int corrupt);
    void collected(int removed);
    void failed(const QString& message);

private:
    void onSelectionChanged();
    void showDiff(const cache::EntryInfo& a, const cache::EntryInfo& b);
    void showOne(const cache::EntryInfo& e);
    void setStatus(const QString& text);

    CacheEntryModel* m_model;
    QSortFilterProxyModel* m_proxy;
    ComponentDiffModel* m_diff;
    QLineEdit* m_path;
    QLineEdit* m_search;
    QSpinBox* m_maxMb;
    QTableView* m_view;
    QTableView* m_diffView;
    QLabel* m_headline;
    QLabel* m_status;
    int m_listGeneration = 0; // newest reload wins
};

} // namespace fxs::views
