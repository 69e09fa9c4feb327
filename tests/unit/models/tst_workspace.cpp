// Workspace and graph_kinds: loading fixture runs, lookup → graph links, labels, reloads.
// Expected values are counted in tests/data/fixtures/traces/basic_cold (see comments).
#include "tests/test_file.h"
#include "tests/unit/model/graph_of_kind.h"
#include "tests/unit/models/deferred_run.h"
#include "views/models/graph_kinds.h"
#include "views/models/workspace.h"

#include <QSignalSpy>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::test::graphOfKind;
using namespace fxs::views;

namespace {

io::LoadResult load(const char* fixture)
{
    return io::loadPaths({std::string(FXSCOPE_TEST_DATA "/fixtures/traces/") + fixture});
}

} // namespace

class TestWorkspace : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void addsRunsAndEmits()
    {
        Workspace ws;
        QSignalSpy about(&ws, &Workspace::aboutToChange);
        QSignalSpy changed(&ws, &Workspace::changed);
        ws.add(load("basic_cold"));
        QCOMPARE(about.size(), 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(ws.runs().size(), std::size_t(1));
        // basic_cold: dynamo 1, aot joint/forward/backward 3, before/after pre-grad 2,
        // before_post_grad 2, inductor_post_grad 2 graph payloads; 1 aot + 2 fx lookups.
        QCOMPARE(ws.runs()[0]->graphs.size(), std::size_t(10));
        QCOMPARE(ws.runs()[0]->lookups.size(), std::size_t(3));
        QCOMPARE(ws.runName(0), QStringLiteral("basic_cold"));
        QVERIFY(!ws.isEmpty());
    }

    void reloadReplacesTheRun()
    {
        Workspace ws;
        ws.add(load("basic_cold"));
        ws.add(load("basic_cold"));
        QCOMPARE(ws.runs().size(), std::size_t(1));
        ws.add(load("basic_warm"));
        QCOMPARE(ws.runs().size(), std::size_t(2));
        ws.clear();
        QVERIFY(ws.isEmpty());
        QVERIFY(!ws.artifact(GraphRef{0, 0}));
    }

    void linksLookupsToGraphs()
    {
        Workspace ws;
        ws.add(load("basic_cold"));
        const model::Run& run = *ws.runs()[0];
        // Log order: the aotautograd miss (line 831), then fx misses for forward and backward.
        QCOMPARE(run.lookups[0].cache, model::CacheKind::AotAutograd);
        QCOMPARE(ws.graphForLookup(LookupRef{0, 0}),
                 (GraphRef{0, graphOfKind(run, "aot_joint_graph")}));
        QCOMPARE(ws.graphForLookup(LookupRef{0, 1}),
                 (GraphRef{0, graphOfKind(run, "inductor_post_grad_graph", 0)}));
        QCOMPARE(ws.graphForLookup(LookupRef{0, 2}),
                 (GraphRef{0, graphOfKind(run, "inductor_post_grad_graph", 1)}));
        QVERIFY(!ws.graphForLookup(LookupRef{0, 3}).valid());
        const auto keyed = ws.lookupsForGraph(GraphRef{0, graphOfKind(run, "aot_joint_graph")});
        QCOMPARE(keyed.size(), std::size_t(1));
        QCOMPARE(keyed[0], (LookupRef{0, 0}));
        QVERIFY(ws.lookupsForGraph(GraphRef{0, graphOfKind(run, "dynamo_output_graph")}).empty());
    }

    void labelsGraphs()
    {
        Workspace ws;
        ws.add(load("basic_cold"));
        const model::Run& run = *ws.runs()[0];
        QCOMPARE(graphDisplayName(run, graphOfKind(run, "aot_forward_graph")),
                 QStringLiteral("AOT forward"));
        // Two post-grad graphs in a training compile: forward first, then backward.
        QCOMPARE(graphDisplayName(run, graphOfKind(run, "inductor_post_grad_graph", 1)),
                 QStringLiteral("Inductor post-grad (backward)"));
        QCOMPARE(ws.graphTitle(GraphRef{0, graphOfKind(run, "dynamo_output_graph")}),
                 QStringLiteral("0/0 · Dynamo"));
        QVERIFY(graphKindOrder("dynamo_output_graph") < graphKindOrder("aot_joint_graph"));
        QVERIFY(graphKindOrder("aot_backward_graph") < graphKindOrder("inductor_post_grad_graph"));
        QCOMPARE(graphKindLabel("something_new"), QStringLiteral("something_new"));
    }

    void findsOutputCodeAndCounterparts()
    {
        Workspace ws;
        ws.add(load("basic_cold"));
        ws.add(load("basic_warm"));
        const model::Run& cold = *ws.runs()[0];
        const GraphRef fwd{0, graphOfKind(cold, "aot_forward_graph")};
        // Two inductor_output_code payloads (forward and backward) in compile 0/0.
        QCOMPARE(ws.outputCode(fwd).size(), std::size_t(2));
        const GraphRef other = ws.counterpart(fwd, 1);
        QVERIFY(other.valid());
        QCOMPARE(ws.artifact(other)->kind, std::string("aot_forward_graph"));
        QCOMPARE(other.run, 1);
    }

    // A deferred parse's problems join diagnostics() when it is reported, as rows added (the
    // rest of the workspace is unchanged: no reset), once.
    void reportsADeferredParseOnce()
    {
        Diagnostics problems;
        problems.error("deferred.log", 7, "cannot read statement", "a node", "(((@");
        io::LoadResult result = test::runWithDeferredGraph("deferred.log", problems);
        Workspace ws;
        ws.add(std::move(result));
        const GraphRef ref{0, 0};
        QVERIFY(ws.parsePending(ref));
        QVERIFY(!ws.graph(ref));
        QSignalSpy parsed(&ws, &Workspace::graphReady);
        QSignalSpy adding(&ws, &Workspace::diagnosticsAboutToBeAdded);
        QSignalSpy reset(&ws, &Workspace::aboutToChange);
        ws.reportParsed(ref);
        QCOMPARE(parsed.size(), 0); // still pending
        QVERIFY(!ws.artifact(ref)->deferred->get().graph); // unreadable
        QVERIFY(!ws.parsePending(ref));
        ws.reportParsed(ref);
        ws.reportParsed(ref);
        QCOMPARE(parsed.size(), 1);
        QCOMPARE(parsed.first().at(0).value<GraphRef>(), ref);
        QCOMPARE(adding.size(), 1);
        QCOMPARE(adding.first().at(0).toInt(), 1);
        QCOMPARE(adding.first().at(1).toInt(), 1);
        QCOMPARE(reset.size(), 0);
        QCOMPARE(ws.diagnostics().size(), std::size_t(2));
        QCOMPARE(ws.diagnostics().items()[1].line, 7);
    }

    void keepsStandaloneGraphsAndProblems()
    {
        Workspace ws;
        ws.add(io::loadPaths({FXSCOPE_TEST_DATA "/fixtures/graphs/resnet18_infer.txt",
                              FXSCOPE_TEST_DATA "/fixtures/does_not_exist.log"}));
        QCOMPARE(ws.graphFiles().size(), std::size_t(1));
        QVERIFY(ws.graph(GraphRef{GraphRef::kStandalone, 0}) != nullptr);
        QCOMPARE(ws.graphTitle(GraphRef{GraphRef::kStandalone, 0}), QStringLiteral("resnet18_infer.txt"));
        QVERIFY(ws.diagnostics().errorCount() >= 1);
        QVERIFY(ws.lookupsForGraph(GraphRef{GraphRef::kStandalone, 0}).empty());
    }
};

QTEST_MAIN(TestWorkspace)
#include "tst_workspace.moc"

FXSCOPE_TEST_END
