// Regions › Plan Nested Regions… in the app (offscreen MainWindow) on the GPT trace's Dynamo
// graph: the action is in the Regions menu; without a graph, or before the graph's module tree
// is known, the request is refused on the status line and writes nothing; once it is known the
// plan file holds one region of the 4 blocks s.blocks.0-3 (23 nodes each, counted by hand in
// tst_structure_fixtures) and the status line says 1 region, 4 instances; an unwritable path is
// refused.
#include "tests/test_file.h"
#include "tests/unit/app/main_window_waits.h"

#include "app/gui/main_window.h"
#include "app/gui/region_controller.h"
#include "app/gui/structure_controller.h"
#include "views/graph/graph_view.h"
#include "views/models/workspace.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using nlohmann::json;

namespace {

const QString kGptTrace = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold");

json readJson(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? json::parse(f.readAll().toStdString(), nullptr, false)
                                       : json();
}

} // namespace

class TestNestedPlanAction : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void refusedWithoutAGraph()
    {
        app::MainWindow w;
        QVERIFY(w.regions()->menu()->findChild<QAction*>(QStringLiteral("planNestedAction")));
        const QString path = m_dir.filePath("none.plan.json");
        QVERIFY(!w.regions()->writeNestedPlan(path));
        QVERIFY(!QFile::exists(path));
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("not known yet")),
                 qPrintable(w.statusBar()->currentMessage()));
    }

    void gptDynamoGraphPlan()
    {
        app::MainWindow w;
        QVERIFY(test::openAndWait(w, {kGptTrace}));
        const views::GraphRef dyn = test::graphOfKind(*w.workspace(), "dynamo_output_graph");
        QSignalSpy ready(w.structure(), &app::StructureController::structureReady);
        w.showGraph(dyn);
        const QString path = m_dir.filePath("gpt.plan.json");
        if (ready.isEmpty()) { // before the tree is known: refused, not guessed
            QVERIFY(!w.regions()->writeNestedPlan(path));
            QVERIFY(!QFile::exists(path));
            QVERIFY(ready.wait(30000));
        }
        QVERIFY(w.regions()->writeNestedPlan(path));
        QVERIFY2(w.statusBar()->currentMessage().contains(
                     QStringLiteral("1 region(s), 4 instance(s)")),
                 qPrintable(w.statusBar()->currentMessage()));
        const json plan = readJson(path);
        QVERIFY(plan.is_object());
        QCOMPARE(plan.at("format").get<std::string>(), std::string("fxscope-nested-plan"));
        QCOMPARE(plan.at("regions").size(), std::size_t(1));
        const json& r = plan.at("regions")[0];
        QCOMPARE(r.at("instances").get<std::vector<std::string>>(),
                 (std::vector<std::string>{"s.blocks.0", "s.blocks.1", "s.blocks.2",
                                           "s.blocks.3"}));
        QCOMPARE(r.at("nodes_each").get<int>(), 23);
        QVERIFY(plan.at("graph").at("path").get<std::string>().find("gpt_cold") !=
                std::string::npos);
        // An unwritable file: refused, said on the status line.
        QVERIFY(!w.regions()->writeNestedPlan(QStringLiteral("/nonexistent/dir/p.plan.json")));
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("Could not write")));
    }
};

QTEST_MAIN(TestNestedPlanAction)
#include "tst_nested_plan_action.moc"

FXSCOPE_TEST_END
