// RunTreeModel under QAbstractItemModelTester: runs › compile ids › graphs with node counts and
// cache states, higher-order bodies under their graph with call counts (also when a deferred
// graph is read later), ranks on the runs and graphs of a multi-rank folder, the graph-files
// branch, resets when the workspace changes.
#include "tests/test_file.h"
#include "views/models/run_tree_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;

namespace {

std::string trace(const char* name)
{
    return std::string(FXSCOPE_TEST_DATA "/fixtures/traces/") + name;
}

std::string recorded(const char* name)
{
    return std::string(FXSCOPE_TEST_DATA "/recorded/traces/") + name;
}

QStringList texts(const QAbstractItemModel& m, const QModelIndex& parent)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        out << m.index(r, 0, parent).data().toString();
    }
    return out;
}

// The first row of kind `kind` (a Workspace graph kind) under the first compile id of run 0.
QModelIndex graphRow(const RunTreeModel& model, const Workspace& ws, std::string_view kind)
{
    const auto& graphs = ws.runs().front()->graphs;
    for (std::size_t g = 0; g < graphs.size(); ++g) {
        if (graphs[g].kind == kind) {
            return model.indexOf(GraphRef{0, int(g)});
        }
    }
    return {};
}

QModelIndex childNamed(const QAbstractItemModel& m, const QModelIndex& parent, const QString& name)
{
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        if (i.data().toString() == name) {
            return i;
        }
    }
    return {};
}

} // namespace

class TestRunTreeModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void showsRunsCompileIdsAndGraphs()
    {
        Workspace ws;
        RunTreeModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        ws.add(io::loadPaths({trace("basic_cold"), trace("basic_warm")}));
        QCOMPARE(model.rowCount(), 2);
        const QModelIndex cold = model.index(0, 0);
        QCOMPARE(cold.data().toString(), QStringLiteral("basic_cold"));
        QCOMPARE(model.rowCount(cold), 1); // one compile id
        const QModelIndex cid = model.index(0, 0, cold);
        QCOMPARE(cid.data().toString(), QStringLiteral("0/0"));
        QCOMPARE(model.rowCount(cid), 10);
        // Sorted by kind: the Dynamo graph first.
        QCOMPARE(model.index(0, 0, cid).data().toString(), QStringLiteral("Dynamo"));
        // AOT forward of basic_cold: 2 placeholders, 7 ops, output (lines 1193–1210).
        const QModelIndex fwd = childNamed(model, cid, QStringLiteral("AOT forward"));
        QVERIFY(fwd.isValid());
        QCOMPARE(model.index(fwd.row(), RunTreeModel::NodesColumn, cid).data().toInt(), 10);
        QCOMPARE(model.index(cid.row(), RunTreeModel::CacheColumn, cold).data().toString(),
                 QStringLiteral("3 miss"));
        const QModelIndex joint = childNamed(model, cid, QStringLiteral("AOT joint"));
        QCOMPARE(model.index(joint.row(), RunTreeModel::CacheColumn, cid).data().toString(),
                 QStringLiteral("1 miss"));
        QVERIFY(!model.index(joint.row(), RunTreeModel::CacheColumn, cid)
                     .data(Qt::DecorationRole).value<QIcon>().isNull());
        const QModelIndex warm = model.index(1, 0);
        QCOMPARE(model.index(warm.row(), RunTreeModel::CacheColumn).data().toString(),
                 QStringLiteral("3 hit"));
    }

    void mapsGraphRefsBothWays()
    {
        Workspace ws;
        RunTreeModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ws.add(io::loadPaths({trace("basic_cold")}));
        const QModelIndex cid = model.index(0, 0, model.index(0, 0));
        const QModelIndex row = model.index(3, 0, cid);
        const auto ref = row.data(RunTreeModel::GraphRefRole).value<GraphRef>();
        QVERIFY(ref.valid());
        QCOMPARE(model.indexOf(ref), row);
        QVERIFY(!cid.data(RunTreeModel::GraphRefRole).isValid());
        QCOMPARE(cid.data(RunTreeModel::ItemKindRole).toInt(),
                 int(RunTreeModel::ItemKind::CompileId));
        QVERIFY(!model.indexOf(GraphRef{5, 0}).isValid());
    }

    // Opened as the app opens logs: graphs are counted, not parsed. A graph's row shows its
    // line count until its parse is reported, then its node count.
    void deferredGraphsShowLinesUntilParsed()
    {
        Workspace ws;
        RunTreeModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        io::LoadOptions options;
        options.deferGraphParsing = true;
        ws.add(io::loadPaths({trace("basic_cold")}, options));
        const QModelIndex cid = model.index(0, 0, model.index(0, 0));
        const QModelIndex fwd = childNamed(model, cid, QStringLiteral("AOT forward"));
        QVERIFY(fwd.isValid());
        const QModelIndex nodes = model.index(fwd.row(), RunTreeModel::NodesColumn, cid);
        // basic_cold: the AOT forward payload is lines 1190–1211.
        QCOMPARE(nodes.data().toString(), QStringLiteral("22 lines"));
        QVERIFY(nodes.data(Qt::ToolTipRole).toString().contains(QStringLiteral("first shown")));
        const auto ref = fwd.data(RunTreeModel::GraphRefRole).value<GraphRef>();
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        ws.reportParsed(ref); // nothing parsed yet: nothing to report
        QCOMPARE(changed.size(), 0);
        QVERIFY(ws.artifact(ref)->deferred->get().graph);
        ws.reportParsed(ref);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex(), nodes);
        QCOMPARE(nodes.data().toInt(), 10); // 2 placeholders, 7 ops, output
        ws.reportParsed(ref); // once per graph
        QCOMPARE(changed.size(), 1);
    }

    // nested.log.gz (its text, lines 562-615 and 209-218): the AOT joint graph calls
    // repeated_subgraph0 (forward) and repeated_subgraph1 (backward) four times each; the
    // Dynamo graph calls subgraph_0 .. subgraph_3, one identical body listed once.
    void listsBodiesWithCallCounts()
    {
        Workspace ws;
        RunTreeModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ws.add(io::loadPaths({recorded("nested.log.gz")}));
        const QModelIndex joint = graphRow(model, ws, "aot_joint_graph");
        QVERIFY(joint.isValid());
        QCOMPARE(texts(model, joint),
                 (QStringList{QStringLiteral("repeated_subgraph0 · 4 calls"),
                              QStringLiteral("repeated_subgraph1 · 4 calls")}));
        const QModelIndex body = model.index(0, 0, joint);
        QCOMPARE(body.data(RunTreeModel::ItemKindRole).toInt(), int(RunTreeModel::ItemKind::Body));
        QCOMPARE(body.data(RunTreeModel::BodyPathRole).toStringList(),
                 QStringList{QStringLiteral("repeated_subgraph0")});
        QCOMPARE(body.data(RunTreeModel::GraphRefRole).value<GraphRef>(),
                 joint.data(RunTreeModel::GraphRefRole).value<GraphRef>());
        const auto g = ws.graph(joint.data(RunTreeModel::GraphRefRole).value<GraphRef>());
        QCOMPARE(model.index(0, RunTreeModel::NodesColumn, joint).data().toULongLong(),
                 qulonglong(g->submodule("repeated_subgraph0")->size()));
        QCOMPARE(texts(model, graphRow(model, ws, "dynamo_output_graph")),
                 QStringList{QStringLiteral("subgraph_0 · 4 calls")});
    }

    // hops.log.gz opened as the app opens it: the cond graph's bodies appear once it is read.
    void deferredGraphGainsItsBodiesWhenRead()
    {
        Workspace ws;
        RunTreeModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        io::LoadOptions options;
        options.deferGraphParsing = true;
        ws.add(io::loadPaths({recorded("hops.log.gz")}, options));
        const QModelIndex dyn = graphRow(model, ws, "dynamo_output_graph");
        QVERIFY(dyn.isValid());
        QCOMPARE(model.rowCount(dyn), 0);
        const auto ref = dyn.data(RunTreeModel::GraphRefRole).value<GraphRef>();
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QVERIFY(ws.artifact(ref)->deferred->get().graph);
        ws.reportParsed(ref);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(texts(model, dyn), (QStringList{QStringLiteral("cond_true_0 · 1 call"),
                                                 QStringLiteral("cond_false_0 · 1 call")}));
    }

    // recorded/traces/ranks (fxscope-cli inspect, checked against the two logs): rank 0 and
    // rank 1 each log compile 0/0 with eight graphs, a Dynamo graph first.
    void labelsRanks()
    {
        Workspace ws;
        RunTreeModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ws.add(io::loadPaths({recorded("ranks")}));
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex run = model.index(0, 0);
        QCOMPARE(run.data().toString(), QStringLiteral("ranks · ranks 0, 1"));
        const QModelIndex cid = childNamed(model, run, QStringLiteral("0/0"));
        QVERIFY(cid.isValid());
        const QStringList rows = texts(model, cid);
        QCOMPARE(rows.size(), 16);
        QCOMPARE(rows[0], QStringLiteral("rank 0 · Dynamo"));
        QCOMPARE(rows[8], QStringLiteral("rank 1 · Dynamo"));
        for (int i = 0; i < rows.size(); ++i) {
            const QString prefix = QStringLiteral("rank %1 · ").arg(i < 8 ? 0 : 1);
            QVERIFY2(rows[i].startsWith(prefix) && !rows[i].contains(QLatin1Char('#')),
                     qPrintable(rows.join(QStringLiteral(" | "))));
        }
    }

    void listsGraphFilesAndFollowsClear()
    {
        Workspace ws;
        RunTreeModel model(&ws);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ws.add(io::loadPaths({FXSCOPE_TEST_DATA "/fixtures/graphs/gpt2_export.txt"}));
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex files = model.index(0, 0);
        QCOMPARE(files.data().toString(), QStringLiteral("Graph files"));
        QCOMPARE(model.rowCount(files), 1);
        QCOMPARE(model.index(0, 0, files).data().toString(), QStringLiteral("gpt2_export.txt"));
        QVERIFY(model.index(0, RunTreeModel::NodesColumn, files).data().toInt() > 69);
        ws.clear();
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestRunTreeModel)
#include "tst_run_tree_model.moc"

FXSCOPE_TEST_END
