#include "views/panels/compile_results_panel.h"

#include "views/panels/cpp_highlighter.h"
#include "views/panels/table_selection.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextDocument>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace fxs::views {

CompileResultsPanel::CompileResultsPanel(QWidget* parent)
    : QWidget(parent), m_model(new CompileResultsModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_view(new QTableView(this)),
      m_source(new QPlainTextEdit(this)), m_highlighter(new CppHighlighter(m_source->document())),
      m_summary(new QLabel(tr("Build › Compile Regions (Ctrl+B) compiles the graph's regions."),
                           this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CompileResultsModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // region order until the user sorts
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->setWordWrap(false); // full texts are in the tooltips
    m_view->horizontalHeader()->setSectionResizeMode(CompileResultsModel::HeadlineColumn,
                                                     QHeaderView::Stretch);
    m_source->setReadOnly(true);
    m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_source->setPlaceholderText(tr("Select a region to see its generated C++."));
    m_summary->setWordWrap(true);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_source);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid()) {
                    return;
                }
                const int row = m_proxy->mapToSource(current).row();
                showRow(row);
                if (!m_selecting) {
                    Q_EMIT regionSelected(m_model->rows()[static_cast<std::size_t>(row)].region);
                }
            });
}

void CompileResultsPanel::setResults(std::vector<CompileResultRow> rows, double totalEagerMs,
                                     double totalCompiledMs, bool cancelled)
{
    const int count = static_cast<int>(rows.size());
    m_model->setRows(std::move(rows));
    m_view->resizeColumnsToContents();
    m_source->clear();
    QString text = tr("%1 region%2: eager %3 ms, compiled %4 ms")
                       .arg(count)
                       .arg(count == 1 ? QString() : QStringLiteral("s"))
                       .arg(totalEagerMs, 0, 'f', 3)
                       .arg(totalCompiledMs, 0, 'f', 3);
    if (totalCompiledMs > 0) {
        text += tr(" (%1×)").arg(totalEagerMs / totalCompiledMs, 0, 'f', 2);
    }
    if (cancelled) {
        text += tr(" — cancelled; the regions after these were not compiled");
    }
    m_summary->setText(text);
}

void CompileResultsPanel::clear()
{
    m_model->setRows({});
    m_source->clear();
    m_summary->clear();
}

void CompileResultsPanel::setStatusText(const QString& text)
{
    m_summary->setText(text);
}

void CompileResultsPanel::selectRegion(const QString& id)
{
    m_selecting = true;
    const int row = m_model->rowOf(id);
    selectSourceRow(m_view, m_proxy, row);
    if (row < 0) {
        m_source->clear();
    }
    m_selecting = false;
}

void CompileResultsPanel::showRow(int sourceRow)
{
    const CompileResultRow& row = m_model->rows()[static_cast<std::size_t>(sourceRow)];
    if (!row.source.isEmpty()) {
        m_source->setPlainText(row.source);
        // Past the helpers to the first kernel, whose comment names the FX nodes it covers.
        const QTextCursor kernel = m_source->document()->find(QStringLiteral(": covers FX nodes"));
        if (!kernel.isNull()) {
            m_source->verticalScrollBar()->setValue(kernel.blockNumber());
        }
    } else {
        m_source->setPlainText(tr("// No generated code for %1: %2\n").arg(row.region, row.headline) +
                               row.buildDiagnostics);
    }
}

QString CompileResultsPanel::sourceText() const
{
    return m_source->toPlainText();
}

QString CompileResultsPanel::summaryText() const
{
    return m_summary->text();
}

} // namespace fxs::views
