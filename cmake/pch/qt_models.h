// Precompiled for the Qt models (QtCore and QtGui; cmake/FxscopeBuildCost.cmake).
#include <QAbstractItemModel>
#include <QAbstractTableModel>
#include <QColor>
#include <QObject>
#include <QSortFilterProxyModel>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
