// StructureController on an AppContext around a plain QMainWindow, with the GPT trace loaded:
// showing the AOT forward graph recovers its tree in the background (mapped from the Dynamo
// graph) and publishes it; the same module's nodes are found in the Dynamo and backward graphs
// of the compile; a newer graph wins; the MainWindow's Inspector shows a node's module path;
// Regions › Create per Module Matching makes one region per matching module in one undo step;
// the graph view groups by modules (waiting for the tree rather than drawing twice), a module
// picked in the Inspector is selected and followed to the other graphs of its compile, and the
// find bar matches module paths.
#include "app/gui/app_context.h"
#include "app/gui/main_window.h"
#include "app/gui/region_controller.h"
#include "app/gui/structure_controller.h"
#include "app/gui/workspace_loader.h"
#include "core/io/loader.h"
#include "core/structure/structure.h"
#include "tests/test_file.h"
#include "views/graph/graph_view.h"
#include "views/panels/inspector_panel.h"
#include "views/panels/region_commands.h"

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <mutex>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::app::AppContext;
using fxs::app::StructureController;

namespace {

const std::string kGptTrace = FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold";

views::GraphRef graphOfKind(const views::Workspace& ws, const char* kind)
{
    const auto& graphs = ws.runs().front()->graphs;
    for (std::size_t k = 0; k < graphs.size(); ++k) {
        if (graphs[k].kind == kind) {
            return {0, static_cast<int>(k)};
        }
    }
    return {};
}

struct App {
    QMainWindow host;
    views::Workspace ws;
    views::GraphView view;
    AppContext context{&host, &ws, &view};
    StructureController c{&context};
};

} // namespace

class TestStructureController : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("FXSCOPE_CACHE_DIR", (m_dir.path() + "/cache").toUtf8());
    }

    void publishesTheShownGraphsTree()
    {
        App app;
        app.ws.add(io::loadPaths({kGptTrace}));
        QVERIFY(!app.ws.runs().empty());
        const views::GraphRef fw = graphOfKind(app.ws, "aot_forward_graph");
        const views::GraphRef dyn = graphOfKind(app.ws, "dynamo_output_graph");
        const views::GraphRef bw = graphOfKind(app.ws, "aot_backward_graph");
        QVERIFY(fw.valid() && dyn.valid() && bw.valid());
        QSignalSpy ready(&app.c, &StructureController::structureReady);
        app.context.setCurrentGraph(dyn);
        app.context.setCurrentGraph(fw); // the newer graph wins
        QVERIFY(app.c.isRecovering());
        QVERIFY(ready.wait(30000));
        QCOMPARE(ready.count(), 1);
        QCOMPARE(ready.front().at(0).value<views::GraphRef>(), fw);
        QCOMPARE(app.c.graphRef(), fw);
        QVERIFY(app.c.tree());
        QCOMPARE(app.c.tree()->source, structure::Source::AotMapping);
        // The same module in the other graphs of the compile: as a direct recovery finds it.
        for (views::GraphRef other : {dyn, bw}) {
            auto tree = structure::recoverRunGraphStructure(*app.ws.runs().front(),
                                                            static_cast<std::size_t>(other.index));
            QVERIFY(tree.ok());
            const auto expected = tree->nodesOf(*tree->find("s.blocks.2.attn"));
            QVERIFY(!expected.empty());
            QCOMPARE(app.c.moduleNodesIn(other, "s.blocks.2.attn"), expected);
        }
        QVERIFY(app.c.moduleNodesIn(dyn, "s.blocks.9").empty());
        // No graph: nothing published, the tree dropped.
        app.context.setCurrentGraph({});
        QVERIFY(!app.c.tree());
    }

    // A module's nodes in graphs whose parse was deferred: moduleNodesIn never parses on the
    // GUI thread; it asks the loader, whose background job parses (and reports) the graph and
    // the graphs its structure reads, and answers once they are read.
    void moduleNodesInNeverParsesOnTheGuiThread()
    {
        io::LoadOptions options;
        options.deferGraphParsing = true;
        io::LoadResult result = io::loadPaths({kGptTrace}, options);
        QVERIFY(!result.runs.empty());
        struct Seen {
            std::mutex mutex;
            std::vector<std::thread::id> threads;
        };
        auto seen = std::make_shared<Seen>();
        for (auto& g : result.runs.front().graphs) {
            if (!g.deferred) {
                continue;
            }
            g.deferred = std::make_shared<const model::DeferredGraph>([inner = g.deferred, seen] {
                {
                    std::lock_guard lock(seen->mutex);
                    seen->threads.push_back(std::this_thread::get_id());
                }
                return inner->get();
            });
        }
        App app;
        app.ws.add(std::move(result));
        const views::GraphRef dyn = graphOfKind(app.ws, "dynamo_output_graph");
        QVERIFY(app.ws.parsePending(dyn));
        QSignalSpy parsed(app.context.loader(), &app::WorkspaceLoader::parsed);
        QVERIFY(app.c.moduleNodesIn(dyn, "s.blocks.2.attn").empty()); // not read yet
        QVERIFY(parsed.wait(30000));
        QVERIFY(!app.ws.parsePending(dyn));
        auto tree = structure::recoverRunGraphStructure(*app.ws.runs().front(),
                                                        static_cast<std::size_t>(dyn.index));
        QVERIFY(tree.ok());
        const auto expected = tree->nodesOf(*tree->find("s.blocks.2.attn"));
        QVERIFY(!expected.empty());
        QCOMPARE(app.c.moduleNodesIn(dyn, "s.blocks.2.attn"), expected);
        std::lock_guard lock(seen->mutex);
        QVERIFY(!seen->threads.empty());
        for (const std::thread::id id : seen->threads) {
            QVERIFY(id != std::this_thread::get_id());
        }
    }

    void inspectorShowsModulePath()
    {
        app::MainWindow w;
        QSignalSpy loaded(&w, &app::MainWindow::loadFinished);
        w.openPaths({QString::fromStdString(kGptTrace)});
        QVERIFY(loaded.wait(60000));
        const views::GraphRef dyn = graphOfKind(*w.workspace(), "dynamo_output_graph");
        QSignalSpy ready(w.structure(), &StructureController::structureReady);
        w.showGraph(dyn);
        QVERIFY(ready.count() > 0 || ready.wait(30000));
        const auto graph = w.workspace()->graph(dyn);
        // The last node of block 1's attention, whichever its name.
        const auto& tree = *w.structure()->tree();
        const graph::NodeId node = tree.nodesOf(*tree.find("s.blocks.1.attn")).back();
        w.inspector()->setNode(graph, node);
        QVERIFY2(w.inspector()->plainText().contains(QStringLiteral("Module\ns.blocks.1.attn\n")),
                 qPrintable(w.inspector()->plainText()));
    }

    // Regions › Create per Module Matching…: blocks.*.mlp on the GPT Dynamo graph makes the 4
    // MLP regions in one undo step, named after their modules; undo removes all of them.
    void regionsPerModule()
    {
        app::MainWindow w;
        QSignalSpy loaded(&w, &app::MainWindow::loadFinished);
        w.openPaths({QString::fromStdString(kGptTrace)});
        QVERIFY(loaded.wait(60000));
        QVERIFY(w.regions()->menu()->findChild<QAction*>(QStringLiteral("createPerModuleAction")));
        const views::GraphRef dyn = graphOfKind(*w.workspace(), "dynamo_output_graph");
        QSignalSpy ready(w.structure(), &StructureController::structureReady);
        w.showGraph(dyn);
        views::RegionDocument* doc = w.regions()->currentDocument();
        QVERIFY(doc);
        // Before the tree is known the request is refused, not guessed.
        if (ready.isEmpty()) {
            QVERIFY(!w.regions()->createPerModule(QStringLiteral("blocks.*.mlp")));
            QVERIFY(ready.wait(30000));
        }
        const int steps = doc->undoStack()->count();
        QVERIFY(!w.regions()->createPerModule(QStringLiteral("blocks..mlp")));
        QVERIFY(!w.regions()->createPerModule(QStringLiteral("decoder.*.mlp")));
        QCOMPARE(doc->undoStack()->count(), steps);
        QVERIFY(w.regions()->createPerModule(QStringLiteral("blocks.*.mlp")));
        QCOMPARE(doc->undoStack()->count(), steps + 1);
        QCOMPARE(doc->regions().size(), std::size_t{4});
        const auto& tree = *w.structure()->tree();
        for (int k = 0; k < 4; ++k) {
            const std::string path = "s.blocks." + std::to_string(k) + ".mlp";
            QCOMPARE(doc->regions()[k].name, path);
            // Its computing nodes: every node of the module but its parameters.
            std::size_t computing = 0;
            for (graph::NodeId id : tree.nodesOf(*tree.find(path))) {
                computing += doc->graph()->node(id).isPlaceholder() ? 0 : 1;
            }
            QCOMPARE(doc->regions()[k].nodes.size(), computing);
        }
        doc->undoStack()->undo();
        QVERIFY(doc->regions().empty());
    }

    // The Dynamo graph of the 4-block GPT opens as its modules: the four identical blocks are one
    // folded "blocks.0–3" box. The first layout waits for the tree: the view never lays out the
    // source-scope groups first.
    void viewGroupsByModules()
    {
        app::MainWindow w;
        QSignalSpy loaded(&w, &app::MainWindow::loadFinished);
        w.openPaths({QString::fromStdString(kGptTrace)});
        QVERIFY(loaded.wait(60000));
        const views::GraphRef dyn = graphOfKind(*w.workspace(), "dynamo_output_graph");
        views::GraphView* view = w.graphView();
        QSignalSpy layouts(view, &views::GraphView::layoutFinished);
        w.showGraph(dyn);
        QVERIFY(view->isWaitingForModules() || view->viewGraph()->modules());
        QVERIFY(layouts.wait(30000));
        QCOMPARE(layouts.count(), 1);
        QVERIFY(!view->isWaitingForModules());
        const layout::ViewGraph* v = view->viewGraph();
        QVERIFY(v->modules());
        std::vector<std::string> top;
        for (const layout::ViewChild& c : v->group(layout::kRootGroup).children) {
            if (c.isGroup) {
                top.push_back(v->group(c.index).label);
            }
        }
        QVERIFY2(std::find(top.begin(), top.end(), "blocks.0–3") != top.end(),
                 qPrintable(QString::fromStdString(top.empty() ? "" : top.front())));
        // Coming back to the graph: the tree is known, the view does not wait.
        w.showGraph(graphOfKind(*w.workspace(), "aot_forward_graph"));
        w.showGraph(dyn);
        QVERIFY(!view->isWaitingForModules());
        QVERIFY(view->viewGraph()->modules());
        // Find by module path: "blocks.2.attn" matches the attention's nodes of block 2 only.
        view->setFindText(QStringLiteral("blocks.2.attn"));
        const auto& tree = *w.structure()->tree();
        QCOMPARE(std::size_t(view->findMatchCount()),
                 tree.nodesOf(*tree.find("s.blocks.2.attn")).size());
    }

    // A module picked in the Inspector is selected, and stays selected in the backward graph of
    // the same compile (its nodes there as a direct recovery of that graph finds them).
    void selectedModuleFollowsTheCompile()
    {
        app::MainWindow w;
        QSignalSpy loaded(&w, &app::MainWindow::loadFinished);
        w.openPaths({QString::fromStdString(kGptTrace)});
        QVERIFY(loaded.wait(60000));
        const views::GraphRef dyn = graphOfKind(*w.workspace(), "dynamo_output_graph");
        const views::GraphRef bw = graphOfKind(*w.workspace(), "aot_backward_graph");
        QSignalSpy ready(w.structure(), &StructureController::structureReady);
        w.showGraph(dyn);
        QVERIFY(ready.count() > 0 || ready.wait(30000));
        Q_EMIT w.inspector()->moduleLinkActivated(QStringLiteral("s.blocks.2.attn"));
        const auto& tree = *w.structure()->tree();
        QCOMPARE(w.graphView()->selectedNodes(), tree.nodesOf(*tree.find("s.blocks.2.attn")));
        QCOMPARE(w.structure()->followedModule(), QStringLiteral("s.blocks.2.attn"));
        ready.clear();
        w.showGraph(bw);
        QVERIFY(ready.count() > 0 || ready.wait(30000));
        auto expected = structure::recoverRunGraphStructure(*w.workspace()->runs().front(),
                                                            static_cast<std::size_t>(bw.index));
        QVERIFY(expected.ok());
        const auto nodes = expected->nodesOf(*expected->find("s.blocks.2.attn"));
        QVERIFY(!nodes.empty());
        QCOMPARE(w.graphView()->selectedNodes(), nodes);
        // A path the graph lacks selects nothing and stops following.
        Q_EMIT w.inspector()->moduleLinkActivated(QStringLiteral("s.blocks.9"));
        QVERIFY(w.structure()->followedModule().isEmpty());
    }
};

QTEST_MAIN(TestStructureController)
#include "tst_structure_controller.moc"

FXSCOPE_TEST_END
