// The File › Open Recent list: at most kMax paths, newest first, kept in QSettings
// ("recentFiles"). Builds its own menu; emits openRequested when an entry is picked.
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace fxs::app {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMax = 10;

    explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

    void add(const QStringList& paths);
    void clear();
    QStringList paths() const { return m_paths; }

Q_SIGNALS:
    void openRequested(const QString& path);

private:
    void save() const;
    void rebuildMenu();

    QMenu* m_menu;
    QStringList m_paths;
};

} // namespace fxs::app
