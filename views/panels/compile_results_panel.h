// The Compile results dock: a sortable table of the last Build › Compile Regions run (region,
// state, headline, compile/eager/compiled ms, max abs error), the totals, and the selected
// region's generated C++ in a read-only, highlighted code view. Selecting a row emits
// regionSelected; the app selects the region's nodes. Does not compile: the app feeds results.
#pragma once

#include "views/models/compile_results_model.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTableView;

namespace fxs::views {

class CppHighlighter;

class CompileResultsPanel : public QWidget {
    Q_OBJECT
public:
    explicit CompileResultsPanel(QWidget* parent = nullptr);

    // Replaces the table; totals and whether the run was cancelled go to the summary line.
    void setResults(std::vector<CompileResultRow> rows, double totalEagerMs,
                    double totalCompiledMs, bool cancelled);
    void clear();
    // Selects the region's row and shows its source (no signal back); unknown ids clear.
    void selectRegion(const QString& id);
    void setStatusText(const QString& text);

    CompileResultsModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QString sourceText() const;
    QString summaryText() const;

Q_SIGNALS:
    void regionSelected(const QString& id);

private:
    void showRow(int sourceRow);

    CompileResultsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QPlainTextEdit* m_source;
    CppHighlighter* m_highlighter;
    QLabel* m_summary;
    bool m_selecting = false;
};

} // namespace fxs::views
