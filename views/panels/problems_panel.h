// The Problems dock: a table of every importer diagnostic (severity, file:line, message) with
// a count on top. Never modal; activating a row emits problemActivated for the app to act on.
#pragma once

#include "views/models/problems_model.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace fxs::views {

class ProblemsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ProblemsPanel(const Workspace* workspace, QWidget* parent = nullptr);

    ProblemsModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QString summaryText() const;

Q_SIGNALS:
    void problemActivated(const QString& file, int line);
    // The number of problems changed (the app shows it in the dock title).
    void countChanged(int count);

private:
    void updateSummary();

    ProblemsModel* m_model;
    QTableView* m_view;
    QLabel* m_summary;
};

} // namespace fxs::views
