// The Diagnosis dock in the app: the panel asks, the DiagnosisController answers on a
// JobTracker through an AppContext around a plain QMainWindow. On the recorded PyTorch 2.11
// runs (values read by hand from the logs): graph_break.log.gz breaks at record.py:80
// (`print("step")`, logged in 0/0, resumed in 1/0) and record.py:81 (`if y.sum() > 0:`, logged
// in 1/0, resumed in 2/0 and 3/0); each compile logs one dynamo_output_graph. ranks/ is one
// run of two ranks whose inputs differ at 0/0. MainWindow docks the panel and shows it first.
#include "app/gui/app_context.h"
#include "app/gui/diagnosis_controller.h"
#include "app/gui/main_window.h"
#include "core/io/loader.h"
#include "tests/test_file.h"
#include "views/graph/graph_view.h"
#include "views/panels/cache_panel.h"
#include "views/panels/diagnosis_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::app::AppContext;
using fxs::app::DiagnosisController;

namespace {

const std::string kRecorded = FXSCOPE_TEST_DATA "/recorded/traces/";

// The dynamo_output_graph of a compile id in a workspace run.
views::GraphRef dynamoGraph(const views::Workspace& ws, int run, const char* id)
{
    const auto& graphs = ws.runs()[std::size_t(run)]->graphs;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        if (graphs[i].kind == "dynamo_output_graph" &&
            graphs[i].compileId.withoutAttempt().toString() == id) { // 0/0_1: after a restart
            return {run, int(i)};
        }
    }
    return {};
}

int findingStartingWith(const views::DiagnosisPanel& panel, const QString& prefix)
{
    const auto* model = panel.findingsModel();
    for (int r = 0; r < model->rowCount(); ++r) {
        if (QString::fromStdString(model->finding(r)->text).startsWith(prefix)) {
            return r;
        }
    }
    return -1;
}

// Makes the finding that starts with prefix the current one; its row (-1 when none).
int selectFinding(views::DiagnosisPanel& panel, const QString& prefix)
{
    const int row = findingStartingWith(panel, prefix);
    panel.selectFinding(row);
    return row;
}

// The controller on a context around a plain QMainWindow (no MainWindow).
struct App {
    QMainWindow host;
    views::Workspace ws;
    views::GraphView view;
    AppContext context{&host, &ws, &view};
    DiagnosisController c{&context};
    auto parts() { return std::tie(ws, view, context, c); }
};

} // namespace

class TestDiagnosisController : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    static bool load(views::Workspace& ws, DiagnosisController& c, const std::string& path)
    {
        QSignalSpy ready(c.panel(), &views::DiagnosisPanel::diagnosisReady);
        ws.add(io::loadPaths({path}));
        if (!c.panel()->isDiagnosing() || !c.isDiagnosing()) {
            return false; // the panel asked and the controller runs it in the background
        }
        return ready.wait(60000) && !c.panel()->isDiagnosing();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_diagnosis_controller"));
        qputenv("FXSCOPE_CACHE_DIR", (m_dir.path() + "/cache").toUtf8());
    }

    // File › Export Report's work: the diagnosis shown written as one HTML page in the
    // background (core/report), redacted when asked; nothing to write before a diagnosis.
    void exportsTheDiagnosisAsAReport()
    {
        App app;
        auto [ws, view, context, c] = app.parts();
        const QString plain = m_dir.filePath("report.html");
        QVERIFY(!c.exportReport(plain, false));
        QVERIFY(load(ws, c, kRecorded + "recompile.log.gz"));
        // The finding's details say what to do.
        QVERIFY(selectFinding(*c.panel(), "Recompile 0/1") >= 0);
        QVERIFY2(c.panel()->detailText().contains(
                     "What to do: Mark the dimension dynamic before the first call: "
                     "torch._dynamo.mark_dynamic(x, 0)"),
                 qPrintable(c.panel()->detailText()));
        QSignalSpy written(&c, &DiagnosisController::reportWritten);
        QVERIFY(c.exportReport(plain, false));
        QVERIFY(written.wait(60000));
        QCOMPARE(written.first().at(0).toString(), plain);
        QCOMPARE(written.first().at(1).toString(), QString());
        QFile file(plain);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray html = file.readAll();
        QVERIFY(html.startsWith("<!DOCTYPE html>"));
        QVERIFY(html.contains("torch._dynamo.mark_dynamic(x, 0)"));
        QVERIFY(html.contains("record.py:71"));
        const QString redacted = m_dir.filePath("redacted.html");
        QVERIFY(c.exportReport(redacted, true));
        QVERIFY(written.wait(60000));
        QFile other(redacted);
        QVERIFY(other.open(QIODevice::ReadOnly));
        const QByteArray page = other.readAll();
        QVERIFY(page.contains("torch._dynamo.mark_dynamic(x, [value])"));
        QVERIFY(!page.contains("record.py"));
    }

    void graphBreaksLinkAndMarkTheGraphsTheySeparate()
    {
        App app;
        auto [ws, view, context, c] = app.parts(); // references
        QVERIFY(context.dock(QStringLiteral("diagnosisDock")) == c.dock());
        QCOMPARE(c.panel()->summaryText(),
                 QStringLiteral("Open a TORCH_TRACE run to see why its start-up was slow"));
        QVERIFY(load(ws, c, kRecorded + "graph_break.log.gz"));
        QVERIFY2(c.panel()->summaryText().contains(" compiling in 4 frames \u00b7 0 recompiles "
                                                    "\u00b7 2 graph breaks"),
                 qPrintable(c.panel()->summaryText()));

        QVERIFY(selectFinding(*c.panel(), "Graph break: Failed to trace builtin") >= 0);
        const QString details = c.panel()->detailText();
        QVERIFY2(details.contains("Separates the graphs of 0/0 | 1/0"), qPrintable(details));
        QVERIFY(details.contains("Where: record.py:80"));

        const views::GraphRef g00 = dynamoGraph(ws, 0, "0/0");
        const views::GraphRef g10 = dynamoGraph(ws, 0, "1/0");
        const views::GraphRef g20 = dynamoGraph(ws, 0, "2/0");
        QVERIFY(g00.valid() && g10.valid() && g20.valid());
        QSignalSpy requested(&context, &AppContext::graphRequested);
        const QString link = QStringLiteral("graph:0:%1:-1:1/0").arg(g10.index);
        QVERIFY2(c.panel()->detailLinks().contains(link),
                 qPrintable(c.panel()->detailLinks().join(' ')));
        QVERIFY(c.panel()->followLink(link));
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.first().at(0).value<views::GraphRef>(), g10);

        // The break is visible on both graphs it separates (and 1/0 ends at the next one).
        context.setCurrentGraph(g00);
        QCOMPARE(view.banner(),
                 QStringLiteral("Graph break after this graph: record.py:80 `print(\"step\")` "
                                "(Failed to trace builtin operator); the code after it "
                                "compiles as 1/0"));
        context.setCurrentGraph(g10);
        QCOMPARE(view.banner(),
                 QStringLiteral("This graph follows a graph break: record.py:80 "
                                "`print(\"step\")` (Failed to trace builtin operator) ended 0/0\n"
                                "Graph break after this graph: record.py:81 `if y.sum() > 0:` "
                                "(Data-dependent branching); the code after it compiles as "
                                "2/0, 3/0"));
        context.setCurrentGraph(g20);
        QVERIFY(view.banner().startsWith("This graph follows a graph break: record.py:81"));
        context.setCurrentGraph({});
        QVERIFY(view.banner().isEmpty());
    }

    void findingsFollowTheirLinks()
    {
        App app;
        auto [ws, view, context, c] = app.parts(); // references
        QVERIFY(load(ws, c, kRecorded + "recompile.log.gz"));
        QSignalSpy requested(&context, &AppContext::graphRequested);
        // The dtype recompile: its failed guard is 0/1's, its source line record.py:71.
        const int row = selectFinding(*c.panel(), "Recompile 0/2");
        QVERIFY(row >= 0);
        const QString details = c.panel()->detailText();
        QVERIFY2(details.contains("Failed guard of 0/1: TENSOR_MATCH"), qPrintable(details));
        QVERIFY(details.contains("Source: record.py:71 return torch.nn.functional.gelu(x @ w)"));
        QVERIFY(details.contains("PyTorch: new graph for dtype Half"));
        c.panel()->activateFinding(row); // the guard: shows the graph whose guard failed
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.last().at(0).value<views::GraphRef>(), dynamoGraph(ws, 0, "0/1"));
        QVERIFY(c.panel()->followLink(QStringLiteral("compile:0:-1:-1:0/2")));
        QCOMPARE(requested.last().at(0).value<views::GraphRef>(), dynamoGraph(ws, 0, "0/2"));
        QSignalSpy status(&context, &AppContext::statusShown);
        QVERIFY(c.panel()->followLink(QStringLiteral("source:0:-1:-1:0/2")));
        QCOMPARE(status.count(), 1);
        QCOMPARE(status.first().at(0).toString(), QStringLiteral("/home/user/demo/record.py:71"));
        QVERIFY(!c.panel()->followLink(QStringLiteral("graph:9:9:-1:0/0")));
    }

    // The 64-layer LLaMA's slow cold start offers Plan Nested Regions: the link shows the
    // compile's Dynamo graph and, once its module structure is known, runs the Regions menu's
    // action (here a stand-in with its object name: the real one opens a file dialog).
    void nestedRegionsRemedyRunsThePlanAction()
    {
        App app;
        auto [ws, view, context, c] = app.parts(); // references
        auto* plan = new QAction(&app.host);
        plan->setObjectName(QStringLiteral("planNestedAction"));
        QSignalSpy planned(plan, &QAction::triggered);
        QVERIFY(load(ws, c, kRecorded + "llama64.log.gz"));
        QVERIFY(selectFinding(*c.panel(), "Frame 0 (wrapper)") >= 0);
        const QString details = c.panel()->detailText();
        QVERIFY2(details.contains("Plan nested regions (64 identical blocks model.layers.*"),
                 qPrintable(details));
        QVERIFY(details.contains(QString::fromUtf8("Plan Nested Regions\u2026")));
        QSignalSpy requested(&context, &AppContext::graphRequested);
        QVERIFY(c.panel()->followLink(QStringLiteral("remedy:plan_nested_regions")));
        QCOMPARE(requested.count(), 1);
        const views::GraphRef ref = dynamoGraph(ws, 0, "0/0");
        QCOMPARE(requested.last().at(0).value<views::GraphRef>(), ref);
        QCOMPARE(planned.count(), 0); // the structure is not known yet
        context.setStructure({0, ref.index + 1}, std::make_shared<structure::ModuleTree>());
        QCOMPARE(planned.count(), 0); // another graph's
        context.setStructure(ref, std::make_shared<structure::ModuleTree>());
        QCOMPARE(planned.count(), 1);
        context.setStructure(ref, std::make_shared<structure::ModuleTree>());
        QCOMPARE(planned.count(), 1); // once
    }

    void rankGridForAMultiRankRun()
    {
        App app;
        auto [ws, view, context, c] = app.parts(); // references
        QVERIFY(load(ws, c, kRecorded + "recompile.log.gz"));
        QCOMPARE(c.panel()->rankGrid()->rowCount(), 0);
        QVERIFY(!c.panel()->gridView()->isVisibleTo(c.panel()));
        QVERIFY(load(ws, c, kRecorded + "ranks")); // both runs are diagnosed again
        QCOMPARE(c.panel()->diagnosis()->runs.size(), std::size_t(2));
        QCOMPARE(c.panel()->rankGrid()->run(), 1);
        QCOMPARE(c.panel()->rankGrid()->columnCount(), 2);
        QCOMPARE(c.panel()->rankGrid()->cellText(0, 1), QStringLiteral("compiled \u00b7 2 cold miss"));
        QVERIFY(c.panel()->gridView()->isVisibleTo(c.panel()));
        QVERIFY(c.panel()->summaryText().contains("ranks diverge at 0/0"));
        const int row = selectFinding(*c.panel(), "Ranks diverge at 0/0: input shapes differ");
        QVERIFY(row >= 0);
        const auto* model = c.panel()->findingsModel();
        QCOMPARE(model->data(model->index(row, views::FindingsModel::RunColumn)).toString(),
                 QStringLiteral("ranks"));
        QSignalSpy requested(&context, &AppContext::graphRequested);
        c.panel()->activateFinding(row); // rank 0's Dynamo graph of 0/0 in the ranks run
        QCOMPARE(requested.count(), 1);
        const auto ref = requested.first().at(0).value<views::GraphRef>();
        QCOMPARE(ref.run, 1);
        const auto* a = ws.artifact(ref);
        QVERIFY(a != nullptr);
        QCOMPARE(a->kind, std::string("dynamo_output_graph"));
        QCOMPARE(a->rank, 0);
    }

    void mainWindowShowsTheDiagnosisFirst()
    {
        app::MainWindow w;
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("diagnosisDock"));
        QVERIFY(dock != nullptr);
        dock->hide();
        auto* panel = qobject_cast<views::DiagnosisPanel*>(dock->widget());
        QVERIFY(panel != nullptr);
        QSignalSpy ready(panel, &views::DiagnosisPanel::diagnosisReady);
        QSignalSpy loaded(&w, &app::MainWindow::loadFinished);
        w.openPaths({QString::fromStdString(kRecorded + "load_fail_fx.log.gz")});
        QVERIFY(loaded.wait(60000));
        QVERIFY(!dock->isHidden());
        QVERIFY(ready.count() > 0 || ready.wait(60000));
        // The FX cache entries were unreadable: a load failure, never a cold miss. Its link is
        // the lookup: following it selects that lookup in the Cache dock.
        const int row = findingStartingWith(*panel, "Cache load failure");
        QVERIFY(row >= 0);
        const diagnose::Finding* f = panel->findingsModel()->finding(row);
        QCOMPARE(f->severity, diagnose::Severity::Error);
        QCOMPARE(f->link.kind, diagnose::Link::Kind::Lookup);
        auto* cacheDock = w.findChild<QDockWidget*>(QStringLiteral("cacheDock"));
        QVERIFY(cacheDock != nullptr);
        cacheDock->hide();
        panel->activateFinding(row);
        QCOMPARE(w.cachePanel()->currentLookup(), (views::LookupRef{0, f->link.index}));
        QVERIFY(!cacheDock->isHidden());
        QVERIFY(w.currentGraph().valid()); // and the graph that lookup keys
    }
};

QTEST_MAIN(TestDiagnosisController)
#include "tst_diagnosis_controller.moc"

FXSCOPE_TEST_END
