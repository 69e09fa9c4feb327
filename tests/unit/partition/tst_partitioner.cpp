// Annotation partitioner: the cycle rule (split with the path), annotation values, options,
// getitems, and the annotated GPT-2 fixtures (every annotated node placed, exact boundaries).
#include "core/partition/partitioner.h"
#include "core/partition/python_literal.h"
#include "partition_test_graphs.h"
#include "tests/test_file.h"

#include <QtTest>

#include <algorithm>
#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using namespace fxs::partition;
using namespace fxs::partition::testing;

namespace {

// Independent of the library: does any path leave `nodes` and come back?
bool leavesAndReturns(const Graph& g, const std::vector<NodeId>& nodes)
{
    std::set<NodeId> inside(nodes.begin(), nodes.end());
    std::vector<NodeId> stack;
    std::set<NodeId> seen;
    for (NodeId n : nodes) {
        for (NodeId u : g.node(n).users) {
            if (!inside.count(u) && seen.insert(u).second) {
                stack.push_back(u);
            }
        }
    }
    while (!stack.empty()) {
        const NodeId v = stack.back();
        stack.pop_back();
        for (NodeId u : g.node(v).users) {
            if (inside.count(u)) {
                return true;
            }
            if (seen.insert(u).second) {
                stack.push_back(u);
            }
        }
    }
    return false;
}

// Names of the statements inside `# Annotation:` groups, read from the text by hand rules:
// a group runs from the comment to the next blank line or comment.
std::vector<std::string> annotatedNames(const std::string& text)
{
    std::vector<std::string> out;
    bool in = false;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto end = text.find('\n', pos);
        const std::string line = text.substr(pos, end == std::string::npos ? end : end - pos);
        pos = end == std::string::npos ? text.size() : end + 1;
        const auto first = line.find_first_not_of(' ');
        if (first == std::string::npos || line[first] == '#') {
            in = line.find("# Annotation:") != std::string::npos;
            continue;
        }
        if (in) {
            out.push_back(line.substr(first, line.find_first_of(":= ", first) - first));
        }
    }
    return out;
}

} // namespace

class TestPartitioner : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void splitsRegionThatWouldFormCycle()
    {
        // a and b are annotated; x between them is not: {a, b} would be a -> x -> b.
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4}));
        const NodeId a = op(bld, "a", "aten::sin.default", {p}, "0");
        const NodeId x = op(bld, "x", "aten::mm.default", {a, a});
        const NodeId b = op(bld, "b", "aten::mul.Tensor", {a, x}, "0");
        bld.output({Argument::ref(b)});
        const auto g = bld.build();
        QVERIFY(g.ok());
        const Partition part = partitionByAnnotation(**g);
        QCOMPARE(part.regions.size(), std::size_t(2));
        QCOMPARE(part.regions[0].id, std::string("r0"));
        QCOMPARE(part.regions[0].nodes, std::vector<NodeId>{a});
        QCOMPARE(part.regions[1].nodes, std::vector<NodeId>{b});
        QCOMPARE(part.regions[1].inputs, (std::vector<NodeId>{a, x}));
        QCOMPARE(part.regions[0].inputs, std::vector<NodeId>{p});
        QCOMPARE(part.regions[0].outputs, std::vector<NodeId>{a});
        QCOMPARE(part.splits.size(), std::size_t(1));
        QCOMPARE(part.splits[0].path, (std::vector<NodeId>{a, x, b}));
        QVERIFY(part.splits[0].message.find("a (r0) → x → b") != std::string::npos);
        QVERIFY(part.splits[0].message.find("'b' cannot join r0") != std::string::npos);
        // x is the only call node left out; placeholders and the output are not listed.
        QCOMPARE(part.excluded.size(), std::size_t(1));
        QCOMPARE(part.excluded[0].node, x);
        QCOMPARE(part.excluded[0].reason, ExclusionReason::NotAnnotated);
    }

    void joinsWhenNoPathLeaves()
    {
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4}));
        const NodeId a = op(bld, "a", "aten::sin.default", {p}, "0");
        const NodeId x = op(bld, "x", "aten::mm.default", {p, p});
        const NodeId b = op(bld, "b", "aten::mul.Tensor", {a, x}, "0");
        const NodeId c = op(bld, "c", "aten::relu.default", {b}, "0");
        bld.output({Argument::ref(c), Argument::ref(a)});
        const auto g = bld.build();
        const Partition part = partitionByAnnotation(**g);
        QCOMPARE(part.regions.size(), std::size_t(1));
        QCOMPARE(part.regions[0].nodes, (std::vector<NodeId>{a, b, c}));
        QCOMPARE(part.regions[0].inputs, (std::vector<NodeId>{p, x}));
        QCOMPARE(part.regions[0].outputs, (std::vector<NodeId>{a, c})); // both returned
        QCOMPARE(part.regions[0].bytesIn, std::int64_t(32));            // two f32[4]
        QCOMPARE(part.regions[0].bytesOut, std::int64_t(32));
        QCOMPARE(part.regions[0].opMix.at("pointwise"), 3);
        QVERIFY(part.splits.empty());
    }

    void differentValuesNeverShareRegion()
    {
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4}));
        const NodeId a = op(bld, "a", "aten::sin.default", {p}, "0");
        const NodeId b = op(bld, "b", "aten::cos.default", {a}, "1");
        const NodeId c = op(bld, "c", "aten::neg.default", {p}, "1");
        const NodeId d = op(bld, "d", "aten::add.Tensor", {b, c}, "1");
        bld.output({Argument::ref(d)});
        const auto g = bld.build();
        const Partition part = partitionByAnnotation(**g);
        QCOMPARE(part.regions.size(), std::size_t(2));
        QCOMPARE(part.regions[0].nodes, std::vector<NodeId>{a});
        QCOMPARE(*part.regions[0].annotation, std::string("{\"compile_with_inductor\":0}"));
        QCOMPARE(part.regions[1].nodes, (std::vector<NodeId>{b, c, d}));
        QCOMPARE(*part.regions[1].annotation, std::string("{\"compile_with_inductor\":1}"));
        QVERIFY(part.regions[0].options.empty());
        QVERIFY(part.excluded.empty());
    }

    void dictValueBecomesOptions()
    {
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4}));
        const NodeId a = op(bld, "a", "aten::sin.default", {p});
        bld.node(a).annotation =
            inductor("{'inductor_configs': {'max_autotune': True, 'triton.cudagraphs': False}}");
        bld.output({Argument::ref(a)});
        const auto g = bld.build();
        const Partition part = partitionByAnnotation(**g);
        QCOMPARE(part.regions.size(), std::size_t(1));
        QCOMPARE(part.regions[0].options,
                 std::string("{\"inductor_configs\":{\"max_autotune\":true,\"triton.cudagraphs\":false}}"));
    }

    void getitemsStayWithTheirProducer()
    {
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4}));
        // Annotated producer, unannotated getitems: the getitems join it.
        const NodeId ln = bld.call("ln", "aten::native_layer_norm.default", {Argument::ref(p)});
        bld.node(ln).annotation = inductor("0");
        const NodeId g0 = bld.getitem("g0", ln, 0, f32({4}));
        const NodeId g1 = bld.getitem("g1", ln, 1, f32({1}));
        // Unannotated producer, annotated getitem: the getitem stays outside.
        const NodeId sp = bld.call("sp", "aten::split.Tensor", {Argument::ref(g0)});
        const NodeId s0 = bld.getitem("s0", sp, 0, f32({2}));
        bld.node(s0).annotation = inductor("0");
        bld.output({Argument::ref(s0), Argument::ref(g1)});
        const auto g = bld.build();
        QVERIFY(g.ok());
        const Partition part = partitionByAnnotation(**g);
        QCOMPARE(part.regions.size(), std::size_t(1));
        QCOMPARE(part.regions[0].nodes, (std::vector<NodeId>{ln, g0, g1}));
        QCOMPARE(part.regions[0].outputs, (std::vector<NodeId>{g0, g1}));
        QCOMPARE(part.regions[0].bytesOut, std::int64_t(16 + 4));
        QCOMPARE(part.excluded.size(), std::size_t(2));
        QCOMPARE(part.excluded[1].node, s0);
        QCOMPARE(part.excluded[1].reason, ExclusionReason::TupleOutside);
    }

    void pythonLiterals()
    {
        QCOMPARE(*pythonLiteralToJson("{'a': (1, 2.5), \"b\": [None, True], 3: 'x\\'y'}"),
                 std::string("{\"3\":\"x'y\",\"a\":[1,2.5],\"b\":[null,true]}"));
        QVERIFY(!pythonLiteralToJson("{'a': foo(1)}"));
        QVERIFY(!pythonLiteralToJson("{'a': 1"));
        Annotation ann;
        ann.text = "{'compile_with_inductor': 0, 'stage': 'x'}";
        QCOMPARE(annotationToJson(ann), std::string("{\"compile_with_inductor\":0,\"stage\":\"x\"}"));
        QCOMPARE(*annotationValueJson(ann, "stage"), std::string("\"x\""));
        QVERIFY(!annotationValueJson(ann, "nope"));
    }

    void gpt2AnnotatedForward()
    {
        const auto fx = loadFixtureGraph("gpt2_annotated_fw.txt");
        QVERIFY(fx.graph);
        const Graph& g = *fx.graph;
        const auto expected = annotatedNames(fx.text);
        QCOMPARE(expected.size(), std::size_t(28)); // 14 per MLP block, counted in the text
        const Partition part = partitionByAnnotation(g);
        QCOMPARE(part.regions.size(), std::size_t(2));
        std::vector<std::string> placed;
        for (const auto& r : part.regions) {
            QCOMPARE(r.nodeCount(), std::size_t(14));
            QVERIFY(!leavesAndReturns(g, r.nodes));
            QCOMPARE(*r.annotation, std::string("{\"compile_with_inductor\":0}"));
            for (const auto& n : names(g, r.nodes)) {
                placed.push_back(n);
            }
        }
        QCOMPARE(placed, expected);
        const Region& r0 = part.regions[0];
        QCOMPARE(names(g, r0.inputs),
                 (std::vector<std::string>{"add_1", "primals_9", "primals_10", "primals_11",
                                           "primals_12", "primals_13", "primals_14"}));
        QCOMPARE(names(g, r0.outputs),
                 (std::vector<std::string>{"getitem_8", "getitem_9", "view_9", "t_2", "view_10",
                                           "view_11", "t_3", "add_2"}));
        // Bytes by hand from the annotations: f32 sizes times 4.
        QCOMPARE(r0.bytesIn, std::int64_t(262144 + 1024 + 1024 + 1048576 + 4096 + 1048576 + 1024));
        QCOMPARE(r0.bytesOut, std::int64_t(1024 + 1024 + 262144 + 4 * 1048576 + 262144));
        QVERIFY(r0.bytesExact);
        QCOMPARE(names(g, part.regions[1].inputs).front(), std::string("add_4"));
        QCOMPARE(part.excluded.size() + 28, g.size() - g.placeholders().size() - 1);
    }

    void gpt2AnnotatedBackward()
    {
        const auto fx = loadFixtureGraph("gpt2_annotated_bw.txt");
        QVERIFY(fx.graph);
        const Graph& g = *fx.graph;
        const auto expected = annotatedNames(fx.text);
        QCOMPARE(expected.size(), std::size_t(50)); // 25 per MLP block
        const Partition part = partitionByAnnotation(g);
        QCOMPARE(part.regions.size(), std::size_t(2));
        std::vector<std::string> placed;
        for (const auto& r : part.regions) {
            QCOMPARE(r.nodeCount(), std::size_t(25));
            QVERIFY(!leavesAndReturns(g, r.nodes));
            for (const auto& n : names(g, r.nodes)) {
                placed.push_back(n);
            }
        }
        QCOMPARE(placed, expected);
        // The first block reads the head's layer-norm gradient and saved forward values.
        const auto in0 = names(g, part.regions[0].inputs);
        QCOMPARE(in0.front(), std::string("getitem_23"));
        QVERIFY(std::find(in0.begin(), in0.end(), "t_7") != in0.end());
        QVERIFY(std::find(in0.begin(), in0.end(), "view_23") != in0.end());
    }
};

QTEST_GUILESS_MAIN(TestPartitioner)
#include "tst_partitioner.moc"

FXSCOPE_TEST_END
