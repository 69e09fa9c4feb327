// ProfilePanel: table + proxy sorting, Qt Charts bar charts, legend swatches, progress/cancel.
#include "views/panels/profile_panel.h"

#include "core/compile/compile_types.h"
#include "views/panels/bar_list.h"
#include "views/panels/phase_timeline.h"
#include "views/panels/table_selection.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace fxs::views {

ProfilePanel::ProfilePanel(QWidget* parent)
    : QWidget(parent), m_model(new ProfileModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)), m_topChart(new BarList(this)), m_tabs(new QTabWidget(this)),
      m_modules(new QTreeView(this)), m_moduleModel(new QStandardItemModel(this)),
      m_timeline(new PhaseTimeline(this)), m_timelineScroll(new QScrollArea(this)),
      m_legend(new QHBoxLayout),
      m_progress(new QProgressBar(this)), m_run(new QPushButton(tr("Profile"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_status(new QLabel(this)),
      m_summary(new QLabel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ProfileModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    // The values keep their width (resized to them on each profile); the op kind takes what is
    // left, not the last column (a 500-px Bound column truncated the times beside it).
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->horizontalHeader()->setSectionResizeMode(ProfileModel::KindColumn,
                                                     QHeaderView::Stretch);
    m_view->sortByColumn(ProfileModel::EagerColumn, Qt::DescendingOrder);
    m_topChart->setObjectName(QStringLiteral("slowestNodes"));
    m_view->setWordWrap(false);
    m_timelineScroll->setWidget(m_timeline);
    m_timelineScroll->setWidgetResizable(true);
    m_timelineScroll->setMinimumHeight(80);

    auto* top = new QHBoxLayout;
    top->addWidget(m_run);
    top->addWidget(m_cancel);
    top->addWidget(m_progress, 1);
    top->addWidget(m_status, 1);
    m_status->setObjectName(QStringLiteral("profileStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse |
                                      Qt::LinksAccessibleByKeyboard);
    connect(m_status, &QLabel::linkActivated, this, [this] { Q_EMIT alternativeRequested(); });
    // Table and chart side by side (the dock is wide and short), the timeline under both.
    m_modules->setObjectName(QStringLiteral("profileModules"));
    m_modules->setModel(m_moduleModel);
    m_modules->setUniformRowHeights(true);
    m_modules->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_modules->setEditTriggers(QAbstractItemView::NoEditTriggers);
    setModuleBreakdown({});
    m_tabs->addTab(m_view, tr("Nodes"));
    m_tabs->addTab(m_modules, tr("Modules"));
    auto* upper = new QSplitter(Qt::Horizontal, this);
    upper->addWidget(m_tabs);
    upper->addWidget(m_topChart);
    upper->setStretchFactor(0, 3);
    upper->setStretchFactor(1, 2);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(upper);
    splitter->addWidget(m_timelineScroll);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 1);
    m_timelineScroll->hide(); // until a TORCH_TRACE run brings compile phases
    m_topChart->hide();       // until a profile is shown
    m_summary->setObjectName(QStringLiteral("wholeGraphSummary"));
    m_summary->setAccessibleName(tr("Whole graph, eager and compiled"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->hide(); // until a profile is shown
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(m_legend);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);
    setBusy(false);

    connect(m_modules, &QTreeView::clicked, this, [this](const QModelIndex& index) {
        const QString path = index.siblingAtColumn(0).data(Qt::UserRole).toString();
        if (!path.isEmpty()) {
            Q_EMIT moduleSelected(path);
        }
    });
    connect(m_run, &QPushButton::clicked, this, &ProfilePanel::profileRequested);
    connect(m_cancel, &QPushButton::clicked, this, &ProfilePanel::cancelRequested);
    connect(m_topChart, &BarList::itemClicked, this, [this](int index) {
        const QString name = m_topNames.value(index);
        selectName(name);
        Q_EMIT nodeSelected(name);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!m_selecting && current.isValid()) {
                    emitForSourceRow(m_proxy->mapToSource(current).row());
                }
            });
}

void ProfilePanel::setProfile(profile::RuntimeProfile profile)
{
    m_model->setProfile(std::move(profile));
    m_nodeModules.clear(); // the modules of the last profile's graph
    showFailure({});       // the runs' line
    rebuildTopChart();
    rebuildLegend();
    updateWholeGraph();
    m_topChart->setVisible(!m_model->profile().nodes.empty());
    for (const int column : {int(ProfileModel::NameColumn), int(ProfileModel::EagerColumn),
                             int(ProfileModel::CompiledColumn), int(ProfileModel::SpeedupColumn),
                             int(ProfileModel::ShareColumn), int(ProfileModel::BoundColumn)}) {
        m_view->resizeColumnToContents(column);
    }
}

void ProfilePanel::rebuildTopChart()
{
    std::vector<const profile::NodeProfile*> nodes;
    for (const auto& n : m_model->profile().nodes) {
        nodes.push_back(&n);
    }
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto* a, const auto* b) {
        return a->eager.medianMs > b->eager.medianMs;
    });
    nodes.resize(std::min<std::size_t>(nodes.size(), kTopN));
    m_topNames.clear();
    std::vector<BarList::Item> items;
    for (const auto* n : nodes) {
        const QString name = QString::fromStdString(n->name);
        m_topNames << name;
        const QString module = m_nodeModules.value(name);
        // "model.layers.3.mlp.down_proj · mm_103": the module tells the bars of equal ops apart.
        items.push_back({module.isEmpty() ? name : module + BarList::pathSeparator() + name,
                         n->eager.medianMs,
                         ProfileModel::msText(n->eager.medianMs) + tr(" ms"),
                         tr("%1\neager %2 ms").arg(QString::fromStdString(n->target),
                                                  ProfileModel::timeText(n->eager))});
    }
    m_topChart->setTitle(tr("Slowest nodes (eager, median of %1 runs)")
                             .arg(m_model->profile().repeat));
    m_topChart->setItems(std::move(items));
}

void ProfilePanel::setCompileProfile(const profile::CompileProfileResult& compile)
{
    m_timeline->setCompileProfile(compile);
    m_timelineScroll->setVisible(!m_timeline->bars().empty());
}

void ProfilePanel::rebuildLegend()
{
    while (QLayoutItem* item = m_legend->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_legend->addWidget(new QLabel(tr("Time share:"), this));
    const auto stops = ProfileModel::legend(m_model->profile());
    // As many decimals as tell the stops apart: "0.0% 0.5% 1.0% 1.5% 2.0%", not "0% 0% 1% ...".
    const double top = stops.empty() ? 0.0 : stops.back().first * 100;
    const int decimals = top >= 20 ? 0 : top >= 2 ? 1 : 2;
    for (const auto& [share, color] : stops) {
        auto* swatch = new QLabel(QString::number(share * 100, 'f', decimals) + "%", this);
        swatch->setObjectName("legendStop");
        swatch->setAutoFillBackground(true);
        swatch->setStyleSheet(QString("background:%1;padding:1px 6px;").arg(color.name()));
        m_legend->addWidget(swatch);
    }
    m_legend->addStretch(1);
}

namespace {

// "12.3 ms (±0.400)": the median and half the range of the timed runs.
QString plusMinusText(const profile::TimeStat& t)
{
    return QObject::tr("%1 ms (\u00b1%2)")
        .arg(ProfileModel::msText(t.medianMs), ProfileModel::msText(t.spreadMs / 2));
}

QString rangeOf(const profile::TimeStat& t)
{
    return QObject::tr("%1\u2013%2 ms").arg(ProfileModel::msText(t.minMs),
                                            ProfileModel::msText(t.maxMs));
}

} // namespace

QString ProfilePanel::wholeGraphText(const profile::RuntimeProfile& p)
{
    if (!p.compiledGraph) {
        return tr("Whole graph \u2014 eager %1 \u00b7 compiled: not measured; Profile with "
                  "compiled regions (open or propose regions first) to compare the whole graph "
                  "compiled with eager")
            .arg(plusMinusText(p.total));
    }
    // Eager as timed in the same rounds as compiled, not the profile's total (which may be
    // reused from an earlier profile).
    const profile::CompiledGraphProfile& c = *p.compiledGraph;
    QString text = tr("Whole graph \u2014 eager %1 \u00b7 compiled %2")
                       .arg(plusMinusText(c.eager), plusMinusText(c.total));
    if (c.total.medianMs > 0 && c.eager.medianMs > 0) {
        const double ratio = c.eager.medianMs / c.total.medianMs;
        const QString times = QString::number(ratio, 'f', 2) + QStringLiteral("\u00d7");
        // Faster or slower only beyond the spread of both, by the rule that drops a region
        // (either way round); a difference inside it is noise.
        const auto& e = c.eager;
        const auto& t = c.total;
        text += compile::slowerThanEager(t.medianMs, t.spreadMs, e.medianMs, e.spreadMs)
                    ? tr(" \u00b7 %1 faster").arg(times)
                : compile::slowerThanEager(e.medianMs, e.spreadMs, t.medianMs, t.spreadMs)
                    ? tr(" \u00b7 %1 (slower)").arg(times)
                    : tr(" \u00b7 %1, within the spread").arg(times);
    }
    text += tr(" \u00b7 %1 of %2 regions used").arg(c.regionsUsed).arg(c.regionsTotal);
    if (c.matmulGroups > 0) {
        text += c.matmulGroups == 1
                    ? tr(" \u00b7 1 matrix-product group")
                    : tr(" \u00b7 %1 matrix-product groups").arg(c.matmulGroups);
    }
    if (c.deviceMs && c.eagerDeviceMs) {
        text += tr(" \u00b7 GPU time eager %1 ms, compiled %2 ms")
                    .arg(ProfileModel::msText(*c.eagerDeviceMs), ProfileModel::msText(*c.deviceMs));
    }
    return text;
}

void ProfilePanel::updateWholeGraph()
{
    const profile::RuntimeProfile& p = m_model->profile();
    m_summary->setText(wholeGraphText(p));
    const profile::TimeStat& eager = p.compiledGraph ? p.compiledGraph->eager : p.total;
    QString tip = tr("Median of %1 timed runs each; \u00b1 is half their range. Eager: %2.")
                      .arg(p.repeat)
                      .arg(rangeOf(eager));
    if (p.compiledGraph) {
        tip += tr("\nCompiled: the whole graph run with its compiled regions in place (regions "
                  "that fell back run eagerly): %1. Eager and compiled runs alternate, in the "
                  "same rounds.")
                   .arg(rangeOf(p.compiledGraph->total));
        if (p.compiledGraph->deviceMs) {
            tip += tr("\nGPU time: both graphs run again without per-node synchronisation, "
                      "between CUDA events.");
        }
    } else {
        tip += tr("\nThe comparison needs regions compiled: open or propose regions, then "
                  "Profile.");
    }
    m_summary->setToolTip(tip);
    m_summary->show();
}

int ProfilePanel::legendStops() const
{
    return static_cast<int>(findChildren<QLabel*>("legendStop").size());
}

void ProfilePanel::emitForSourceRow(int row)
{
    const QString name = m_model->index(row, ProfileModel::NameColumn).data().toString();
    if (m_model->index(row, 0).data(ProfileModel::IsRegionRole).toBool()) {
        Q_EMIT regionSelected(name);
    } else {
        Q_EMIT nodeSelected(name);
    }
}

void ProfilePanel::selectName(const QString& name)
{
    m_selecting = true;
    selectSourceRow(m_view, m_proxy, m_model->rowOf(name));
    m_selecting = false;
}

void ProfilePanel::showFailure(const QString& text, const QString& alternative)
{
    m_failed = !text.isEmpty();
    // Red on the palette's background, as the app's other refusals; the text wraps and can
    // be selected (copied into a bug report).
    m_status->setStyleSheet(m_failed ? QStringLiteral("color: #b00020;") : QString());
    m_status->setWordWrap(m_failed);
    const profile::RuntimeProfile& p = m_model->profile();
    if (m_failed && !alternative.isEmpty()) {
        m_status->setTextFormat(Qt::RichText);
        m_status->setText(text.toHtmlEscaped() + QStringLiteral(" — <a href=\"#alternative\">") +
                          alternative.toHtmlEscaped() + QStringLiteral("</a>"));
        return;
    }
    m_status->setTextFormat(Qt::PlainText);
    m_status->setText(m_failed            ? text
                      : p.repeat <= 0     ? QString() // no profile yet
                                          : tr("%1 runs, median %2 ms, copy %3 GB/s")
                                              .arg(p.repeat)
                                              .arg(ProfileModel::timeText(p.total))
                                              .arg(p.peaks.copyGBps, 0, 'f', 1));
}

void ProfilePanel::setBusy(bool busy)
{
    if (busy && m_failed) {
        showFailure({});
    }
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_run->setEnabled(!busy);
    if (busy) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(0);
    }
}

void ProfilePanel::setProgress(double fraction, const QString& phase)
{
    m_progress->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
    m_progress->setFormat(phase + " %p%");
}

void ProfilePanel::setModuleBreakdown(const profile::ModuleBreakdown& modules)
{
    m_nodeModules.clear();
    const auto& nodes = m_model->profile().nodes;
    for (std::size_t i = 0; i < std::min(nodes.size(), modules.nodePaths.size()); ++i) {
        if (!modules.nodePaths[i].empty()) {
            m_nodeModules.insert(QString::fromStdString(nodes[i].name),
                                 QString::fromStdString(modules.nodePaths[i]));
        }
    }
    rebuildTopChart();
    m_moduleModel->clear();
    m_moduleModel->setHorizontalHeaderLabels({tr("Module"), tr("Eager ms"), tr("Share"),
                                              tr("Compiled ms"), tr("Speed-up"),
                                              tr("Identical modules"), tr("Nodes")});
    if (modules.modules.empty()) {
        auto* note = new QStandardItem(tr("The graph's modules are not known for this profile"));
        note->setEnabled(false);
        m_moduleModel->appendRow(note);
        m_modules->setFirstColumnSpanned(0, {}, true);
        return;
    }
    // Preorder with depths: the parent of a row is the last row one level up.
    std::vector<QStandardItem*> open;
    for (std::size_t i = 0; i < modules.modules.size(); ++i) {
        const QList<QStandardItem*> row = moduleRow(modules, i);
        const auto depth = static_cast<std::size_t>(std::max(0, modules.modules[i].depth));
        open.resize(std::min(open.size(), depth));
        if (open.empty()) {
            m_moduleModel->appendRow(row);
        } else {
            open.back()->appendRow(row);
        }
        open.push_back(row.front());
    }
    if (modules.unassignedNodes > 0) {
        auto* rest = new QStandardItem(tr("(no module) · %1 nodes").arg(modules.unassignedNodes));
        rest->setEnabled(false);
        m_moduleModel->appendRow(rest);
        m_modules->setFirstColumnSpanned(m_moduleModel->rowCount() - 1, {}, true);
    }
    m_modules->expandToDepth(0);
    for (int c = 0; c < ModuleColumnCount; ++c) {
        m_modules->resizeColumnToContents(c);
    }
}

namespace {

// The last component, or the last two for a numbered one ("layers.3", not "3").
QString shownModuleName(const QString& path, int depth)
{
    QString shown = path.section(QLatin1Char('.'), -1);
    bool numbered = false;
    shown.toInt(&numbered);
    if (depth == 0) {
        return path;
    }
    return numbered ? path.section(QLatin1Char('.'), -2) : shown;
}

QString rangeText(const profile::TimeStat& t)
{
    return QObject::tr("median %1 ms (%2\u2013%3)")
        .arg(ProfileModel::msText(t.medianMs), ProfileModel::msText(t.minMs),
             ProfileModel::msText(t.maxMs));
}

// The Identical modules cell: a group's parent row ("model.layers") sums it up, or its first
// member when it has no such parent (the mlp of each layer, a bare graph's blocks); the other
// members name the slowest and fastest; every member's tooltip has the summary.
QStandardItem* identicalItem(const profile::ModuleBreakdown& modules, std::size_t index)
{
    const profile::ModuleProfile& m = modules.modules[index];
    auto* item = new QStandardItem;
    const profile::ModuleGroup* summed = nullptr;
    for (const auto& g : modules.groups) {
        summed = g.parent == m.path ? &g : summed;
    }
    const profile::ModuleGroup* own =
        m.group >= 0 ? &modules.groups[std::size_t(m.group)] : nullptr;
    const auto count = [](const profile::ModuleGroup& g) { return qsizetype(g.members.size()); };
    const auto summary = [&](const profile::ModuleGroup& g) {
        return QObject::tr("%1 \u00d7 %2").arg(count(g)).arg(rangeText(g.eager));
    };
    if (summed != nullptr) {
        item->setText(summary(*summed));
    } else if (own != nullptr && own->parent.empty() && own->members.front() == index) {
        item->setText(summary(*own));
    } else if (own != nullptr && own->slowest == index) {
        item->setText(QObject::tr("slowest of %1").arg(count(*own)));
    } else if (own != nullptr && own->fastest == index) {
        item->setText(QObject::tr("fastest of %1").arg(count(*own)));
    }
    if (const auto* g = summed != nullptr ? summed : own) {
        item->setToolTip(QObject::tr("%1: %2 identical modules, %3; fastest %4, slowest %5")
                             .arg(QString::fromStdString(g->label))
                             .arg(count(*g))
                             .arg(rangeText(g->eager),
                                  QString::fromStdString(modules.modules[g->fastest].path),
                                  QString::fromStdString(modules.modules[g->slowest].path)));
    }
    return item;
}

} // namespace

QList<QStandardItem*> ProfilePanel::moduleRow(const profile::ModuleBreakdown& modules,
                                              std::size_t index)
{
    const profile::ModuleProfile& m = modules.modules[index];
    const QString path = QString::fromStdString(m.path);
    auto* name = new QStandardItem(shownModuleName(path, m.depth));
    name->setData(path, Qt::UserRole);
    name->setToolTip(path);
    auto* ms = new QStandardItem(ProfileModel::msText(m.eagerMs));
    auto* share = new QStandardItem(QStringLiteral("%1%").arg(100.0 * m.share, 0, 'f', 1));
    auto* compiled = new QStandardItem;
    auto* speedup = new QStandardItem;
    if (m.compiledRegions > 0 && m.compiledMs > 0.0) {
        compiled->setText(ProfileModel::msText(m.compiledMs));
        speedup->setText(QString::number(m.compiledEagerMs / m.compiledMs, 'f', 2) + "\u00d7");
        const QString covers = tr("%1 compiled region(s), %2 of %3 nodes: %4 ms eager")
                                   .arg(m.compiledRegions)
                                   .arg(m.compiledNodes)
                                   .arg(m.nodes)
                                   .arg(ProfileModel::msText(m.compiledEagerMs));
        compiled->setToolTip(covers);
        speedup->setToolTip(covers);
    }
    auto* nodes = new QStandardItem(QString::number(m.nodes));
    for (auto* item : {ms, share, compiled, speedup, nodes}) {
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {name, ms, share, compiled, speedup, identicalItem(modules, index), nodes};
}

} // namespace fxs::views
