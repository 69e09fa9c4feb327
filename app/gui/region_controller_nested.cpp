// Regions › Plan Nested Regions…: the current graph's repeated blocks as the nested-region plan
// that tools/python/fxscope_nested.py applies (core/structure/nested_plan.h makes it; the CLI's
// `partition --nested` writes the same file). Small and quick: planned on the GUI thread from the
// module tree the structure controller already recovered in the background.
#include "app/gui/region_controller.h"

#include "app/gui/app_context.h"
#include "core/structure/nested_plan.h"
#include "core/util/file_reader.h"
#include "views/panels/region_commands.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>

namespace fxs::app {

namespace {

// "1 region, 24 instances" or why there is none (the first skipped group's reason).
QString planSummary(const structure::NestedPlan& plan)
{
    if (plan.regions.empty()) {
        const QString why = plan.skipped.empty()
                                ? QString()
                                : QString::fromStdString(plan.skipped.front().message);
        return QObject::tr("no regions (%1)").arg(why);
    }
    return QObject::tr("%n region(s), ", "", int(plan.regions.size())) +
           QObject::tr("%n instance(s)", "", int(plan.instanceCount()));
}

} // namespace

bool RegionController::writeNestedPlan(const QString& path)
{
    const auto tree = m_context->currentStructure();
    if (!m_current || !tree) {
        m_context->showStatus(tr("The module structure of this graph is not known yet"), 8000);
        return false;
    }
    const graph::Graph& g = *m_current->graph();
    const structure::NestedPlan plan = structure::planNestedRegions(g, *tree);
    // The plan is made from the graph on screen: no selector or digest of a source file.
    const std::string file = sourceOf(m_context->currentGraph()).first.toStdString();
    const Status written =
        writeFile(path.toStdString(), structure::nestedPlanJson(plan, g, {file, {}, {}}));
    if (!written.ok()) {
        m_context->showStatus(tr("Could not write %1: %2")
                                  .arg(path, QString::fromStdString(written.error().toString())),
                              8000);
        return false;
    }
    m_context->showStatus(tr("Nested-region plan %1: %2")
                              .arg(QFileInfo(path).fileName(), planSummary(plan)),
                          8000);
    return true;
}

void RegionController::writeNestedPlanAsked()
{
    const QString source = sourceOf(m_context->currentGraph()).first;
    const QString suggestion =
        source.isEmpty() ? QStringLiteral("nested.plan.json")
                         : QFileInfo(source).absolutePath() + QStringLiteral("/") +
                               QFileInfo(source).completeBaseName() +
                               QStringLiteral(".nested.plan.json");
    const QString path = QFileDialog::getSaveFileName(
        m_context->host(), tr("Plan Nested Regions"), suggestion,
        tr("Nested-region plans (*.plan.json *.json);;All files (*)"));
    if (!path.isEmpty()) {
        writeNestedPlan(path);
    }
}

} // namespace fxs::app
