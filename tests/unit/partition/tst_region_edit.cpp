// Region edits behind the app's undo commands: create, rename, delete, merge, split and
// grow-to-region, each accepted or refused with the reason and the nodes to highlight.
#include "core/partition/region_edit.h"
#include "partition_test_graphs.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using namespace fxs::partition;
using namespace fxs::partition::testing;

namespace {

struct Chain {
    GraphPtr g = chainGraph();
    NodeId p = kP, a = kA, x = kX, b = kB, c = kC, d = kD, e = kE;
};

Chain chain() { return Chain{}; }

} // namespace

class TestRegionEdit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void createAcceptsAndComputesStats()
    {
        const Chain k = chain();
        const EditResult r = createRegion(*k.g, {}, {k.d, k.b, k.c}, "tail");
        QVERIFY(r.ok());
        QCOMPARE(r.regions->size(), std::size_t(1));
        const Region& reg = r.regions->front();
        QCOMPARE(reg.id, std::string("r0"));
        QCOMPARE(reg.label(), std::string("tail"));
        QCOMPARE(reg.nodes, (std::vector<NodeId>{k.b, k.c, k.d}));
        QCOMPARE(reg.inputs, (std::vector<NodeId>{k.a, k.x}));
        QCOMPARE(reg.outputs, std::vector<NodeId>{k.d});
    }

    void createRefusesCycleWithPath()
    {
        const Chain k = chain();
        const EditResult r = createRegion(*k.g, {}, {k.a, k.b});
        QVERIFY(!r.ok());
        QCOMPARE(r.highlight, (std::vector<NodeId>{k.a, k.x, k.b}));
        QVERIFY(r.refusal.find("a (r0) → x → b (r0)") != std::string::npos);
    }

    void createRefusesInputsOutputAndOverlap()
    {
        const Chain k = chain();
        QVERIFY(!createRegion(*k.g, {}, {}).ok());
        const EditResult withInput = createRegion(*k.g, {}, {k.p, k.a});
        QVERIFY(!withInput.ok());
        QCOMPARE(withInput.highlight, std::vector<NodeId>{k.p});
        QVERIFY(!createRegion(*k.g, {}, {NodeId(k.g->size() - 1)}).ok()); // the output
        const auto first = createRegion(*k.g, {}, {k.c, k.d});
        QVERIFY(first.ok());
        const EditResult overlap = createRegion(*k.g, *first.regions, {k.b, k.c});
        QVERIFY(!overlap.ok());
        QVERIFY(overlap.refusal.find("already in r0") != std::string::npos);
        QCOMPARE(overlap.highlight, std::vector<NodeId>{k.c});
    }

    void createBringsGetitemsAndRefusesOrphans()
    {
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4}));
        const NodeId ln = bld.call("ln", "aten::native_layer_norm.default", {Argument::ref(p)});
        const NodeId g0 = bld.getitem("g0", ln, 0, f32({4}));
        const NodeId g1 = bld.getitem("g1", ln, 1, f32({1}));
        bld.output({Argument::ref(g0), Argument::ref(g1)});
        const auto g = *bld.build();
        const EditResult r = createRegion(*g, {}, {ln});
        QVERIFY(r.ok());
        QCOMPARE(r.regions->front().nodes, (std::vector<NodeId>{ln, g0, g1}));
        const EditResult orphan = createRegion(*g, {}, {g1});
        QVERIFY(!orphan.ok());
        QCOMPARE(orphan.highlight, (std::vector<NodeId>{g1, ln}));
    }

    void refusesCycleThroughAnotherRegion()
    {
        // A = {a1, a2} and B = {b3, b1, b2}: a1 -> b1 enters B, b2 -> a2 leaves it. Neither
        // region has a path of plain nodes that leaves and returns, but together A -> B -> A.
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4}));
        const NodeId a1 = op(bld, "a1", "aten::sin.default", {p});
        const NodeId b3 = op(bld, "b3", "aten::cos.default", {p});
        const NodeId b1 = op(bld, "b1", "aten::add.Tensor", {a1, b3});
        const NodeId b2 = op(bld, "b2", "aten::mul.Tensor", {b3, b3});
        const NodeId a2 = op(bld, "a2", "aten::add.Tensor", {b2, a1});
        bld.output({Argument::ref(a2), Argument::ref(b1)});
        const auto g = *bld.build();
        const auto withA = createRegion(*g, {}, {a1, a2});
        QVERIFY(withA.ok());
        const EditResult r = createRegion(*g, *withA.regions, {b1, b2, b3});
        QVERIFY(!r.ok());
        QCOMPARE(r.highlight, (std::vector<NodeId>{b2, a2, a1, b1}));
        QVERIFY(r.refusal.find("r1 would form a cycle") != std::string::npos);
    }

    void renameAndDelete()
    {
        const Chain k = chain();
        auto regions = *createRegion(*k.g, {}, {k.c, k.d}).regions;
        const auto renamed = renameRegion(regions, "r0", "relu+neg");
        QVERIFY(renamed.ok());
        QCOMPARE(renamed.regions->front().label(), std::string("relu+neg"));
        QVERIFY(!renameRegion(regions, "r9", "x").ok());
        const auto deleted = deleteRegion(regions, "r0");
        QVERIFY(deleted.ok());
        QVERIFY(deleted.regions->empty());
        QVERIFY(!deleteRegion(regions, "r1").ok());
    }

    void mergeAcceptsAndRefuses()
    {
        const Chain k = chain();
        auto regions = *createRegion(*k.g, {}, {k.b}).regions;
        regions = *createRegion(*k.g, regions, {k.c, k.d}).regions;
        regions = *createRegion(*k.g, regions, {k.a}).regions;
        QCOMPARE(regions[2].id, std::string("r2"));
        const auto merged = mergeRegions(*k.g, regions, "r0", "r1");
        QVERIFY(merged.ok());
        QCOMPARE(merged.regions->size(), std::size_t(2));
        QCOMPARE(merged.regions->front().nodes, (std::vector<NodeId>{k.b, k.c, k.d}));
        // a with b..d would close a -> x -> b.
        const auto cyclic = mergeRegions(*k.g, *merged.regions, "r0", "r2");
        QVERIFY(!cyclic.ok());
        QCOMPARE(cyclic.highlight, (std::vector<NodeId>{k.a, k.x, k.b}));
        // Different annotations never merge; the highlight is the other region's first node.
        auto annotated = regions;
        annotated[1].annotation = "{\"compile_with_inductor\":1}";
        const auto differ = mergeRegions(*k.g, annotated, "r0", "r1");
        QVERIFY(!differ.ok());
        QCOMPARE(differ.highlight, std::vector<NodeId>{k.c});
        QVERIFY(!mergeRegions(*k.g, regions, "r0", "r0").ok());
    }

    void splitAcceptsAndRefuses()
    {
        const Chain k = chain();
        auto regions = *createRegion(*k.g, {}, {k.b, k.c, k.d}).regions;
        const auto split = splitRegion(*k.g, regions, "r0", {k.d});
        QVERIFY(split.ok());
        QCOMPARE(split.regions->size(), std::size_t(2));
        QCOMPARE((*split.regions)[0].nodes, (std::vector<NodeId>{k.b, k.c}));
        QCOMPARE((*split.regions)[1].id, std::string("r1"));
        QCOMPARE((*split.regions)[1].nodes, std::vector<NodeId>{k.d});
        // Taking c out of b..d leaves {b, d} with b -> c -> d outside: a cycle.
        const auto middle = splitRegion(*k.g, regions, "r0", {k.c});
        QVERIFY(!middle.ok());
        QCOMPARE(middle.highlight, (std::vector<NodeId>{k.b, k.c, k.d}));
        QVERIFY(!splitRegion(*k.g, regions, "r0", {}).ok());
        QVERIFY(!splitRegion(*k.g, regions, "r0", {k.b, k.c, k.d}).ok());
        QVERIFY(!splitRegion(*k.g, regions, "r0", {k.a}).ok());
    }

    void growsToMaximalRegion()
    {
        const Chain k = chain();
        // From c: b, c, d are supported and joined; a stays out (a -> x -> b).
        QCOMPARE(growToRegion(*k.g, {}, k.c), (std::vector<NodeId>{k.b, k.c, k.d}));
        QVERIFY(growToRegion(*k.g, {}, k.x).empty()); // mm is not supported
        auto regions = *createRegion(*k.g, {}, {k.d}).regions;
        QCOMPARE(growToRegion(*k.g, regions, k.c), (std::vector<NodeId>{k.b, k.c}));
        QVERIFY(growToRegion(*k.g, regions, k.d).empty()); // already in a region
    }

    void validatesWholeList()
    {
        const Chain k = chain();
        std::vector<Region> regions(1);
        regions[0].id = "r0";
        regions[0].nodes = {k.a, k.b};
        const auto r = validateRegions(*k.g, regions);
        QVERIFY(!r.ok());
        QCOMPARE(r.highlight, (std::vector<NodeId>{k.a, k.x, k.b}));
        regions[0].nodes = {k.c};
        QVERIFY(validateRegions(*k.g, regions).ok());
        QCOMPARE(nextRegionId(regions), std::string("r1"));
    }
};

QTEST_GUILESS_MAIN(TestRegionEdit)
#include "tst_region_edit.moc"

FXSCOPE_TEST_END
