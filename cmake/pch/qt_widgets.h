// Precompiled for the views and the app (QtWidgets; cmake/FxscopeBuildCost.cmake): the Qt
// headers most of their units include.
#include "cmake/pch/qt_models.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QWidget>
