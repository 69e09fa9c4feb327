// ShownGraph's states over a Workspace and a WorkspaceLoader, with graphs whose deferred parse
// the test controls (a gate it opens): a parsed graph reaches Structuring at once, a large
// deferred one is parsed in the background, a newer request supersedes a parse in flight (its
// result is dropped, its graph still reported to the workspace), a parse that yields no graph
// fails, cancel gives a request up, and the later steps' reports about another graph are
// ignored.
#include "app/gui/shown_graph.h"
#include "app/gui/workspace_loader.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"

#include <QSignalSpy>
#include <QtTest>

#include <future>
#include <memory>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::app::ShownGraph;
using fxs::app::WorkspaceLoader;
using State = ShownGraph::State;

namespace {

graph::GraphPtr smallGraph()
{
    const auto parsed = io::parseGraphCode("class GraphModule(torch.nn.Module):\n"
                                           "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                                           "        sin: \"f32[4][1]cpu\" = "
                                           "torch.ops.aten.sin.default(x);  x = None\n"
                                           "        return (sin,)\n",
                                           "shown.txt");
    return parsed.graph;
}

// A deferred graph of `lines` lines whose parse waits for gate (when given) and yields graph.
model::GraphArtifact deferredGraph(int lines, graph::GraphPtr graph,
                                   std::shared_future<void> gate = {})
{
    model::GraphArtifact g;
    g.kind = "aot_backward_graph";
    g.payloadLines = lines;
    g.deferred = std::make_shared<const model::DeferredGraph>([graph, gate] {
        if (gate.valid()) {
            gate.wait();
        }
        model::DeferredGraph::Parsed p;
        p.graph = graph;
        if (!graph) {
            p.diagnostics.error("shown.log", 12, "cannot read statement");
        }
        return p;
    });
    return g;
}

model::GraphArtifact parsedGraph(graph::GraphPtr graph)
{
    model::GraphArtifact g;
    g.kind = "inductor_post_grad_graph";
    g.graph = std::move(graph);
    return g;
}

void addRun(views::Workspace& ws, std::vector<model::GraphArtifact> graphs)
{
    model::Run run;
    run.path = "shown.log";
    run.graphs = std::move(graphs);
    io::LoadResult result;
    result.runs.push_back(std::move(run));
    ws.add(std::move(result));
}

std::vector<State> states(const QSignalSpy& spy)
{
    std::vector<State> out;
    for (const auto& args : spy) {
        out.push_back(args.at(0).value<State>());
    }
    return out;
}

struct Fixture {
    views::Workspace ws;
    WorkspaceLoader loader;
    ShownGraph shown{&ws, &loader};
    Fixture() { loader.setWorkspace(&ws); }
};

} // namespace

class TestShownGraph : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aParsedGraphReachesStructuringAtOnce()
    {
        Fixture f;
        const graph::GraphPtr g = smallGraph();
        QVERIFY(g);
        addRun(f.ws, {parsedGraph(g), parsedGraph(smallGraph())});
        QSignalSpy changed(&f.shown, &ShownGraph::stateChanged);
        QSignalSpy ready(&f.shown, &ShownGraph::graphReady);
        QSignalSpy refs(&f.shown, &ShownGraph::refChanged);
        f.shown.request({0, 0});
        QCOMPARE(refs.size(), 1);
        QCOMPARE(states(changed), (std::vector<State>{State::Requested, State::Structuring}));
        QCOMPARE(ready.size(), 1);
        QCOMPARE(ready.first().at(1).value<graph::GraphPtr>(), g);
        QCOMPARE(f.shown.graph(), g);
        QVERIFY(!f.loader.isParsing());
        // Reports about another graph, or out of turn, are dropped.
        f.shown.setLaidOut(g);
        QCOMPARE(f.shown.state(), State::Structuring);
        f.shown.setStructure({0, 1}, f.ws.graph({0, 1}), nullptr);
        QCOMPARE(f.shown.state(), State::Structuring);
        auto tree = std::make_shared<const structure::ModuleTree>();
        f.shown.setStructure({0, 0}, g, tree);
        QCOMPARE(f.shown.state(), State::LayingOut);
        QCOMPARE(f.shown.structure(), tree);
        f.shown.setLaidOut(f.ws.graph({0, 1}));
        QCOMPARE(f.shown.state(), State::LayingOut);
        f.shown.setLaidOut(g);
        QCOMPARE(f.shown.state(), State::Shown);
        QVERIFY(!f.shown.isPending());
    }

    void aLargeDeferredGraphIsParsedInTheBackground()
    {
        Fixture f;
        const graph::GraphPtr g = smallGraph();
        std::promise<void> gate;
        addRun(f.ws, {deferredGraph(5000, g, gate.get_future().share())});
        QSignalSpy ready(&f.shown, &ShownGraph::graphReady);
        QSignalSpy wsReady(&f.ws, &views::Workspace::graphReady);
        f.shown.request({0, 0});
        QCOMPARE(f.shown.state(), State::Parsing); // not on this thread
        QVERIFY(!f.shown.graph());
        QVERIFY(f.loader.isParsing());
        gate.set_value();
        QVERIFY(ready.wait(10000));
        QCOMPARE(f.shown.state(), State::Structuring);
        QCOMPARE(f.shown.graph(), g);
        QCOMPARE(wsReady.size(), 1); // reported once, through the workspace
    }

    void aSmallDeferredGraphIsReadAtOnce()
    {
        Fixture f;
        const graph::GraphPtr g = smallGraph();
        addRun(f.ws, {deferredGraph(ShownGraph::kInlineParseLines, g)});
        QSignalSpy changed(&f.shown, &ShownGraph::stateChanged);
        f.shown.request({0, 0});
        QCOMPARE(states(changed), (std::vector<State>{State::Requested, State::Structuring}));
        QCOMPARE(f.shown.graph(), g);
    }

    void aNewerRequestSupersedesAParseInFlight()
    {
        Fixture f;
        const graph::GraphPtr a = smallGraph();
        const graph::GraphPtr b = smallGraph();
        std::promise<void> gate;
        addRun(f.ws, {deferredGraph(5000, a, gate.get_future().share()), deferredGraph(5000, b)});
        QSignalSpy ready(&f.shown, &ShownGraph::graphReady);
        QSignalSpy parsed(&f.loader, &WorkspaceLoader::parsed);
        QSignalSpy wsReady(&f.ws, &views::Workspace::graphReady);
        f.shown.request({0, 0});
        QCOMPARE(f.shown.state(), State::Parsing);
        f.shown.request({0, 1}); // while A's parse waits at its gate
        QCOMPARE(f.shown.ref(), (views::GraphRef{0, 1}));
        QVERIFY(ready.wait(10000));
        QCOMPARE(ready.size(), 1);
        QCOMPARE(ready.first().at(0).value<views::GraphRef>(), (views::GraphRef{0, 1}));
        QCOMPARE(f.shown.graph(), b);
        // A's parse finishes later: reported to the workspace, dropped by the shown graph.
        gate.set_value();
        QTRY_COMPARE_WITH_TIMEOUT(parsed.size(), 2, 10000);
        QCOMPARE(wsReady.size(), 2);
        QCOMPARE(ready.size(), 1);
        QCOMPARE(f.shown.ref(), (views::GraphRef{0, 1}));
        QCOMPARE(f.shown.state(), State::Structuring);
        QCOMPARE(f.shown.graph(), b);
    }

    void aParseWithoutAGraphFails()
    {
        Fixture f;
        addRun(f.ws, {deferredGraph(5000, nullptr)});
        const int problems = static_cast<int>(f.ws.diagnostics().size());
        QSignalSpy changed(&f.shown, &ShownGraph::stateChanged);
        QSignalSpy ready(&f.shown, &ShownGraph::graphReady);
        f.shown.request({0, 0});
        QTRY_COMPARE_WITH_TIMEOUT(f.shown.state(), State::Failed, 10000);
        QCOMPARE(states(changed),
                 (std::vector<State>{State::Requested, State::Parsing, State::Failed}));
        QCOMPARE(ready.size(), 0);
        QVERIFY(!f.shown.error().isEmpty());
        // Its problem joined the workspace's, as a load's do.
        QCOMPARE(static_cast<int>(f.ws.diagnostics().size()), problems + 1);
    }

    void cancelGivesTheRequestUp()
    {
        Fixture f;
        std::promise<void> gate;
        addRun(f.ws, {deferredGraph(5000, smallGraph(), gate.get_future().share())});
        QSignalSpy refs(&f.shown, &ShownGraph::refChanged);
        QSignalSpy parsed(&f.loader, &WorkspaceLoader::parsed);
        f.shown.request({0, 0});
        f.shown.cancel();
        QCOMPARE(f.shown.state(), State::Cancelled);
        QVERIFY(!f.shown.ref().valid());
        QCOMPARE(refs.size(), 2);
        QVERIFY(!refs.last().at(0).value<views::GraphRef>().valid());
        gate.set_value();
        QVERIFY(parsed.wait(10000));
        QCOMPARE(f.shown.state(), State::Cancelled);
        // Nothing in flight: cancel leaves nothing shown.
        f.shown.cancel();
        QCOMPARE(f.shown.state(), State::None);
    }

    void anUnknownGraphShowsNothing()
    {
        Fixture f;
        f.shown.request({0, 3});
        QCOMPARE(f.shown.state(), State::None);
        QVERIFY(!f.shown.ref().valid());
    }
};

QTEST_GUILESS_MAIN(TestShownGraph)
#include "tst_shown_graph.moc"

FXSCOPE_TEST_END
