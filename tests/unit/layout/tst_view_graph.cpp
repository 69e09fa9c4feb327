// ViewGraph: grouping by source scopes, files and chunks; collapse/expand state; visible items
// and aggregated edges; region values. Expected structures are counted by hand from the small
// graphs built here and from the fixture text (grep counts noted next to each number).
#include "core/graph/graph_builder.h"
#include "core/layout/view_graph.h"
#include "tests/data/make_large_graph.h"
#include "tests/test_file.h"

#include <QtTest>


FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using namespace fxs::layout;

namespace {

SourceLoc loc(std::string file, int line, std::string fn)
{
    SourceLoc s;
    s.file = std::move(file);
    s.line = line;
    s.function = std::move(fn);
    return s;
}

// x, y, w placeholders; run A (3 nodes, forward:10), run B (2 nodes, mlp:20), run A again
// (2 nodes), then output. Chain: each node uses the previous one (and a placeholder).
GraphPtr scopedGraph()
{
    GraphBuilder b;
    const NodeId x = b.placeholder("x");
    const NodeId y = b.placeholder("y");
    const NodeId w = b.placeholder("w");
    NodeId prev = x;
    const auto add = [&](const std::string& name, const SourceLoc& s, NodeId extra) {
        prev = b.call(name, "aten::add.Tensor", {Argument::ref(prev), Argument::ref(extra)});
        b.node(prev).source = s;
        return prev;
    };
    const SourceLoc a = loc("/m/model.py", 10, "forward");
    const SourceLoc bb = loc("/m/model.py", 20, "mlp");
    add("a0", a, y);
    add("a1", a, y);
    add("a2", a, w);
    add("b0", bb, w);
    add("b1", bb, x);
    add("c0", a, y);
    add("c1", a, y);
    b.output({Argument::ref(prev)});
    return *b.build();
}

GraphPtr chainWithoutSources(int calls)
{
    GraphBuilder b;
    NodeId prev = b.placeholder("x");
    for (int i = 0; i < calls; ++i) {
        prev = b.call("n" + std::to_string(i), "aten::relu.default", {Argument::ref(prev)});
    }
    b.output({Argument::ref(prev)});
    return *b.build();
}

GraphPtr loadFixture(const char* relative)
{
    return testdata::loadGraphFile(std::string(FXSCOPE_TEST_DATA) + relative);
}

std::vector<ViewChild> childrenOf(const ViewGraph& v, GroupId g)
{
    return v.group(g).children;
}

} // namespace

class TestViewGraph : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void groupsConsecutiveRunsOfOneScope()
    {
        ViewGraph v(scopedGraph());
        // root: inputs, A(a0..a2), B(b0,b1), A(c0,c1), output
        const auto root = childrenOf(v, kRootGroup);
        QCOMPARE(root.size(), std::size_t(5));
        QVERIFY(root[0].isGroup && root[1].isGroup && root[2].isGroup && root[3].isGroup);
        QVERIFY(!root[4].isGroup);
        QCOMPARE(v.group(root[0].index).kind, GroupKind::Inputs);
        QCOMPARE(v.group(root[0].index).nodeCount(), 3u);
        QCOMPARE(v.group(root[1].index).kind, GroupKind::Scope);
        QCOMPARE(v.group(root[1].index).label, std::string("forward · model.py:10"));
        QCOMPARE(v.group(root[1].index).nodeCount(), 3u);
        QCOMPARE(v.group(root[2].index).label, std::string("mlp · model.py:20"));
        QCOMPARE(v.group(root[3].index).nodeCount(), 2u);
        // Two runs of the same scope are two groups (graph order is kept).
        QVERIFY(root[1].index != root[3].index);
        QCOMPARE(v.groupOf(v.graph().find("b1").value()), root[2].index);
        QCOMPARE(v.groupOf(v.graph().outputNode()), kRootGroup);
    }

    void smallGraphsOpenExpandedLargeOnesCollapsed()
    {
        ViewGraph open(scopedGraph());
        QCOMPARE(open.visible().items.size(), std::size_t(11)); // every node
        GroupingOptions o;
        o.collapseAbove = 5;
        ViewGraph closed(scopedGraph(), o);
        const VisibleGraph vis = closed.visible();
        QCOMPARE(vis.items.size(), std::size_t(5));
        QCOMPARE(closed.expandedCount(), std::size_t(0));
    }

    // Readable when fitted, not merely small: a chain of 100 nodes (under collapseAbove) would
    // draw as a sliver 100 ranks tall, so it opens collapsed; a row of 30 parameters opens
    // collapsed while the node using them is drawn.
    void tallOrWideSmallGraphsOpenCollapsed()
    {
        GraphBuilder b;
        NodeId prev = b.placeholder("x");
        for (int i = 0; i < 100; ++i) {
            prev = b.call("n" + std::to_string(i), "aten::relu.default", {Argument::ref(prev)});
            b.node(prev).source = loc("/m/model.py", 10 + i / 10, "layer" + std::to_string(i / 10));
        }
        b.output({Argument::ref(prev)});
        const GraphPtr chain = *b.build();
        ViewGraph tall(chain);
        QCOMPARE(tall.expandedCount(), std::size_t(0));
        GroupingOptions taller;
        taller.maxExpandedRanks = 200;
        QVERIFY(ViewGraph(chain, taller).expandedCount() > 0);

        GraphBuilder p;
        std::vector<Argument> params;
        for (int i = 0; i < 30; ++i) {
            params.push_back(Argument::ref(p.placeholder("p" + std::to_string(i))));
        }
        const NodeId stack = p.call("s", "aten::stack.default", {Argument::list(params)});
        p.output({Argument::ref(stack)});
        ViewGraph wide(*p.build());
        const VisibleGraph vis = wide.visible();
        const auto drawn = [&](bool group, std::uint32_t index) {
            return std::any_of(vis.items.begin(), vis.items.end(), [&](const VisibleItem& it) {
                return it.isGroup == group && it.index == index;
            });
        };
        QCOMPARE(vis.items.size(), std::size_t(3)); // inputs (collapsed), s, output
        QVERIFY(drawn(false, stack));
        // The small graphs above stay open: 7 ranks, 3 inputs.
        QCOMPARE(ViewGraph(scopedGraph()).visible().items.size(), std::size_t(11));
    }

    void aggregatesEdgesBetweenCollapsedGroups()
    {
        GroupingOptions o;
        o.collapseAbove = 0;
        ViewGraph v(scopedGraph(), o);
        const VisibleGraph vis = v.visible();
        // Items: 0 inputs, 1 A, 2 B, 3 A', 4 output.
        std::map<std::pair<int, int>, int> counts;
        for (const VisibleEdge& e : vis.edges) {
            counts[{int(e.from), int(e.to)}] = e.count;
        }
        // inputs->A: a0(x,y) a1(y) a2(w) = 4; inputs->B: b0(w) b1(x) = 2; inputs->A': c0 c1 = 2
        QCOMPARE(counts.at({0, 1}), 4);
        QCOMPARE(counts.at({0, 2}), 2);
        QCOMPARE(counts.at({0, 3}), 2);
        QCOMPARE(counts.at({1, 2}), 1); // a2 -> b0
        QCOMPARE(counts.at({2, 3}), 1); // b1 -> c0
        QCOMPARE(counts.at({3, 4}), 1); // c1 -> output
        QCOMPARE(counts.size(), std::size_t(6));
        // An edge into a collapsed group still names real nodes to jump to.
        for (const VisibleEdge& e : vis.edges) {
            if (e.from == 1 && e.to == 2) {
                QCOMPARE(v.graph().node(e.fromNode).name, std::string("a2"));
                QCOMPARE(v.graph().node(e.toNode).name, std::string("b0"));
            }
        }
    }

    void chunksGraphsWithoutSources()
    {
        // 1 placeholder + 130 calls + output = 132 top-level children > 60 -> 3 chunks of 44.
        ViewGraph v(chainWithoutSources(130));
        const auto root = childrenOf(v, kRootGroup);
        QCOMPARE(root.size(), std::size_t(3));
        NodeId expectedFirst = 0;
        for (const ViewChild& c : root) {
            QVERIFY(c.isGroup);
            const Group& g = v.group(c.index);
            QCOMPARE(g.kind, GroupKind::Chunk);
            QCOMPARE(g.nodeCount(), 44u);
            QCOMPARE(g.first, expectedFirst); // contiguous, in graph order
            expectedFirst = g.end;
        }
        QCOMPARE(v.group(root[0].index).label, std::string("x … n42"));
    }

    void nestsFilesAboveScopes()
    {
        GraphBuilder b;
        NodeId prev = b.placeholder("x");
        const char* files[] = {"/p/a.py", "/p/a.py", "/p/a.py", "/p/a.py", "/p/b.py", "/p/b.py"};
        const int lines[] = {1, 1, 2, 2, 5, 5};
        for (int i = 0; i < 6; ++i) {
            prev = b.call("n" + std::to_string(i), "aten::neg.default", {Argument::ref(prev)});
            b.node(prev).source = loc(files[i], lines[i], "f");
        }
        b.output({Argument::ref(prev)});
        ViewGraph v(*b.build());
        const auto root = childrenOf(v, kRootGroup);
        // x (single placeholder: its one-node group dissolves), a.py, b.py, output
        QCOMPARE(root.size(), std::size_t(4));
        QVERIFY(!root[0].isGroup);
        const Group& a = v.group(root[1].index);
        QCOMPARE(a.kind, GroupKind::File);
        QCOMPARE(a.label, std::string("a.py"));
        QCOMPARE(a.children.size(), std::size_t(2)); // scopes a.py:1 and a.py:2
        QCOMPARE(v.group(a.children[0].index).depth, 2);
        // b.py holds one scope: the file level adds nothing and is lifted away.
        const Group& bscope = v.group(root[2].index);
        QCOMPARE(bscope.kind, GroupKind::Scope);
        QCOMPARE(bscope.label, std::string("f · b.py:5"));
        QCOMPARE(bscope.children.size(), std::size_t(2));
        QVERIFY(!bscope.children[0].isGroup);
    }

    void revealAndExpandKeepOtherGroups()
    {
        GroupingOptions o;
        o.collapseAbove = 0;
        ViewGraph v(scopedGraph(), o);
        const NodeId b0 = *v.graph().find("b0");
        QVERIFY(!v.isNodeVisible(b0));
        QVERIFY(v.reveal(b0));
        QVERIFY(!v.reveal(b0)); // nothing left to expand
        QVERIFY(v.isNodeVisible(b0));
        QCOMPARE(v.expandedCount(), std::size_t(1));
        const VisibleGraph vis = v.visible();
        // inputs, A, b0, b1, A', output
        QCOMPARE(vis.items.size(), std::size_t(6));
        QCOMPARE(vis.clusters.size(), std::size_t(1));
        QVERIFY(vis.items[1].isGroup && vis.items[4].isGroup);
        QCOMPARE(vis.items[vis.itemOfNode[b0]].cluster, v.groupOf(b0));
        v.collapseAll();
        QVERIFY(!v.isNodeVisible(b0));
        v.expandAll();
        QCOMPARE(v.visible().items.size(), v.graph().size());
    }

    void regionOfGroupIsSharedValueOnly()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x");
        Annotation ann;
        ann.text = "{'compile_with_inductor': 0}";
        ann.entries = {{"compile_with_inductor", "0"}};
        NodeId prev = x;
        for (int i = 0; i < 4; ++i) {
            prev = b.call("r" + std::to_string(i), "aten::relu.default", {Argument::ref(prev)});
            b.node(prev).source = loc("/m.py", i < 2 ? 1 : 2, "f");
            if (i != 3) {
                b.node(prev).annotation = ann;
            }
        }
        b.output({Argument::ref(prev)});
        GroupingOptions o;
        o.collapseAbove = 0;
        ViewGraph v(*b.build(), o);
        QCOMPARE(v.regionValues(), std::vector<std::string>{"0"});
        const VisibleGraph vis = v.visible();
        // x, group(r0,r1) annotated, group(r2 annotated, r3 not) mixed, output
        QCOMPARE(vis.items.size(), std::size_t(4));
        QCOMPARE(vis.items[1].region, std::string("0"));
        QCOMPARE(vis.items[2].region, std::string());
    }

    void nodeLabels()
    {
        GraphBuilder b;
        TensorMeta m{DType::Float32, {SymInt::of(4), SymInt::symbol("s0")}, std::nullopt,
                     Device{"cuda", 0}};
        const NodeId x = b.placeholder("x", m);
        const NodeId ln = b.call("native_layer_norm", "aten::native_layer_norm.default",
                                 {Argument::ref(x)});
        const NodeId g1 = b.getitem("getitem_1", ln, 1, m);
        b.output({Argument::ref(g1)});
        GraphPtr g = *b.build();
        QCOMPARE(ViewGraph::nodeTitle(g->node(x)), std::string("x"));
        QCOMPARE(ViewGraph::nodeSubtitle(g->node(x)), std::string("f32[4, s0]"));
        QCOMPARE(ViewGraph::nodeTitle(g->node(ln)), std::string("native_layer_norm"));
        QCOMPARE(ViewGraph::nodeSubtitle(g->node(ln)), std::string("tuple"));
        QCOMPARE(ViewGraph::nodeTitle(g->node(g1)), std::string("getitem [1]"));
    }

    void gpt12BackwardOpensCollapsedUnder100Items()
    {
        GraphPtr g = loadFixture("/fixtures/graphs/gpt12_train_bw.txt");
        QVERIFY(g);
        QVERIFY(g->size() > 300);
        ViewGraph v(g);
        const VisibleGraph vis = v.visible();
        QVERIFY2(vis.items.size() < 100, std::to_string(vis.items.size()).c_str());
        // 26 `# File:` comments (grep -c) -> 26 scope runs; the last (models.py:35, x =
        // s.emb(idx)) holds one node, embedding_dense_backward, which stays a plain node.
        std::size_t scopes = 0;
        for (const Group& grp : v.groups()) {
            scopes += grp.kind == GroupKind::Scope ? 1 : 0;
        }
        QCOMPARE(scopes, std::size_t(25));
        const NodeId emb = *g->find("embedding_dense_backward");
        QCOMPARE(v.groupOf(emb), kRootGroup);
        // Every node is shown by exactly one item, and groups cover contiguous node ranges.
        std::size_t covered = 0;
        for (const VisibleItem& item : vis.items) {
            covered += item.isGroup ? v.group(item.index).nodeCount() : 1;
        }
        QCOMPARE(covered, g->size());
    }

    void largeGeneratedGraphOpensWithFileLevels()
    {
        const GraphPtr fw = loadFixture("/fixtures/graphs/gpt12_train_fw.txt");
        const GraphPtr bw = loadFixture("/fixtures/graphs/gpt12_train_bw.txt");
        const GraphPtr big = testdata::makeLargeGraph({fw, bw}, 5000);
        QVERIFY(big);
        QVERIFY(big->size() >= 5000);
        ViewGraph v(big);
        const VisibleGraph vis = v.visible();
        QVERIFY2(vis.items.size() < 100, std::to_string(vis.items.size()).c_str());
        // Copies come from different files: the top level has File groups with scopes inside.
        std::size_t files = 0;
        for (const ViewChild& c : v.group(kRootGroup).children) {
            if (c.isGroup && v.group(c.index).kind == GroupKind::File) {
                ++files;
                QVERIFY(v.group(c.index).children.size() > 1);
            }
        }
        // fw+bw copies alternate until >= 5000 nodes; every copy has one models.py.
        QVERIFY(files >= 4);
        std::size_t covered = 0;
        for (const VisibleItem& item : vis.items) {
            covered += item.isGroup ? v.group(item.index).nodeCount() : 1;
        }
        QCOMPARE(covered, big->size());
    }
};

QTEST_GUILESS_MAIN(TestViewGraph)
#include "tst_view_graph.moc"

FXSCOPE_TEST_END
