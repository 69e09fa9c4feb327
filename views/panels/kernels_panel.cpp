// KernelsPanel: kernel and module tables behind sort proxies, the heat legend swatches, the
// node filter line, the source stack, progress/cancel.
#include "views/panels/kernels_panel.h"

#include "views/panels/table_selection.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace fxs::views {

namespace {

QSortFilterProxyModel* sortedBy(QAbstractItemModel* model, int role, QObject* parent)
{
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(role);
    return proxy;
}

} // namespace

KernelsPanel::KernelsPanel(QWidget* parent)
    : QWidget(parent), m_model(new KernelsModel(this)),
      m_proxy(sortedBy(m_model, KernelsModel::SortRole, this)),
      m_moduleModel(new KernelModulesModel(this)),
      m_moduleProxy(sortedBy(m_moduleModel, KernelModulesModel::SortRole, this)),
      m_tabs(new QTabWidget(this))
{
    m_moduleView = makeRowTable(this);
    m_moduleView->setObjectName(QStringLiteral("kernelModules"));
    m_moduleView->setModel(m_moduleProxy);
    m_moduleView->setSortingEnabled(true);
    m_moduleView->sortByColumn(KernelModulesModel::TimeColumn, Qt::DescendingOrder);
    // The module's path takes the width; the numbers keep theirs (a stretched last column put
    // the kernel counts at the far right, away from their rows' names).
    QHeaderView* moduleHeader = m_moduleView->horizontalHeader();
    moduleHeader->setStretchLastSection(false);
    moduleHeader->setSectionResizeMode(KernelModulesModel::PathColumn, QHeaderView::Stretch);
    m_tabs->addTab(buildKernelsTab(), tr("Kernels"));
    m_tabs->addTab(m_moduleView, tr("Modules"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_cancel = new QPushButton(tr("Cancel"), this);
    auto* busy = new QHBoxLayout;
    busy->addWidget(m_progress, 1);
    busy->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(busy);
    layout->addWidget(m_tabs, 1);
    setBusy(false);
    connect(m_cancel, &QPushButton::clicked, this, &KernelsPanel::cancelRequested);
    // A row selected (click, arrow keys): not the current index a table sets without selecting
    // when it gets the focus (switching tabs would pick the first row).
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this](const QItemSelection& selected) {
                if (!m_selecting && !selected.isEmpty()) {
                    Q_EMIT kernelSelected(
                        selected.indexes().front().data(KernelsModel::KernelRole).toULongLong());
                }
            });
    connect(m_moduleView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this](const QItemSelection& selected) {
                if (!selected.isEmpty()) {
                    Q_EMIT moduleSelected(m_moduleModel->pathAt(
                        m_moduleProxy->mapToSource(selected.indexes().front()).row()));
                }
            });
}

QWidget* KernelsPanel::buildKernelsTab()
{
    auto* tab = new QWidget(this);
    m_summary = new QLabel(tr("No profiler trace: open a torch.profiler trace (.json, .json.gz) "
                              "with its TORCH_TRACE log"), tab);
    m_summary->setObjectName(QStringLiteral("kernelsSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_legend = new QHBoxLayout;
    m_legendText = new QLabel(tab);
    m_legendText->setObjectName(QStringLiteral("heatLegendText"));
    m_filterTitle = new QLabel(tab);
    m_showAll = new QPushButton(tr("Show All"), tab);
    m_showAll->setObjectName(QStringLiteral("showAllKernels"));
    auto* filterLine = new QHBoxLayout;
    filterLine->addWidget(m_filterTitle, 1);
    filterLine->addWidget(m_showAll);
    m_view = makeRowTable(tab);
    m_view->setObjectName(QStringLiteral("kernelsTable"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(KernelsModel::TimeColumn, Qt::DescendingOrder);
    m_view->horizontalHeader()->resizeSection(KernelsModel::NameColumn, 260);
    m_view->horizontalHeader()->resizeSection(KernelsModel::SiteColumn, 200);
    m_stack = new QTextBrowser(tab);
    m_stack->setObjectName(QStringLiteral("kernelStack"));
    m_stack->setOpenLinks(false);
    m_stack->setLineWrapMode(QTextEdit::NoWrap);
    m_stack->setPlaceholderText(tr("Select a kernel to see the source lines it was made from"));
    connect(m_stack, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        bool ok = false;
        const int i = url.fragment().toInt(&ok);
        if (url.scheme() == QLatin1String("frame") && ok && i >= 0) {
            activateStackFrame(static_cast<std::size_t>(i));
        }
    });
    auto* split = new QSplitter(Qt::Horizontal, tab);
    split->addWidget(m_view);
    split->addWidget(m_stack);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(tab);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addLayout(m_legend);
    layout->addLayout(filterLine);
    layout->addWidget(split, 1);
    connect(m_showAll, &QPushButton::clicked, this, &KernelsPanel::showAllRequested);
    setHeatLegend(0, {});
    setFilter(std::nullopt);
    return tab;
}

void KernelsPanel::setAttribution(std::shared_ptr<const runtime::Attribution> attribution,
                                  const QString& summary)
{
    m_selecting = true;
    m_moduleModel->setAttribution(attribution);
    m_model->setAttribution(std::move(attribution));
    m_selecting = false;
    m_summary->setText(summary);
    setFilter(std::nullopt);
    setStack({});
}

void KernelsPanel::setHeatLegend(double maxUs, const QString& text)
{
    while (QLayoutItem* item = m_legend->takeAt(0)) {
        if (item->widget() != m_legendText) {
            delete item->widget();
        }
        delete item;
    }
    if (maxUs > 0) {
        m_legend->addWidget(new QLabel(tr("Heat (µs):"), this));
        for (const auto& [us, color] : KernelsModel::heatLegend(maxUs)) {
            auto* swatch = new QLabel(KernelsModel::usText(us), this);
            swatch->setObjectName(QStringLiteral("heatStop"));
            swatch->setAutoFillBackground(true);
            swatch->setStyleSheet(
                QStringLiteral("background:%1;color:%2;padding:1px 6px;")
                    .arg(color.name(), color.lightnessF() < 0.5 ? "white" : "black"));
            m_legend->addWidget(swatch);
        }
    }
    m_legendText->setText(text);
    m_legend->addWidget(m_legendText, 1);
}

void KernelsPanel::setFilter(std::optional<std::vector<std::size_t>> kernels, const QString& title)
{
    const auto selected = selectedKernel();
    m_selecting = true;
    m_model->setFilter(std::move(kernels));
    m_selecting = false;
    m_filterTitle->setText(m_model->isFiltered() ? title : QString());
    m_filterTitle->setVisible(m_model->isFiltered());
    m_showAll->setVisible(m_model->isFiltered());
    selectKernel(selected);
}

void KernelsPanel::setStack(const QString& text)
{
    // Python's traceback frame line, as kernel_stack_traces logs it.
    static constexpr const char* kFrame = R"re(^(\s*)File "([^"]+)", line (\d+)(.*)$)re";
    static const QRegularExpression frame(QString::fromLatin1(kFrame));
    m_frames.clear();
    QStringList html;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const auto m = frame.match(line);
        if (!m.hasMatch()) {
            html << line.toHtmlEscaped();
            continue;
        }
        const QString file = m.captured(2);
        const int at = m.captured(3).toInt();
        html << m.captured(1) + QStringLiteral("<a href=\"frame:#%1\">File \"%2\", line %3</a>%4")
                                    .arg(m_frames.size())
                                    .arg(file.toHtmlEscaped())
                                    .arg(at)
                                    .arg(m.captured(4).toHtmlEscaped());
        m_frames.emplace_back(file, at);
    }
    m_stack->setHtml(text.isEmpty() ? QString()
                                    : QStringLiteral("<pre>") + html.join(QLatin1Char('\n')) +
                                          QStringLiteral("</pre>"));
}

void KernelsPanel::activateStackFrame(std::size_t i)
{
    if (i < m_frames.size()) {
        Q_EMIT sourceLineActivated(m_frames[i].first, m_frames[i].second);
    }
}

void KernelsPanel::selectKernel(std::optional<std::size_t> kernel)
{
    m_selecting = true;
    selectSourceRow(m_view, m_proxy, kernel ? m_model->rowOf(*kernel) : -1);
    m_selecting = false;
}

std::optional<std::size_t> KernelsPanel::selectedKernel() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        return std::nullopt;
    }
    return rows.front().data(KernelsModel::KernelRole).toULongLong();
}

void KernelsPanel::setBusy(bool busy)
{
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    if (busy) {
        m_progress->setValue(0);
    }
}

void KernelsPanel::setProgress(double fraction, const QString& phase)
{
    m_progress->setValue(static_cast<int>(fraction * 100.0));
    m_progress->setFormat(phase.isEmpty() ? QStringLiteral("%p%") : phase + QStringLiteral(" %p%"));
}

QString KernelsPanel::summary() const
{
    return m_summary->text();
}

QString KernelsPanel::legendText() const
{
    return m_legendText->text();
}

int KernelsPanel::legendStops() const
{
    return static_cast<int>(findChildren<QLabel*>(QStringLiteral("heatStop")).size());
}

} // namespace fxs::views
