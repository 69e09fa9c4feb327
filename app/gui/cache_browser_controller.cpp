#include "app/gui/cache_browser_controller.h"

#include "app/gui/app_context.h"
#include "core/cache/cache_explain.h"
#include "views/panels/cache_browser_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>

namespace fxs::app {
namespace {

// What a store job hands back: its value or the error (opening the database included).
template <typename T>
struct Outcome {
    T value{};
    QString error;
};

// Opens the database at path and runs op(store) -> Result<T> on it (worker thread).
template <typename T, typename Op>
Outcome<T> withStore(const std::string& path, Op op)
{
    auto store = AppContext::openCache(path);
    if (!store) {
        return {T{}, QString::fromStdString(store.error().toString())};
    }
    Result<T> r = op(**store);
    if (!r) {
        return {T{}, QString::fromStdString(r.error().toString())};
    }
    return {std::move(*r), QString()};
}

} // namespace

CacheBrowserController::CacheBrowserController(AppContext* context)
    : QObject(context), m_context(context), m_panel(new views::CacheBrowserPanel(context->host()))
{
    m_dock = context->addBottomDock(m_panel, tr("Cache Browser"),
                                    QStringLiteral("cacheBrowserDock"));
    m_showAction = new QAction(tr("Cache &Browser"), this);
    m_showAction->setObjectName(QStringLiteral("cacheBrowserAction"));
    connect(m_showAction, &QAction::triggered, this, [this] {
        m_dock->show();
        m_dock->raise();
    });
    m_panel->showDatabasePath(context->cachePath());
    m_panel->showRemoteUrl(context->remoteUrl());
    connect(context, &AppContext::remoteUrlChanged, m_panel,
            &views::CacheBrowserPanel::showRemoteUrl);
    // The browser reads the database the first time it is shown.
    connect(m_dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && !m_live) {
            setLive();
        }
    });
    connect(context, &AppContext::cachePathChanged, this, [this](const QString& path) {
        m_panel->showDatabasePath(path);
        if (m_live) {
            m_panel->reload();
        }
    });
    connect(context, &AppContext::cacheWritten, this, [this] {
        if (m_live) {
            m_panel->reload();
        }
    });
    connectPanel();
}

void CacheBrowserController::connectPanel()
{
    using views::CacheBrowserPanel;
    connect(m_panel, &CacheBrowserPanel::databasePathEdited, m_context, &AppContext::setCachePath);
    connect(m_panel, &CacheBrowserPanel::remoteUrlEdited, m_context, &AppContext::setRemoteUrl);
    connect(m_panel, &CacheBrowserPanel::reloadRequested, this, &CacheBrowserController::reload);
    connect(m_panel, &CacheBrowserPanel::verifyRequested, this, &CacheBrowserController::verify);
    connect(m_panel, &CacheBrowserPanel::collectRequested, this, &CacheBrowserController::collect);
    connect(m_panel, &CacheBrowserPanel::comparisonRequested, this,
            &CacheBrowserController::compare);
    connect(m_panel, &CacheBrowserPanel::entryRequested, this, [this](const cache::EntryInfo& e) {
        m_panel->showEntry(e, QString::fromStdString(cache::hitHeadline(e)));
    });
}

void CacheBrowserController::compare(const cache::EntryInfo& a, const cache::EntryInfo& b)
{
    // B looked up with A as the only candidate: the explainer's headline for "why not A".
    const auto why = cache::explainMiss(b.components, {a});
    const auto shortKey = [](const std::string& key) {
        return QString::fromStdString(key).left(views::CacheEntryModel::kShortKey);
    };
    m_panel->showComparison(cache::diffKeys(a.components, b.components),
                            tr("A %1 → B %2: %3")
                                .arg(shortKey(a.key), shortKey(b.key),
                                     QString::fromStdString(why.headline)));
}

CacheBrowserController::~CacheBrowserController() = default;

void CacheBrowserController::setLive()
{
    m_live = true;
    m_panel->reload();
}

void CacheBrowserController::reload()
{
    using Entries = std::vector<cache::EntryInfo>;
    m_list.start(
        [path = m_context->cachePath().toStdString()](const CancelToken&, const ProgressSink&) {
            return withStore<Entries>(path, [](cache::CacheStore& s) { return s.list(); });
        },
        [this](Outcome<Entries> done) {
            done.error.isEmpty() ? m_panel->setEntries(std::move(done.value))
                                 : m_panel->showFailure(done.error);
        });
}

void CacheBrowserController::verify()
{
    m_maintenance.start(
        [path = m_context->cachePath().toStdString()](const CancelToken&, const ProgressSink&) {
            return withStore<cache::VerifyReport>(path,
                                                  [](cache::CacheStore& s) { return s.verify(); });
        },
        [this](const Outcome<cache::VerifyReport>& done) {
            done.error.isEmpty() ? m_panel->showVerified(done.value)
                                 : m_panel->showFailure(done.error);
        });
}

void CacheBrowserController::collect(qint64 maxBytes)
{
    m_maintenance.start(
        [path = m_context->cachePath().toStdString(), maxBytes](const CancelToken&,
                                                                const ProgressSink&) {
            return withStore<cache::GcReport>(
                path, [maxBytes](cache::CacheStore& s) { return s.gc(maxBytes); });
        },
        [this](const Outcome<cache::GcReport>& done) {
            if (!done.error.isEmpty()) {
                m_panel->showFailure(done.error);
                return;
            }
            m_panel->reload();
            m_panel->showCollected(done.value);
        });
}

} // namespace fxs::app
