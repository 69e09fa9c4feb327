#include "app/gui/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace fxs::app {
namespace {
const char* const kKey = "recentFiles";
} // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), m_menu(menu)
{
    m_paths = QSettings().value(QLatin1String(kKey)).toStringList();
    rebuildMenu();
}

void RecentFiles::add(const QStringList& paths)
{
    for (const auto& p : paths) {
        const QString abs = QFileInfo(p).absoluteFilePath();
        m_paths.removeAll(abs);
        m_paths.prepend(abs);
    }
    while (m_paths.size() > kMax) {
        m_paths.removeLast();
    }
    save();
    rebuildMenu();
}

void RecentFiles::clear()
{
    m_paths.clear();
    save();
    rebuildMenu();
}

void RecentFiles::save() const
{
    QSettings().setValue(QLatin1String(kKey), m_paths);
}

void RecentFiles::rebuildMenu()
{
    m_menu->clear();
    int n = 0;
    for (const auto& path : m_paths) {
        const QString label = QStringLiteral("&%1 %2").arg(++n % 10).arg(QDir::toNativeSeparators(path));
        auto* action = m_menu->addAction(label);
        action->setEnabled(QFileInfo::exists(path));
        connect(action, &QAction::triggered, this, [this, path] { Q_EMIT openRequested(path); });
    }
    if (!m_paths.isEmpty()) {
        m_menu->addSeparator();
    }
    auto* clearAction = m_menu->addAction(tr("&Clear Recent"));
    clearAction->setEnabled(!m_paths.isEmpty());
    connect(clearAction, &QAction::triggered, this, &RecentFiles::clear);
}

} // namespace fxs::app
