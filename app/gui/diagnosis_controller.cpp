#include "app/gui/diagnosis_controller.h"

#include "app/gui/app_context.h"
#include "app/gui/shown_graph.h"
#include "core/layout/graph_layout.h"
#include "core/layout/layout_cache.h"
#include "core/layout/svg_writer.h"
#include "core/report/report.h"
#include "core/util/file_writer.h"
#include "views/panels/diagnosis_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>

#include <algorithm>
#include <memory>

namespace fxs::app {
namespace {

using diagnose::Link;

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

QString shortFile(const std::string& file, int line)
{
    const auto slash = file.find_last_of('/');
    return QStringLiteral("%1:%2")
        .arg(fromStd(slash == std::string::npos ? file : file.substr(slash + 1)))
        .arg(line);
}

// "record.py:80 `print("step")` (Failed to trace builtin operator)".
QString describe(const diagnose::GraphBreak& b)
{
    QString text = shortFile(b.userFrame.file, b.userFrame.line);
    if (!b.userFrame.code.empty()) {
        text += QStringLiteral(" `%1`").arg(fromStd(b.userFrame.code));
    }
    return text + QStringLiteral(" (%1)").arg(fromStd(b.reason));
}

QStringList idList(const std::vector<model::CompileId>& ids)
{
    QStringList out;
    for (const auto& id : ids) {
        out << fromStd(id.toString());
    }
    return out;
}

} // namespace

DiagnosisController::DiagnosisController(AppContext* context)
    : QObject(context),
      m_context(context),
      m_panel(new views::DiagnosisPanel(context->workspace(), context->host()))
{
    m_dock = context->addBottomDock(m_panel, tr("Diagnosis"), QStringLiteral("diagnosisDock"));
    connect(m_panel, &views::DiagnosisPanel::diagnosisRequested, this,
            &DiagnosisController::diagnose);
    connect(m_panel, &views::DiagnosisPanel::linkActivated, this, &DiagnosisController::follow);
    connect(m_panel, &views::DiagnosisPanel::remedyActivated, this,
            &DiagnosisController::runRemedy);
    connect(m_panel, &views::DiagnosisPanel::diagnosisReady, this,
            &DiagnosisController::updateBanner);
    context->decorations()->claim(views::DecorationLayer::Banner, this);
    connect(context->shownGraph(), &ShownGraph::refChanged, this,
            &DiagnosisController::updateBanner);
    // Opening runs shows the overview first.
    connect(context, &AppContext::loadFinished, this, [this](bool cancelled) {
        if (!cancelled && !m_context->workspace()->runs().empty()) {
            m_dock->show();
            m_dock->raise();
        }
    });
    m_panel->refresh(); // runs loaded before the controller existed
}

void DiagnosisController::diagnose(const views::DiagnoseRequest& request)
{
    if (request.runs.empty()) {
        m_jobs.abandon();
        return;
    }
    m_jobs.start(
        [runs = request.runs](const CancelToken& cancel, const ProgressSink& progress) {
            std::vector<const model::Run*> ptrs;
            for (const auto& r : runs) {
                ptrs.push_back(r.get());
            }
            return diagnose::diagnose(ptrs, cancel, progress);
        },
        [this](Result<diagnose::Diagnosis> result) { m_panel->setDiagnosis(std::move(result)); });
}

bool DiagnosisController::exportReport(const QString& path, bool redact)
{
    views::DiagnosisPtr diagnosis = m_panel->diagnosis();
    if (!diagnosis || diagnosis->runs.empty()) {
        return false;
    }
    const ShownGraph* shown = m_context->shownGraph();
    graph::GraphPtr g = shown->state() == ShownGraph::State::Shown ? shown->graph() : nullptr;
    std::shared_ptr<const structure::ModuleTree> tree = g ? shown->structure() : nullptr;
    const std::string target = path.toStdString();
    m_reportJobs.start(
        [diagnosis, g, tree, target, redact](const CancelToken& cancel,
                                             const ProgressSink& progress) -> Status {
            report::ReportInput in{diagnosis.get(), {}, {}, FXSCOPE_VERSION};
            if (g) {
                reportProgress(progress, 0.1, "laying out the graph");
                layout::ViewGraph view(g, tree, layout::GroupingOptions{});
                layout::LayoutOptions options;
                options.cache = std::make_shared<layout::LayoutCache>();
                if (auto laid = layout::layoutViewGraph(view, options)) {
                    in.graphSvg = layout::layoutToSvg(*laid, view);
                    in.graphCaption = "The graph shown, " +
                                      std::string(tree ? "by modules" : "by source") + " (" +
                                      std::to_string(g->size()) + " nodes)";
                }
            }
            if (cancel.isCancelled()) {
                return makeError(ErrorCode::Cancelled, "cancelled");
            }
            return writeFile(target, report::renderReport(in, {redact}));
        },
        [this, path](Status written) {
            Q_EMIT reportWritten(path, written.ok() ? QString()
                                                    : fromStd(written.error().toString()));
        });
    return true;
}

views::GraphRef DiagnosisController::compileGraph(int run, int rank,
                                                  const model::CompileId& id) const
{
    const auto& runs = m_context->workspace()->runs();
    if (run < 0 || run >= int(runs.size()) || !id.valid()) {
        return {};
    }
    const auto& graphs = runs[std::size_t(run)]->graphs;
    views::GraphRef any;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        const auto& g = graphs[i];
        if (g.rank != rank || g.compileId.withoutAttempt() != id.withoutAttempt()) {
            continue;
        }
        if (g.kind == "dynamo_output_graph") {
            return {run, int(i)};
        }
        if (!any.valid()) {
            any = {run, int(i)};
        }
    }
    return any;
}

void DiagnosisController::follow(const Link& link)
{
    views::GraphRef ref;
    switch (link.kind) {
    case Link::Kind::Graph: ref = {link.run, link.index}; break;
    case Link::Kind::Lookup:
        ref = m_context->workspace()->graphForLookup({link.run, link.index});
        if (!ref.valid()) {
            ref = compileGraph(link.run, link.rank, link.compileId);
        }
        break;
    case Link::Kind::Guard:
    case Link::Kind::Compile: ref = compileGraph(link.run, link.rank, link.compileId); break;
    case Link::Kind::Source:
        m_context->showStatus(QStringLiteral("%1:%2").arg(fromStd(link.file)).arg(link.line),
                              10000);
        ref = compileGraph(link.run, link.rank, link.compileId);
        break;
    case Link::Kind::None: break;
    }
    if (m_context->workspace()->artifact(ref) != nullptr) {
        m_context->requestGraph(ref);
    }
    if (link.kind == Link::Kind::Lookup &&
        m_context->workspace()->lookup({link.run, link.index}) != nullptr) {
        m_context->requestLookup({link.run, link.index}); // after the graph: it picks one too
    }
}

void DiagnosisController::runRemedy(const QString& action, const Link& link)
{
    if (action != QLatin1String("plan_nested_regions")) {
        return;
    }
    auto* plan = m_context->host()->findChild<QAction*>(QStringLiteral("planNestedAction"));
    const views::GraphRef ref = compileGraph(link.run, link.rank, link.compileId);
    if (plan == nullptr || m_context->workspace()->artifact(ref) == nullptr) {
        return;
    }
    if (m_context->currentGraph() == ref && m_context->currentStructure()) {
        plan->trigger();
        return;
    }
    // The action plans from the shown graph's module tree: wait for it (once).
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = connect(m_context, &AppContext::structureKnown, this,
                    [this, once, ref, plan](views::GraphRef known) {
                        if (known == ref) {
                            disconnect(*once);
                            plan->trigger();
                        }
                    });
    m_context->requestGraph(ref);
    m_context->showStatus(tr("Recovering the module structure to plan nested regions…"), 8000);
}

QString DiagnosisController::breakBanner(views::GraphRef ref) const
{
    const auto d = m_panel->diagnosis();
    const auto* a = m_context->workspace()->artifact(ref);
    if (!d || a == nullptr || ref.run < 0 || m_panel->isDiagnosing()) {
        return {};
    }
    const model::CompileId id = a->compileId.withoutAttempt();
    QStringList lines;
    for (const auto& b : d->graphBreaks) {
        const bool rankMatches =
            b.ranks.empty() || std::find(b.ranks.begin(), b.ranks.end(), a->rank) != b.ranks.end();
        const bool runMatches = b.graphs.empty() || std::any_of(b.graphs.begin(), b.graphs.end(),
                                                                [&](const Link& l) {
                                                                    return l.run == ref.run;
                                                                });
        if (!rankMatches || !runMatches || b.compileIds.empty()) {
            continue;
        }
        const auto at = std::find_if(b.compileIds.begin(), b.compileIds.end(),
                                     [&](const auto& c) { return c.withoutAttempt() == id; });
        if (at == b.compileIds.end()) {
            continue;
        }
        if (at == b.compileIds.begin()) {
            const std::vector<model::CompileId> after(b.compileIds.begin() + 1, b.compileIds.end());
            lines << tr("Graph break after this graph: %1; the code after it compiles as %2")
                         .arg(describe(b), idList(after).join(QStringLiteral(", ")));
        } else {
            lines << tr("This graph follows a graph break: %1 ended %2")
                         .arg(describe(b), fromStd(b.compileIds.front().toString()));
        }
    }
    return lines.join(QLatin1Char('\n'));
}

void DiagnosisController::updateBanner()
{
    m_context->decorations()->setBanner(views::DecorationLayer::Banner,
                                        breakBanner(m_context->currentGraph()));
}

} // namespace fxs::app
