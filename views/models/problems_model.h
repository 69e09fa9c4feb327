// The Problems panel's table: every diagnostic the loads produced (severity, where, message).
// Follows the Workspace; read-only. File and line are exposed as roles so the panel can jump
// to the place.
#pragma once

#include "views/models/workspace.h"

#include <QAbstractTableModel>

namespace fxs::views {

class ProblemsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SeverityColumn, WhereColumn, MessageColumn, ColumnCount };
    enum Role { FileRole = Qt::UserRole + 1, LineRole };

    explicit ProblemsModel(const Workspace* workspace, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // "file.log:12" with the file's name only (the tooltip has the full path).
    static QString shortWhere(const Diagnostic& d);
    // The message plus " (expected X, found Y)" when the importer said so.
    static QString fullMessage(const Diagnostic& d);

private:
    const Workspace* m_workspace;
    int m_rows = 0;
};

} // namespace fxs::views
