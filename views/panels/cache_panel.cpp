#include "views/panels/cache_panel.h"

#include "core/explain/explainer.h"
#include "views/models/cache_state_style.h"
#include "views/panels/table_selection.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace fxs::views {
namespace {

constexpr int kModeRole = Qt::UserRole + 1;
constexpr int kIndexRole = Qt::UserRole + 2;

// The free-text column takes the remaining width. A model reset rebuilds the header's
// sections with the default mode, so the mode is set again after each reset.
void stretchColumn(QTableView* view, int column)
{
    auto apply = [view, column] {
        if (column < view->horizontalHeader()->count()) {
            view->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Stretch);
        }
    };
    QObject::connect(view->model(), &QAbstractItemModel::modelReset, view, apply);
    apply();
}

// Sizes every column but the stretched one to its contents (resizing the stretched column by
// hand would pin it to its contents' width).
void fitColumns(QTableView* view, int stretched)
{
    for (int c = 0; c < view->model()->columnCount(); ++c) {
        if (c != stretched) {
            view->resizeColumnToContents(c);
        }
    }
}

} // namespace

CachePanel::CachePanel(const Workspace* workspace, QWidget* parent)
    : QWidget(parent),
      m_workspace(workspace),
      m_lookups(new CacheLookupModel(workspace, this)),
      m_diff(new ComponentDiffModel(this)),
      m_runCombo(new QComboBox(this)),
      m_compareCombo(new QComboBox(this)),
      m_lookupView(makeRowTable(this)),
      m_headline(new QLabel(this)),
      m_diffView(makeRowTable(this)),
      m_graphSummary(new QLabel(this)),
      m_openGraphs(new QPushButton(tr("Show Both Graphs"), this))
{
    auto* form = new QHBoxLayout;
    auto* runLabel = new QLabel(tr("&Run:"), this);
    runLabel->setBuddy(m_runCombo);
    auto* compareLabel = new QLabel(tr("Compare &with:"), this);
    compareLabel->setBuddy(m_compareCombo);
    form->addWidget(runLabel);
    form->addWidget(m_runCombo, 1);
    form->addSpacing(12);
    form->addWidget(compareLabel);
    form->addWidget(m_compareCombo, 2);
    m_runCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_compareCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);

    m_lookupView->setModel(m_lookups);
    m_diffView->setModel(m_diff);
    stretchColumn(m_lookupView, CacheLookupModel::WhyColumn);
    stretchColumn(m_diffView, ComponentDiffModel::BColumn);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_headline->font();
    bold.setBold(true);
    m_headline->setFont(bold);
    m_openGraphs->setToolTip(tr("Open the graphs of both lookups side by side, changed nodes "
                                "highlighted"));

    auto* details = new QWidget(this);
    auto* dl = new QVBoxLayout(details);
    dl->setContentsMargins(0, 0, 0, 0);
    dl->addWidget(m_headline);
    dl->addWidget(m_diffView, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_graphSummary, 1);
    buttons->addWidget(m_openGraphs);
    dl->addLayout(buttons);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_lookupView);
    split->addWidget(details);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 0, 0);
    layout->addLayout(form);
    layout->addWidget(split, 1);

    connect(m_runCombo, &QComboBox::activated, this,
            [this](int i) { setRun(m_runCombo->itemData(i).toInt()); });
    connect(m_compareCombo, &QComboBox::activated, this, &CachePanel::onCompareChoice);
    connect(m_lookupView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &CachePanel::onCurrentLookupChanged);
    connect(m_openGraphs, &QPushButton::clicked, this, [this] {
        if (auto c = graphComparison()) {
            Q_EMIT graphComparisonRequested(*c);
        }
    });
    connect(workspace, &Workspace::changed, this, [this] {
        const int keep = m_lookups->run();
        rebuildRunCombo();
        m_lookups->setRun(-1);
        setRun(keep >= 0 ? keep : (m_workspace->runs().empty() ? -1 : 0));
    });
    rebuildRunCombo();
    showExplanation(nullptr);
}

CachePanel::~CachePanel() = default;

void CachePanel::rebuildRunCombo()
{
    const QSignalBlocker block(m_runCombo);
    m_runCombo->clear();
    for (int r = 0; r < static_cast<int>(m_workspace->runs().size()); ++r) {
        m_runCombo->addItem(m_workspace->runName(r), r);
    }
    m_runCombo->setEnabled(m_runCombo->count() > 0);
}

void CachePanel::rebuildCompareCombo()
{
    const QSignalBlocker block(m_compareCombo);
    m_compareCombo->clear();
    const int me = run();
    if (me < 0) {
        return;
    }
    m_compareCombo->addItem(tr("Earlier lookups of this run"));
    m_compareCombo->setItemData(0, int(Mode::Within), kModeRole);
    for (int r = 0; r < static_cast<int>(m_workspace->runs().size()); ++r) {
        if (r != me) {
            m_compareCombo->addItem(tr("Run %1").arg(m_workspace->runName(r)));
            m_compareCombo->setItemData(m_compareCombo->count() - 1, int(Mode::Run), kModeRole);
            m_compareCombo->setItemData(m_compareCombo->count() - 1, r, kIndexRole);
        }
    }
    const auto& lookups = m_workspace->runs()[static_cast<std::size_t>(me)]->lookups;
    for (int i = 0; i < static_cast<int>(lookups.size()); ++i) {
        const auto& l = lookups[static_cast<std::size_t>(i)];
        m_compareCombo->addItem(cacheStateIcon(l.state),
                                tr("Lookup #%1: %2 %3 %4")
                                    .arg(i + 1)
                                    .arg(QString::fromUtf8(model::cacheKindName(l.cache).data()),
                                         cacheStateText(l.state),
                                         QString::fromStdString(l.compileId.toString())));
        m_compareCombo->setItemData(m_compareCombo->count() - 1, int(Mode::Lookup), kModeRole);
        m_compareCombo->setItemData(m_compareCombo->count() - 1, i, kIndexRole);
    }
    for (int i = 0; i < m_compareCombo->count(); ++i) {
        const auto mode = Mode(m_compareCombo->itemData(i, kModeRole).toInt());
        const int other = m_compareCombo->itemData(i, kIndexRole).toInt();
        if (mode == m_mode && (mode == Mode::Within || other == m_other)) {
            m_compareCombo->setCurrentIndex(i);
        }
    }
}

void CachePanel::setRun(int run)
{
    const int runs = static_cast<int>(m_workspace->runs().size());
    if (run < 0 || run >= runs) {
        run = -1;
    }
    if (run == this->run() && run >= 0) {
        return;
    }
    m_lookups->setRun(run);
    m_lookupView->setColumnHidden(CacheLookupModel::RankColumn, !m_lookups->hasRanks());
    m_runCombo->setCurrentIndex(m_runCombo->findData(run));
    // Default partner: the run loaded just before (a cold run before its warm rerun).
    m_mode = run > 0 ? Mode::Run : Mode::Within;
    m_other = run > 0 ? run - 1 : -1;
    recompute();
}

void CachePanel::compareWithRun(int otherRun)
{
    const bool valid = otherRun >= 0 && otherRun < int(m_workspace->runs().size()) && otherRun != run();
    m_mode = valid ? Mode::Run : Mode::Within;
    m_other = valid ? otherRun : -1;
    recompute();
}

void CachePanel::compareWithLookup(int index)
{
    m_mode = Mode::Lookup;
    m_other = index;
    recompute();
}

void CachePanel::onCompareChoice(int comboIndex)
{
    const auto mode = Mode(m_compareCombo->itemData(comboIndex, kModeRole).toInt());
    const int other = m_compareCombo->itemData(comboIndex, kIndexRole).toInt();
    if (mode == Mode::Run) {
        compareWithRun(other);
    } else if (mode == Mode::Lookup) {
        compareWithLookup(other);
    } else {
        compareWithRun(-1);
    }
}

QString CachePanel::sideName(bool a) const
{
    if (!a || m_mode == Mode::Within) {
        return a ? tr("Earlier lookup") : m_workspace->runName(run());
    }
    if (m_mode == Mode::Run) {
        return m_workspace->runName(m_other);
    }
    return tr("Lookup #%1").arg(m_other + 1);
}

void CachePanel::recompute()
{
    rebuildCompareCombo();
    m_explanation.reset();
    m_error.clear();
    ExplainRequest request;
    const int me = run();
    if (me >= 0 && m_mode != Mode::Lookup) {
        request.b = m_workspace->runs()[std::size_t(me)];
        request.a = m_mode == Mode::Run ? m_workspace->runs()[std::size_t(m_other)] : nullptr;
    }
    m_pending = true;
    Q_EMIT explanationRequested(request); // small runs are answered before this returns
    if (m_pending) {
        // Meanwhile: the lookups without headlines, and "Explaining…" for the details.
        m_lookups->setHeadlines({});
        showExplanation(nullptr);
    }
}

void CachePanel::setExplanation(Result<explain::Explanation> ex)
{
    m_pending = false;
    QStringList headlines;
    if (ex.ok()) {
        if (!ex.value().lookups.empty()) {
            m_explanation = std::make_unique<explain::Explanation>(std::move(ex).value());
            for (const auto& e : m_explanation->lookups) {
                headlines << QString::fromStdString(e.headline);
            }
        }
    } else {
        m_error = QString::fromStdString(ex.error().toString());
    }
    m_diff->setSideNames(sideName(true), sideName(false));
    m_lookups->setHeadlines(headlines);
    fitColumns(m_lookupView, CacheLookupModel::WhyColumn);
    selectMostTelling();
    // A recompute is not the user picking a lookup: update the details, emit nothing.
    const bool wasQuiet = m_quiet;
    m_quiet = true;
    onCurrentLookupChanged();
    m_quiet = wasQuiet;
    Q_EMIT explanationReady();
}

void CachePanel::setLookupExplanation(const explain::LookupExplanation& explanation)
{
    showExplanation(&explanation);
}

// After a recompute: keep the selected row, else pick the first lookup whose explanation has a
// component diff (what the user came for), else the first row.
void CachePanel::selectMostTelling()
{
    const int rows = m_lookups->rowCount();
    if (rows == 0) {
        return;
    }
    int pick = m_lookupView->currentIndex().isValid() ? m_lookupView->currentIndex().row() : -1;
    if (pick < 0 && m_explanation) {
        for (int i = 0; i < rows && i < int(m_explanation->lookups.size()); ++i) {
            if (!m_explanation->lookups[std::size_t(i)].diff.empty()) {
                pick = i;
                break;
            }
        }
    }
    const QSignalBlocker block(m_lookupView->selectionModel());
    m_lookupView->selectionModel()->setCurrentIndex(
        m_lookups->index(std::max(pick, 0), 0),
        QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void CachePanel::onCurrentLookupChanged()
{
    const LookupRef ref = currentLookup();
    const model::CacheLookup* lookup = m_workspace->lookup(ref);
    if (!lookup) {
        showExplanation(nullptr);
        return;
    }
    if (m_mode == Mode::Lookup) {
        showExplanation(nullptr);
        Q_EMIT lookupExplanationRequested(LookupExplainRequest{
            lookup, m_workspace->lookup(LookupRef{ref.run, m_other}), sideName(true).toStdString()});
    } else if (m_explanation && std::size_t(ref.index) < m_explanation->lookups.size()) {
        showExplanation(&m_explanation->lookups[std::size_t(ref.index)]);
    } else {
        showExplanation(nullptr);
    }
    if (!m_quiet) {
        Q_EMIT lookupSelected(ref);
    }
}

void CachePanel::showExplanation(const explain::LookupExplanation* ex)
{
    if (!ex) {
        m_shown.reset();
    } else if (ex != m_shown.get()) {
        m_shown = std::make_unique<explain::LookupExplanation>(*ex);
    }
    if (!ex) {
        m_headline->setText(m_pending            ? tr("Explaining…")
                            : !m_error.isEmpty() ? tr("Could not explain: %1").arg(m_error)
                            : run() < 0      ? tr("Open a TORCH_TRACE run to see its cache lookups.")
                                             : tr("Select a lookup to see why it hit or missed."));
        m_diff->setRows({});
        m_graphSummary->clear();
        m_openGraphs->setEnabled(false);
        return;
    }
    m_headline->setText(QString::fromStdString(ex->headline));
    m_diff->setChanges(ex->diff.changes);
    fitColumns(m_diffView, ComponentDiffModel::BColumn);
    const bool graphs = ex->graphDiff && ex->graphDiff->graphA && ex->graphDiff->graphB;
    m_graphSummary->setText(ex->graphDiff ? tr("Graph code: %1")
                                                .arg(QString::fromStdString(ex->graphDiff->summary()))
                                          : QString());
    m_openGraphs->setEnabled(graphs);
}

std::optional<GraphComparison> CachePanel::graphComparison() const
{
    if (!m_shown || !m_shown->graphDiff || !m_shown->graphDiff->graphA || !m_shown->graphDiff->graphB) {
        return std::nullopt;
    }
    const explain::GraphDiff& d = *m_shown->graphDiff;
    GraphComparison c{d.graphA, d.graphB, {}, {}, sideName(true), sideName(false),
                      QString::fromStdString(d.summary())};
    for (const auto& n : d.nodes) {
        if (n.idA != graph::kNoNode) {
            c.changedA.push_back(n.idA);
        }
        if (n.idB != graph::kNoNode) {
            c.changedB.push_back(n.idB);
        }
    }
    return c;
}

void CachePanel::selectLookup(LookupRef ref)
{
    if (ref.run != run()) {
        return;
    }
    const QModelIndex index = m_lookups->indexOf(ref);
    if (!index.isValid()) {
        return;
    }
    m_quiet = true;
    m_lookupView->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_lookupView->scrollTo(index);
    m_quiet = false;
}

LookupRef CachePanel::currentLookup() const
{
    const QModelIndex index = m_lookupView->currentIndex();
    return index.isValid() ? LookupRef{run(), index.row()} : LookupRef{};
}

QString CachePanel::headlineText() const
{
    return m_headline->text();
}

} // namespace fxs::views
