// Graphviz layout of ViewGraphs: boxes do not overlap, every edge is a bezier with at least 4
// control points and an arrowhead, clusters frame their items, a graph opens as deep as it
// reads fitted, expanding one group keeps the others, region hulls enclose their items; the
// SVG writer and Graphviz's PNG renderer write well-formed files.
#include "core/graph/graph_builder.h"
#include "core/layout/graph_layout.h"
#include "core/layout/readable_opening.h"
#include "core/layout/region_hulls.h"
#include "core/layout/svg_writer.h"
#include "tests/data/make_large_graph.h"
#include "tests/test_file.h"

#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <fstream>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using namespace fxs::layout;

namespace {

GraphPtr loadFixture(const char* relative)
{
    return testdata::loadGraphFile(std::string(FXSCOPE_TEST_DATA) + relative);
}

// A diamond with one annotated pair: x -> a -> (b, c) -> d -> output.
GraphPtr diamond()
{
    GraphBuilder bld;
    const NodeId x = bld.placeholder("x");
    const NodeId a = bld.call("a", "aten::mm.default", {Argument::ref(x), Argument::ref(x)});
    const NodeId b = bld.call("b", "aten::relu.default", {Argument::ref(a)});
    const NodeId c = bld.call("c", "aten::sum.default", {Argument::ref(a)});
    const NodeId d = bld.call("d", "aten::add.Tensor", {Argument::ref(b), Argument::ref(c)});
    Annotation ann;
    ann.entries = {{"compile_with_inductor", "0"}};
    bld.node(b).annotation = ann;
    bld.node(d).annotation = ann;
    bld.output({Argument::ref(d)});
    return *bld.build();
}

bool overlaps(const ItemBox& p, const ItemBox& q)
{
    return std::abs(p.center.x - q.center.x) * 2 < (p.width + q.width) - 0.5 &&
           std::abs(p.center.y - q.center.y) * 2 < (p.height + q.height) - 0.5;
}

void checkGeometry(const LayoutResult& r)
{
    QCOMPARE(r.boxes.size(), r.visible.items.size());
    QCOMPARE(r.edges.size(), r.visible.edges.size());
    for (std::size_t i = 0; i < r.boxes.size(); ++i) {
        const ItemBox& b = r.boxes[i];
        QVERIFY(b.width > 0 && b.height > 0);
        QVERIFY(b.center.x - b.width / 2 >= r.bbox.x0 - 1);
        QVERIFY(b.center.x + b.width / 2 <= r.bbox.x1 + 1);
        QVERIFY(b.center.y - b.height / 2 >= r.bbox.y0 - 1);
        QVERIFY(b.center.y + b.height / 2 <= r.bbox.y1 + 1);
        for (std::size_t j = i + 1; j < r.boxes.size(); ++j) {
            QVERIFY2(!overlaps(b, r.boxes[j]),
                     qPrintable(QStringLiteral("items %1 and %2 overlap").arg(i).arg(j)));
        }
    }
    for (const EdgePath& e : r.edges) {
        QVERIFY(e.points.size() >= 4);
        QCOMPARE((e.points.size() - 1) % 3, std::size_t(0)); // p0 + 3 per cubic segment
        QVERIFY(e.hasArrowEnd);
    }
}

} // namespace

class TestGraphLayout : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void laysOutSmallGraph()
    {
        ViewGraph v(diamond());
        auto r = layoutViewGraph(v);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        checkGeometry(*r);
        QCOMPARE(r->boxes.size(), std::size_t(6));
        QCOMPARE(r->edges.size(), std::size_t(6)); // x->a, a->b, a->c, b->d, c->d, d->output
        // rankdir TB with y up: a producer sits above its users.
        const auto& vis = r->visible;
        const double yx = r->boxes[vis.itemOfNode[0]].center.y;
        const double ya = r->boxes[vis.itemOfNode[1]].center.y;
        const double yd = r->boxes[vis.itemOfNode[4]].center.y;
        QVERIFY(yx > ya && ya > yd);
        // The edge starts at its tail box and the arrow tip reaches the head box.
        for (std::size_t i = 0; i < vis.edges.size(); ++i) {
            const ItemBox& head = r->boxes[vis.edges[i].to];
            const Point tip = r->edges[i].arrowEnd;
            QVERIFY(std::abs(tip.x - head.center.x) <= head.width / 2 + 2);
            QVERIFY(std::abs(tip.y - head.center.y) <= head.height / 2 + 2);
        }
    }

    void regionHullEnclosesAnnotatedItems()
    {
        ViewGraph v(diamond());
        auto r = layoutViewGraph(v);
        QVERIFY(r.ok());
        // b and d are annotated and joined by the edge b->d: one region.
        QCOMPARE(r->regions.size(), std::size_t(1));
        const RegionHull& h = r->regions[0];
        QCOMPARE(h.value, std::string("0"));
        QCOMPARE(h.items.size(), std::size_t(2));
        for (std::uint32_t item : h.items) {
            const Point c = r->boxes[item].center;
            // Inside a convex CCW polygon: left of (or on) every edge.
            for (std::size_t k = 0; k < h.polygon.size(); ++k) {
                const Point& p = h.polygon[k];
                const Point& q = h.polygon[(k + 1) % h.polygon.size()];
                QVERIFY((q.x - p.x) * (c.y - p.y) - (q.y - p.y) * (c.x - p.x) >= 0);
            }
        }
    }

    void convexHullOfSquareDropsInteriorPoints()
    {
        const auto hull = convexHull({{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 1}, {1, 0}});
        QCOMPARE(hull.size(), std::size_t(4));
    }

    // A chain of 50 nodes in five source scopes of 10 (51 ranks: the view's rank limit keeps
    // it expanded) draws taller than a 1500 × 800 window reads fitted; layoutReadable
    // collapses the tallest scopes until the fitted zoom is at least 0.55. The diamond reads
    // expanded and is laid out as it is.
    void opensAsDeepAsItReadsFitted()
    {
        GraphBuilder bld;
        NodeId prev = bld.placeholder("x");
        for (int i = 0; i < 50; ++i) {
            prev = bld.call("n" + std::to_string(i), "aten::relu.default", {Argument::ref(prev)});
            SourceLoc at;
            at.file = "/m/model.py";
            at.line = 10 + i / 10;
            at.function = "block" + std::to_string(i / 10);
            bld.node(prev).source = at;
        }
        bld.output({Argument::ref(prev)});
        ViewGraph v(*bld.build());
        const std::size_t groups = v.expandedCount();
        QVERIFY(groups >= 5);
        const FitTarget target{1500, 800, 0.55};
        auto whole = layoutViewGraph(v);
        QVERIFY(whole.ok());
        QVERIFY(fittedScale(whole->bbox, target) < 0.55);
        auto opened = layoutReadable(v, {}, target);
        QVERIFY(opened.ok());
        checkGeometry(*opened);
        QVERIFY(fittedScale(opened->bbox, target) >= 0.55);
        QVERIFY(v.expandedCount() < groups);
        QVERIFY(v.expandedCount() > 0); // not more than needed: some scopes stay open

        ViewGraph small(diamond());
        const std::size_t before = small.expandedCount();
        auto d = layoutReadable(small, {}, target);
        QVERIFY(d.ok());
        QCOMPARE(small.expandedCount(), before);
        QCOMPARE(d->visible.items.size(), small.visible().items.size());
    }

    void clustersFrameExpandedGroups()
    {
        GraphPtr g = loadFixture("/fixtures/graphs/gpt2_annotated_fw.txt");
        QVERIFY(g);
        ViewGraph v(g);
        v.expandAll();
        auto r = layoutViewGraph(v);
        QVERIFY(r.ok());
        checkGeometry(*r);
        QVERIFY(!r->clusters.empty());
        for (std::size_t i = 0; i < r->visible.items.size(); ++i) {
            const GroupId cl = r->visible.items[i].cluster;
            if (cl == kRootGroup) {
                continue;
            }
            const auto it = std::find_if(r->clusters.begin(), r->clusters.end(),
                                         [&](const ClusterBox& c) { return c.group == cl; });
            QVERIFY(it != r->clusters.end());
            const ItemBox& b = r->boxes[i];
            QVERIFY(b.center.x > it->rect.x0 && b.center.x < it->rect.x1);
            QVERIFY(b.center.y > it->rect.y0 && b.center.y < it->rect.y1);
        }
        // The MLPs carry compile_with_inductor: 0; a hull never spans two frames.
        QVERIFY(!r->regions.empty());
        for (const RegionHull& h : r->regions) {
            for (std::uint32_t item : h.items) {
                QCOMPARE(r->visible.items[item].cluster, r->visible.items[h.items[0]].cluster);
                QCOMPARE(r->visible.items[item].region, std::string("0"));
            }
        }
    }

    void collapsedGpt12BackwardAndExpandKeepsOthers()
    {
        GraphPtr g = loadFixture("/fixtures/graphs/gpt12_train_bw.txt");
        QVERIFY(g);
        ViewGraph v(g);
        auto r = layoutViewGraph(v);
        QVERIFY(r.ok());
        QVERIFY(r->visible.items.size() < 100);
        checkGeometry(*r);
        // Expand the first scope group; every other collapsed group stays one item.
        std::vector<GroupId> before;
        for (const VisibleItem& item : r->visible.items) {
            if (item.isGroup) {
                before.push_back(item.index);
            }
        }
        QVERIFY(before.size() > 2);
        const GroupId opened = before[1];
        v.setExpanded(opened, true);
        auto r2 = layoutViewGraph(v);
        QVERIFY(r2.ok());
        checkGeometry(*r2);
        std::vector<GroupId> after;
        for (const VisibleItem& item : r2->visible.items) {
            if (item.isGroup) {
                after.push_back(item.index);
            }
        }
        before.erase(before.begin() + 1);
        // The opened group's own subgroups (if any) are new items; the rest are unchanged.
        std::vector<GroupId> kept;
        for (GroupId id : after) {
            if (v.group(id).parent != opened) {
                kept.push_back(id);
            }
        }
        QCOMPARE(kept, before);
        QCOMPARE(r2->clusters.size(), std::size_t(1));
        QCOMPARE(r2->clusters[0].group, opened);
    }

    void svgWriterWritesWellFormedDocument()
    {
        ViewGraph v(diamond());
        auto r = layoutViewGraph(v);
        QVERIFY(r.ok());
        const std::string svg = layoutToSvg(*r, v);
        QXmlStreamReader xml(QByteArray::fromStdString(svg));
        int nodes = 0;
        int edges = 0;
        bool root = false;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                root = root || xml.name() == QLatin1String("svg");
                const auto cls = xml.attributes().value(QLatin1String("class"));
                nodes += cls == QLatin1String("node") ? 1 : 0;
                edges += cls == QLatin1String("edge") ? 1 : 0;
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(root);
        QCOMPARE(nodes, 6);
        QCOMPARE(edges, 6);
        QVERIFY(svg.find("class=\"region\"") != std::string::npos);
    }

    void graphvizRendersPng()
    {
        QTemporaryDir dir;
        ViewGraph v(diamond());
        const std::string path = dir.filePath(QStringLiteral("d.png")).toStdString();
        const Status s = renderWithGraphviz(v, {}, "png", path);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().toString().c_str());
        std::ifstream in(path, std::ios::binary);
        char magic[8] = {};
        in.read(magic, 8);
        QCOMPARE(QByteArray(magic + 1, 3), QByteArray("PNG"));
        const Status bad = renderWithGraphviz(v, {}, "no-such-format", path);
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().code, ErrorCode::Unsupported);
    }

    void cancelledBeforeStart()
    {
        ViewGraph v(diamond());
        LayoutOptions o;
        o.cancel = CancelToken();
        o.cancel.cancel();
        auto r = layoutViewGraph(v, o);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "tst_graph_layout.moc"

FXSCOPE_TEST_END
