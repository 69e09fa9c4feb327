// Regions in the app (offscreen MainWindow): a graph's `# Annotation:` regions show as hulls and
// panel rows when it opens; create from the view's selection → Edit › Undo/Redo; a cycle is
// refused and its path highlighted; panel rows select nodes in the view; auto-propose; a
// project saved, closed and reopened restores the regions. Counts checked by hand against
// gpt2_annotated_fw.txt: two annotated MLP blocks (lines 50–66 and 112–128, value 0), split by
// the unannotated attention between them, 14 nodes each.
#include "tests/test_file.h"
#include "tests/unit/app/main_window_waits.h"

#include "app/gui/graph_area.h"
#include "app/gui/main_window.h"
#include "app/gui/region_controller.h"
#include "core/partition/project_file.h"
#include "views/graph/graph_items.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/panels/region_commands.h"
#include "views/panels/regions_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::views;
using fxs::app::MainWindow;
using fxs::test::openAndWait;
using fxs::test::nodeIds;
using fxs::test::waitForLayout;

namespace {

const QString kGpt2 = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/graphs/gpt2_annotated_fw.txt");

// Regions drawn: distinct region ids among the hulls (a region spanning two frames has two).
std::set<QString> hullRegions(const GraphView* view)
{
    std::set<QString> ids;
    for (const HullItem* h : view->scene()->hullItems()) {
        for (const QString& id : h->regionIds()) {
            ids.insert(id);
        }
    }
    return ids;
}

QAction* actionWithShortcut(QWidget* root, const QKeySequence& key)
{
    for (QAction* a : root->findChildren<QAction*>()) {
        if (a->shortcut() == key) {
            return a;
        }
    }
    return nullptr;
}

std::vector<std::string> nodeNames(const graph::Graph& g, const partition::Region& r)
{
    std::vector<std::string> names;
    for (graph::NodeId id : r.nodes) {
        names.push_back(g.node(id).name);
    }
    return names;
}

} // namespace

class TestRegionController : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fxscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_region_controller"));
    }

    void annotationRegionsShowWhenAGraphOpens()
    {
        MainWindow w;
        QVERIFY(w.findChild<QDockWidget*>(QStringLiteral("regionsDock")) != nullptr);
        QVERIFY(w.regions()->currentDocument() == nullptr);
        QSignalSpy docChanged(w.regions(), &app::RegionController::currentDocumentChanged);
        QVERIFY(openAndWait(w, {kGpt2}));
        RegionDocument* doc = w.regions()->currentDocument();
        QVERIFY(doc != nullptr);
        QCOMPARE(docChanged.count(), 1);
        QCOMPARE(w.regions()->document(w.currentGraph()), doc);
        QCOMPARE(doc->regions().size(), std::size_t(2));
        QCOMPARE(doc->regions()[0].nodeCount(), std::size_t(14));
        QCOMPARE(doc->regions()[1].nodeCount(), std::size_t(14));
        QVERIFY(doc->regions()[0].contains(nodeIds(w, {"gelu"})[0]));
        QVERIFY(doc->regions()[1].contains(nodeIds(w, {"add_5"})[0]));
        QCOMPARE(w.regions()->panel()->rowCount(), 2);
        QVERIFY(waitForLayout(w.graphView()));
        QCOMPARE(hullRegions(w.graphView()),
                 (std::set<QString>{QStringLiteral("r0"), QStringLiteral("r1")}));
        // The cache-state colouring entry point (the compile state layer over the regions).
        w.graphView()->decorations()->setRegionTint(DecorationLayer::CompileState,
                                                    QStringLiteral("r1"), QColor(Qt::green));
        QCOMPARE(w.graphView()->scene()->hullItem(QStringLiteral("r1"))->tint(),
                 QColor(Qt::green));
    }

    void createFromSelectionThenUndoRedo()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGpt2}));
        RegionDocument* doc = w.regions()->currentDocument();
        QVERIFY(doc);
        // t_5 → addmm_3: the attention output projection, outside both regions.
        w.graphView()->setSelectedNodes(nodeIds(w, {"t_5", "addmm_3"}));
        QAction* create = actionWithShortcut(&w, QKeySequence(QStringLiteral("Ctrl+R")));
        QVERIFY(create != nullptr);
        create->trigger();
        QCOMPARE(w.regions()->panel()->rowCount(), 3);
        QCOMPARE(doc->regions().back().nodeCount(), std::size_t(2));
        QVERIFY(waitForLayout(w.graphView()));
        QCOMPARE(hullRegions(w.graphView()).size(), std::size_t(3));
        QPushButton* panelUndo = nullptr;
        for (auto* b : w.regions()->panel()->findChildren<QPushButton*>()) {
            panelUndo = b->text() == QStringLiteral("Undo") ? b : panelUndo;
        }
        QVERIFY(panelUndo && panelUndo->isEnabled());

        QAction* undo = actionWithShortcut(&w, QKeySequence::Undo);
        QAction* redo = actionWithShortcut(&w, QKeySequence::Redo);
        QVERIFY(undo && redo);
        QVERIFY(undo->isEnabled());
        undo->trigger();
        QCOMPARE(w.regions()->panel()->rowCount(), 2);
        QCOMPARE(hullRegions(w.graphView()).size(), std::size_t(2));
        QVERIFY(redo->isEnabled());
        redo->trigger();
        QCOMPARE(w.regions()->panel()->rowCount(), 3);
    }

    void refusedCycleHighlightsItsPath()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGpt2}));
        QVERIFY(waitForLayout(w.graphView()));
        // native_layer_norm_2 starts the attention block and add_4 ends it: a region of just
        // these two would be left and re-entered through the attention nodes between them.
        w.graphView()->setSelectedNodes(nodeIds(w, {"native_layer_norm_2", "add_4"}));
        QVERIFY(!w.regions()->createFromSelection());
        QCOMPARE(w.regions()->panel()->rowCount(), 2);
        QVERIFY(!w.regions()->dock()->isHidden());
        bool saysCycle = false;
        for (auto* label : w.regions()->panel()->findChildren<QLabel*>()) {
            saysCycle = saysCycle || label->text().contains(QStringLiteral("cycle"));
        }
        QVERIFY(saysCycle);
        QVERIFY(waitForLayout(w.graphView())); // the groups holding the path open
        // Every path between them runs through getitem_10 and transpose_11 (fixture text).
        for (const char* name : {"getitem_10", "transpose_11"}) {
            auto* item = w.graphView()->scene()->nodeItem(nodeIds(w, {name})[0]);
            QVERIFY2(item && item->isMarkedHighlighted(), name);
        }
        const auto* gelu = w.graphView()->scene()->nodeItem(nodeIds(w, {"gelu"})[0]);
        QVERIFY(!gelu || !gelu->isMarkedHighlighted()); // off the path (perhaps not drawn)
        // The next accepted edit clears the refusal's highlight.
        w.graphView()->setSelectedNodes(nodeIds(w, {"t_5", "addmm_3"}));
        QVERIFY(w.regions()->createFromSelection());
        QVERIFY(!w.graphView()->scene()->nodeItem(nodeIds(w, {"getitem_10"})[0])
                     ->isMarkedHighlighted());
    }

    void growToRegionFromTheCurrentNode()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGpt2}));
        RegionDocument* doc = w.regions()->currentDocument();
        // gelu is inside r0 already: nothing to grow, refused with gelu highlighted.
        w.graphView()->selectNode(nodeIds(w, {"gelu"})[0]);
        QVERIFY(!w.regions()->growToRegion());
        QCOMPARE(doc->regions().size(), std::size_t(2));
        // add_3 (the qkv bias add in the attention) is a pointwise op in no region.
        const graph::NodeId add3 = nodeIds(w, {"add_3"})[0];
        w.graphView()->selectNode(add3);
        QVERIFY(w.regions()->growToRegion());
        QCOMPARE(doc->regions().size(), std::size_t(3));
        const partition::Region& grown = doc->regions().back();
        QVERIFY(grown.contains(add3));
        QVERIFY(grown.nodeCount() > 1);
        QCOMPARE(w.graphView()->selectedNodes(), grown.nodes); // the new region is selected
    }

    void panelAndViewSelectionFollowEachOther()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGpt2}));
        auto* table = w.regions()->panel()->findChild<QTableWidget*>();
        QVERIFY(table);
        table->selectRow(1);
        const RegionDocument* doc = w.regions()->currentDocument();
        QCOMPARE(w.graphView()->selectedNodes(), doc->regions()[1].nodes);
        // Delete acts on the row picked in the panel.
        QVERIFY(w.regions()->deleteSelected());
        QCOMPARE(doc->regions().size(), std::size_t(1));
        QCOMPARE(doc->regions()[0].id, std::string("r0"));
    }

    void mergeSplitAndAutoPropose()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, {kGpt2}));
        RegionDocument* doc = w.regions()->currentDocument();
        // Merging the two MLP blocks would close a cycle through the attention: refused.
        w.graphView()->setSelectedNodes(nodeIds(w, {"gelu", "gelu_1"}));
        QVERIFY(!w.regions()->mergeSelected());
        QCOMPARE(doc->regions().size(), std::size_t(2));
        // Splitting add_2 (the block's last node) off r0 leaves two acyclic parts.
        w.graphView()->setSelectedNodes(nodeIds(w, {"add_2"}));
        QVERIFY(w.regions()->splitOffSelection());
        QCOMPARE(doc->regions().size(), std::size_t(3));
        const std::size_t before = doc->regions().size();
        QVERIFY(w.regions()->autoPropose());
        QVERIFY(doc->regions().size() > before);
        // Hand-made and annotated regions are kept as they were.
        QCOMPARE(doc->regions()[0].id, std::string("r0"));
        QCOMPARE(doc->regions()[0].nodeCount(), std::size_t(13));
        doc->undoStack()->undo();
        QCOMPARE(doc->regions().size(), before);
    }

    // Auto-propose leaves out what `run --compiled --auto` leaves out: the views and adds that
    // sum matrix products (a·w1 + b·w2 + c·w3ᵀ, tests/data/compile/matmul_sums.txt's tree,
    // here followed by a chain), which the compiled run makes one product. By hand: the chain
    // mul, relu, neg is what remains to fuse; `partition --auto` alone would take the tree too.
    void autoProposeLeavesTheProductSumsOut()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sums.txt"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                "def forward(self, a: \"f32[4, 6][6, 1]cpu\", b: \"f32[4, 2][2, 1]cpu\", "
                "w1: \"f32[6, 8][8, 1]cpu\", w2: \"f32[2, 8][8, 1]cpu\"):\n"
                "    mm: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.mm.default(a, w1)\n"
                "    view: \"f32[2, 2, 8][16, 8, 1]cpu\" = "
                "torch.ops.aten.view.default(mm, [2, 2, 8])\n"
                "    mm_1: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.mm.default(b, w2)\n"
                "    view_1: \"f32[2, 2, 8][16, 8, 1]cpu\" = "
                "torch.ops.aten.view.default(mm_1, [2, 2, 8])\n"
                "    add: \"f32[2, 2, 8][16, 8, 1]cpu\" = torch.ops.aten.add.Tensor(view, view_1)\n"
                "    mul: \"f32[2, 2, 8][16, 8, 1]cpu\" = torch.ops.aten.mul.Tensor(add, 2)\n"
                "    relu: \"f32[2, 2, 8][16, 8, 1]cpu\" = torch.ops.aten.relu.default(mul)\n"
                "    neg: \"f32[2, 2, 8][16, 8, 1]cpu\" = torch.ops.aten.neg.default(relu)\n"
                "    return (neg,)\n");
        }
        MainWindow w;
        QVERIFY(openAndWait(w, {path}));
        RegionDocument* doc = w.regions()->currentDocument();
        QVERIFY(doc);
        QVERIFY(doc->regions().empty());
        QVERIFY(w.regions()->autoPropose());
        QCOMPARE(doc->regions().size(), std::size_t(1));
        QCOMPARE(nodeNames(*doc->graph(), doc->regions()[0]),
                 (std::vector<std::string>{"mul", "relu", "neg"}));
    }

    void projectSaveCloseOpenRestoresRegions()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("gpt2.fxscope"));
        std::vector<std::vector<std::string>> saved;
        {
            MainWindow w;
            QVERIFY(openAndWait(w, {kGpt2}));
            RegionDocument* doc = w.regions()->currentDocument();
            QVERIFY(doc->deleteRegion(QStringLiteral("r1")));
            w.graphView()->setSelectedNodes(nodeIds(w, {"t_5", "addmm_3"}));
            QVERIFY(w.regions()->createFromSelection());
            for (const auto& r : doc->regions()) {
                saved.push_back(nodeNames(*doc->graph(), r));
            }
            w.graphView()->setSelectedNodes(nodeIds(w, {"gelu", "add_5"})); // view state
            QVERIFY(w.regions()->saveProject(project));
            // Close All drops the document with the graph.
            QAction* closeAll = actionWithShortcut(&w, QKeySequence::Close);
            QVERIFY(closeAll);
            closeAll->trigger();
            QVERIFY(w.regions()->currentDocument() == nullptr);
            QCOMPARE(w.regions()->panel()->rowCount(), 0);

            QSignalSpy opened(w.regions(), &app::RegionController::projectOpened);
            QVERIFY(w.regions()->openProject(project));
            QVERIFY(opened.count() == 1 || opened.wait(60000));
            QCOMPARE(opened.first().at(1).toInt(), 0); // nothing to re-match
            RegionDocument* reopened = w.regions()->currentDocument();
            QVERIFY(reopened);
            QCOMPARE(reopened->regions().size(), saved.size());
            for (std::size_t i = 0; i < saved.size(); ++i) {
                QCOMPARE(nodeNames(*reopened->graph(), reopened->regions()[i]), saved[i]);
            }
            QCOMPARE(w.regions()->panel()->rowCount(), 2);
            QCOMPARE(w.graphView()->selectedNodes(), nodeIds(w, {"gelu", "add_5"}));
        }
        // A fresh window, given the project as `fxscope x.fxscope` or a drop gives it: the
        // project loads its source first.
        MainWindow w2;
        QSignalSpy opened(w2.regions(), &app::RegionController::projectOpened);
        w2.openPaths({project});
        QVERIFY(opened.wait(60000));
        QCOMPARE(w2.regions()->currentDocument()->regions().size(), saved.size());
        QCOMPARE(w2.graphView()->graph(), w2.workspace()->graph(w2.currentGraph()));
    }

    void rematchProblemsGoToTheProblemsPanel()
    {
        QTemporaryDir dir;
        // A project whose region names a node the graph does not have.
        partition::Project p;
        p.sourcePath = kGpt2.toStdString();
        p.sourceSha256 = "0000"; // stale digest: the source "changed"
        p.regions.push_back({"r0", "", std::nullopt, "", {"t_5", "addmm_3", "no_such_node"}});
        const QString path = dir.filePath(QStringLiteral("stale.fxscope"));
        QVERIFY(partition::saveProject(path.toStdString(), p).ok());
        MainWindow w;
        QSignalSpy opened(w.regions(), &app::RegionController::projectOpened);
        QVERIFY(w.regions()->openProject(path));
        QVERIFY(opened.wait(60000));
        QCOMPARE(opened.first().at(1).toInt(), 2); // source changed + one missing node
        const auto& items = w.workspace()->diagnostics().items();
        const bool named = std::any_of(items.begin(), items.end(), [](const Diagnostic& d) {
            return d.message.find("no_such_node") != std::string::npos;
        });
        QVERIFY(named);
        QCOMPARE(w.regions()->currentDocument()->regions().size(), std::size_t(1));
        QCOMPARE(w.regions()->currentDocument()->regions()[0].nodeCount(), std::size_t(2));
    }

    // A project that cannot be opened (a part of the wrong type) is refused with the reason,
    // and the Problems dock keeps it: the file, what went wrong, expected and found.
    void unreadableProjectGoesToProblems()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.fxscope"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"schema": 1, "source": {"path": 5}})");
        f.close();
        MainWindow w;
        QVERIFY(!w.regions()->openProject(path));
        const auto& items = w.workspace()->diagnostics().items();
        QCOMPARE(items.size(), std::size_t(1));
        QCOMPARE(items[0].file, path.toStdString());
        QVERIFY2(items[0].message.find("could not open the project") != std::string::npos &&
                     items[0].message.find("source.path") != std::string::npos,
                 items[0].message.c_str());
        QCOMPARE(items[0].expected, std::string("a JSON string"));
        QCOMPARE(items[0].found, std::string("5"));
    }
};

QTEST_MAIN(TestRegionController)
#include "tst_region_controller.moc"

FXSCOPE_TEST_END
