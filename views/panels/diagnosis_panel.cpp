#include "views/panels/diagnosis_panel.h"

#include "views/panels/table_selection.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace fxs::views {
namespace {

using diagnose::Link;

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

const char* kindName(Link::Kind k)
{
    switch (k) {
    case Link::Kind::Graph: return "graph";
    case Link::Kind::Lookup: return "lookup";
    case Link::Kind::Guard: return "guard";
    case Link::Kind::Compile: return "compile";
    case Link::Kind::Source: return "source";
    case Link::Kind::None: break;
    }
    return "none";
}

QString seconds(double s) { return QStringLiteral("%1 s").arg(s, 0, 'f', 2); }

// "1 recompile", "2 recompiles".
QString counted(std::size_t n, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

QString shortFile(const std::string& file, int line)
{
    const auto slash = file.find_last_of('/');
    const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
    return QStringLiteral("%1:%2").arg(fromStd(name)).arg(line);
}

const diagnose::Recompile* recompileOf(const diagnose::Diagnosis& d, const Link& l)
{
    for (const auto& r : d.recompiles) {
        if (r.run == l.run && r.rank == l.rank && r.link.kind == l.kind &&
            r.link.index == l.index && r.link.line == l.line && r.link.compileId == l.compileId) {
            return &r;
        }
    }
    return nullptr;
}

const diagnose::GraphBreak* graphBreakOf(const diagnose::Diagnosis& d, const Link& l)
{
    for (const auto& b : d.graphBreaks) {
        if (l.kind == Link::Kind::Source && b.userFrame.file == l.file &&
            b.userFrame.line == l.line) {
            return &b;
        }
    }
    return nullptr;
}

} // namespace

DiagnosisPanel::DiagnosisPanel(const Workspace* workspace, QWidget* parent)
    : QWidget(parent),
      m_workspace(workspace),
      m_findings(new FindingsModel(this)),
      m_grid(new RankGridModel(this)),
      m_summary(new QLabel(this)),
      m_findingsView(makeRowTable(this)),
      m_details(new QTextBrowser(this)),
      m_gridTitle(new QLabel(this)),
      m_gridView(makeRowTable(this))
{
    m_findingsView->setModel(m_findings);
    m_gridView->setModel(m_grid);
    m_gridView->verticalHeader()->show(); // the compile ids
    m_gridView->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    m_details->setOpenLinks(false);

    auto* gridBox = new QWidget(this);
    auto* gl = new QVBoxLayout(gridBox);
    gl->setContentsMargins(0, 0, 0, 0);
    gl->addWidget(m_gridTitle);
    gl->addWidget(m_gridView, 1);
    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(m_details);
    right->addWidget(gridBox);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_findingsView);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    gridBox->hide();

    connect(m_findingsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showDetails(current.row()); });
    connect(m_findingsView, &QTableView::activated, this,
            [this](const QModelIndex& index) { activateFinding(index.row()); });
    connect(m_details, &QTextBrowser::anchorClicked, this,
            [this](const QUrl& url) { followLink(url.toString()); });
    connect(workspace, &Workspace::changed, this, &DiagnosisPanel::refresh);
    refresh();
}

void DiagnosisPanel::refresh()
{
    m_error.clear();
    if (m_workspace->runs().empty()) {
        m_pending = false;
        setDiagnosis(diagnose::Diagnosis{});
        return;
    }
    m_pending = true;
    m_summary->setText(tr("Diagnosing\u2026"));
    Q_EMIT diagnosisRequested(DiagnoseRequest{m_workspace->runs()});
}

void DiagnosisPanel::setDiagnosis(Result<diagnose::Diagnosis> diagnosis)
{
    m_pending = false;
    if (diagnosis.ok()) {
        m_error.clear();
        m_diagnosis = std::make_shared<const diagnose::Diagnosis>(std::move(diagnosis).value());
    } else {
        m_error = fromStd(diagnosis.error().toString());
        m_diagnosis.reset();
    }
    m_findings->setDiagnosis(m_diagnosis);
    const int multi = m_diagnosis ? RankGridModel::firstMultiRankRun(*m_diagnosis) : -1;
    m_grid->setDiagnosis(m_diagnosis, multi);
    m_gridView->parentWidget()->setVisible(multi >= 0);
    if (multi >= 0) {
        m_gridTitle->setText(tr("%1: ranks \u00d7 compile ids (tinted where the ranks diverge)")
                                 .arg(m_workspace->runName(multi)));
    }
    m_summary->setText(summaryText());
    // The run matters only when several were diagnosed; the text takes the remaining width.
    m_findingsView->setColumnHidden(FindingsModel::RunColumn,
                                    !m_diagnosis || m_diagnosis->runs.size() < 2);
    for (int c = 0; c < FindingsModel::TextColumn; ++c) {
        m_findingsView->resizeColumnToContents(c);
    }
    // What to do, after the finding, when any finding says it; the finding's text gets at most
    // 60 % of the width, the remedy the rest.
    const bool remedies = m_diagnosis && std::any_of(m_diagnosis->findings.begin(),
                                                     m_diagnosis->findings.end(),
                                                     [](const auto& f) { return f.remedy; });
    m_findingsView->setColumnHidden(FindingsModel::RemedyColumn, !remedies);
    if (remedies) {
        m_findingsView->resizeColumnToContents(FindingsModel::TextColumn);
        const int cap = m_findingsView->viewport()->width() * 3 / 5;
        if (cap > 0 && m_findingsView->columnWidth(FindingsModel::TextColumn) > cap) {
            m_findingsView->setColumnWidth(FindingsModel::TextColumn, cap);
        }
    }
    selectFinding(m_findings->rowCount() > 0 ? 0 : -1);
    Q_EMIT diagnosisReady();
}

QString DiagnosisPanel::summaryText() const
{
    if (!m_error.isEmpty()) {
        return tr("Diagnosis failed: %1").arg(m_error);
    }
    if (m_pending) {
        return tr("Diagnosing\u2026");
    }
    if (!m_diagnosis || m_diagnosis->runs.empty()) {
        return tr("Open a TORCH_TRACE run to see why its start-up was slow");
    }
    const auto& d = *m_diagnosis;
    double total = 0.0;
    for (const auto& f : d.frames) {
        total += f.totalS;
    }
    QStringList parts;
    parts << counted(d.findings.size(), tr("finding"), tr("findings"));
    parts << tr("%1 compiling in %2")
                 .arg(seconds(total), counted(d.frames.size(), tr("frame"), tr("frames")));
    parts << counted(d.recompiles.size(), tr("recompile"), tr("recompiles"));
    parts << counted(d.graphBreaks.size(), tr("graph break"), tr("graph breaks"));
    if (!d.divergence.empty()) {
        parts << tr("ranks diverge at %1").arg(fromStd(d.divergence.front().compileId.toString()));
    }
    return parts.join(QStringLiteral(" \u00b7 "));
}

QString DiagnosisPanel::detailText() const { return m_details->toPlainText(); }

void DiagnosisPanel::selectFinding(int row)
{
    if (row < 0 || row >= m_findings->rowCount()) {
        m_findingsView->selectionModel()->clearSelection();
        showDetails(-1);
        return;
    }
    m_findingsView->setCurrentIndex(m_findings->index(row, FindingsModel::TextColumn));
    showDetails(row);
}

void DiagnosisPanel::activateFinding(int row)
{
    if (const auto* f = m_findings->finding(row); f != nullptr && f->link.kind != Link::Kind::None) {
        Q_EMIT linkActivated(f->link);
    }
}

bool DiagnosisPanel::followLink(const QString& link)
{
    if (link.startsWith(QLatin1String("remedy:")) && m_remedy) {
        Q_EMIT remedyActivated(link.mid(7), m_remedy->link);
        return true;
    }
    const auto i = m_links.indexOf(link);
    if (i < 0) {
        return false;
    }
    Q_EMIT linkActivated(m_linkTargets[std::size_t(i)]);
    return true;
}

QString DiagnosisPanel::anchor(const Link& link, const QString& text)
{
    const QString key = QStringLiteral("%1:%2:%3:%4:%5")
                            .arg(QString::fromLatin1(kindName(link.kind)))
                            .arg(link.run)
                            .arg(link.index)
                            .arg(link.rank)
                            .arg(fromStd(link.compileId.toString()));
    if (!m_links.contains(key)) {
        m_links << key;
        m_linkTargets.push_back(link);
    }
    return QStringLiteral("<a href=\"%1\">%2</a>").arg(key, text.toHtmlEscaped());
}

// The graphs a graph break separates, or the compile a recompile replaced: links.
void DiagnosisPanel::addGraphLinks(const diagnose::Finding& f, QStringList& html)
{
    const auto& d = *m_diagnosis;
    if (const auto* b = graphBreakOf(d, f.link)) {
        QStringList graphs;
        for (std::size_t i = 0; i < b->compileIds.size(); ++i) {
            const QString id = fromStd(b->compileIds[i].toString());
            graphs << (i < b->graphs.size() && b->graphs[i].index >= 0 ? anchor(b->graphs[i], id)
                                                                       : id.toHtmlEscaped());
        }
        html << tr("Separates the graphs of %1").arg(graphs.join(QStringLiteral(" | ")));
        if (!b->explanation.empty()) {
            html << fromStd(b->explanation).toHtmlEscaped();
        }
        for (const auto& hint : b->hints) {
            html << tr("Hint: %1").arg(fromStd(hint).toHtmlEscaped());
        }
    }
    if (const auto* r = recompileOf(d, f.link)) {
        if (!r->guard.empty()) {
            Link entry = r->link;
            entry.kind = Link::Kind::Guard;
            html << tr("Failed guard of %1: <code>%2</code>")
                        .arg(anchor(entry, fromStd(r->failedEntry)),
                             fromStd(r->guard).toHtmlEscaped());
        }
        if (r->sourceLine > 0) {
            Link source{Link::Kind::Source, r->run, -1, r->rank, r->compileId, r->sourceFile,
                        r->sourceLine};
            html << tr("Source: %1 <code>%2</code>")
                        .arg(anchor(source, shortFile(r->sourceFile, r->sourceLine)),
                             fromStd(r->sourceCode).toHtmlEscaped());
        }
        if (!r->action.empty()) {
            html << tr("PyTorch: %1").arg(fromStd(r->action).toHtmlEscaped());
        }
        Link compile{Link::Kind::Compile, r->run, -1, r->rank, r->compileId, {}, 0};
        html << tr("Recompiled as %1").arg(anchor(compile, fromStd(r->compileId.toString())));
    }
}

QString DiagnosisPanel::remedyAnchor(const diagnose::Finding& f)
{
    if (!f.remedy || f.remedy->action != "plan_nested_regions") {
        return {};
    }
    m_remedy = f;
    return QStringLiteral(" <a href=\"remedy:plan_nested_regions\">%1</a>")
        .arg(tr("Plan Nested Regions…").toHtmlEscaped());
}

void DiagnosisPanel::showDetails(int row)
{
    m_links.clear();
    m_linkTargets.clear();
    m_remedy.reset();
    const diagnose::Finding* f = m_findings->finding(row);
    if (f == nullptr) {
        m_details->clear();
        return;
    }
    QStringList html;
    html << QStringLiteral("<b>%1</b>").arg(fromStd(f->text).toHtmlEscaped());
    if (f->remedy) {
        html << tr("What to do: %1").arg(fromStd(f->remedy->text).toHtmlEscaped()) +
                    remedyAnchor(*f);
    }
    if (f->costS > 0.0) {
        html << tr("Cost: %1").arg(seconds(f->costS));
    }
    addGraphLinks(*f, html);
    if (f->link.kind == Link::Kind::Lookup) {
        html << tr("Show the %1").arg(anchor(f->link, tr("cache lookup")));
    } else if (f->link.kind == Link::Kind::Compile) {
        html << tr("Show the graph of %1")
                    .arg(anchor(f->link, fromStd(f->link.compileId.toString())));
    } else if (f->link.kind == Link::Kind::Source && f->link.line > 0) {
        html << tr("Where: %1").arg(anchor(f->link, shortFile(f->link.file, f->link.line)));
    }
    m_details->setHtml(html.join(QStringLiteral("<br>")));
}

} // namespace fxs::views
