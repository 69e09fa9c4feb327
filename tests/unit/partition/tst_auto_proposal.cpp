// Automatic proposal: regions of what the code generator lowers, a reason for every node left
// out (unsupported op, not lowered, cycle, other device, user excluded, tuple outside, nothing
// to fuse), on hand-built graphs and on the ResNet-18 inference and GPT-12 training-forward
// fixtures.
#include "core/graph/op_category.h"
#include "core/partition/auto_proposal.h"
#include "core/partition/region_edit.h"
#include "partition_test_graphs.h"
#include "tests/test_file.h"

#include <QtTest>

#include <map>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using namespace fxs::partition;
using namespace fxs::partition::testing;

namespace {

std::map<std::string, int> reasonCounts(const Partition& p)
{
    std::map<std::string, int> out;
    for (const auto& ex : p.excluded) {
        ++out[std::string(reasonCode(ex.reason))];
    }
    return out;
}

int countTarget(const Graph& g, const Partition& p, std::string_view base, bool inRegions)
{
    int n = 0;
    for (const auto& node : g.nodes()) {
        if (node.isCallFunction() && opBaseName(node.target) == base &&
            (p.regionOf(node.id) != nullptr) == inRegions) {
            ++n;
        }
    }
    return n;
}

// Every call node is in exactly one region or excluded exactly once.
bool coversEveryCallNode(const Graph& g, const Partition& p)
{
    std::vector<int> seen(g.size(), 0);
    for (const auto& r : p.regions) {
        for (NodeId id : r.nodes) {
            ++seen[id];
        }
    }
    for (const auto& ex : p.excluded) {
        ++seen[ex.node];
    }
    for (const auto& node : g.nodes()) {
        const int want = node.isPlaceholder() || node.isOutput() ? 0 : 1;
        if (seen[node.id] != want) {
            return false;
        }
    }
    return true;
}

} // namespace

class TestAutoProposal : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void reasonsOnSmallGraph()
    {
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4}));
        const NodeId a = op(bld, "a", "aten::sin.default", {p});
        const NodeId m = op(bld, "m", "aten::mm.default", {a, a});
        const NodeId b = op(bld, "b", "aten::mul.Tensor", {a, m});   // a -> m -> b: cycle
        const NodeId c = op(bld, "c", "aten::relu.default", {b});
        const NodeId d = bld.call("d", "aten::exp.default", {Argument::ref(c)}, {}, f32({4}, "cpu"));
        const NodeId e = op(bld, "e", "aten::neg.default", {c});
        const NodeId u = op(bld, "u", "aten::cos.default", {e});
        bld.output({Argument::ref(d), Argument::ref(u)});
        const auto g = bld.build();
        ProposalOptions opts;
        opts.excludedNodes = {"u"};
        const Partition part = proposeRegions(**g, opts);
        QCOMPARE(part.regions.size(), std::size_t(1));
        QCOMPARE(part.regions[0].nodes, (std::vector<NodeId>{b, c, e}));
        QCOMPARE(part.excluded.size(), std::size_t(4));
        // a alone: refused by b's region because of the path a -> m -> b.
        QCOMPARE(part.excluded[0].node, a);
        QCOMPARE(part.excluded[0].reason, ExclusionReason::WouldFormCycle);
        QCOMPARE(part.excluded[0].path, (std::vector<NodeId>{a, m, b}));
        QCOMPARE(part.excluded[1].node, m);
        QCOMPARE(part.excluded[1].reason, ExclusionReason::UnsupportedOp);
        QVERIFY(part.excluded[1].message.find("matmul/conv") != std::string::npos);
        QCOMPARE(part.excluded[2].node, d);
        QCOMPARE(part.excluded[2].reason, ExclusionReason::OtherDevice);
        QVERIFY(part.excluded[2].message.find("cpu") != std::string::npos);
        QCOMPARE(part.excluded[3].node, u);
        QCOMPARE(part.excluded[3].reason, ExclusionReason::UserExcluded);
        QVERIFY(coversEveryCallNode(**g, part));
    }

    void nodesTheCodeGeneratorRefusesStayOut()
    {
        // exp -> var over the leading dim -> relu: var is a lowered op, but not over dim 0 (sum,
        // mean, amax and amin are, as column reductions: columnReductionsAreProposed);
        // training batch norm (the functional form) is not lowered at all. Neither is proposed.
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4, 8}));
        const NodeId e = bld.call("e", "aten::exp.default", {Argument::ref(p)}, {}, f32({4, 8}));
        const NodeId s = bld.call("s", "aten::var.dim",
                                  {Argument::ref(e), Argument::list({Argument::integer(0)})}, {},
                                  f32({8}));
        const NodeId r = bld.call("r", "aten::relu.default", {Argument::ref(s)}, {}, f32({8}));
        const NodeId bn = bld.call("bn", "aten::_native_batch_norm_legit_functional.default",
                                   {Argument::ref(p)}, {}, f32({4, 8}));
        bld.output({Argument::ref(r), Argument::ref(bn)});
        const auto g = bld.build();
        ProposalOptions single;
        single.minNodes = 1;
        const Partition part = proposeRegions(**g, single);
        QCOMPARE(part.regions.size(), std::size_t(2)); // [e], [r]
        QCOMPARE(part.excluded.size(), std::size_t(2));
        const Exclusion* sumEx = &part.excluded[0];
        const Exclusion* bnEx = &part.excluded[1];
        QCOMPARE(sumEx->node, s);
        QCOMPARE(bnEx->node, bn);
        QCOMPARE(sumEx->reason, ExclusionReason::NotLowered);
        QVERIFY2(sumEx->message.find("trailing dims") != std::string::npos, sumEx->message.c_str());
        QCOMPARE(bnEx->reason, ExclusionReason::UnsupportedOp);
        QCOMPARE(std::string(reasonCode(sumEx->reason)), std::string("not_lowered"));
        QVERIFY(coversEveryCallNode(**g, part));
    }

    void columnReductionsAreProposed()
    {
        // exp -> sum over the leading dim -> relu: one column kernel (the sum's producer in its
        // pass over the rows, relu on each column's result), so one region of all three. Before
        // column reductions the sum was refused and exp and relu were two regions.
        GraphBuilder bld;
        const NodeId p = bld.placeholder("p", f32({4, 8}));
        const NodeId e = bld.call("e", "aten::exp.default", {Argument::ref(p)}, {}, f32({4, 8}));
        const NodeId s = bld.call("s", "aten::sum.dim_IntList",
                                  {Argument::ref(e), Argument::list({Argument::integer(0)})}, {},
                                  f32({8}));
        const NodeId r = bld.call("r", "aten::relu.default", {Argument::ref(s)}, {}, f32({8}));
        bld.output({Argument::ref(r)});
        const auto g = bld.build();
        const Partition part = proposeRegions(**g, {});
        QCOMPARE(part.regions.size(), std::size_t(1));
        QCOMPARE(part.regions[0].nodes, (std::vector<NodeId>{e, s, r}));
        QVERIFY(part.excluded.empty());
    }

    void viewOnlyAndTinyRegionsAreDropped()
    {
        GraphBuilder bld;
        const NodeId w = bld.placeholder("w", f32({4}));
        const NodeId t = op(bld, "t", "aten::t.default", {w});
        const NodeId m = op(bld, "m", "aten::mm.default", {t, t});
        const NodeId r = op(bld, "r", "aten::relu.default", {m});
        bld.output({Argument::ref(r)});
        const auto g = bld.build();
        const Partition part = proposeRegions(**g);
        QVERIFY(part.regions.empty());
        QCOMPARE(part.excluded.size(), std::size_t(3));
        QCOMPARE(part.excluded[0].reason, ExclusionReason::NothingToFuse);
        QVERIFY(part.excluded[0].message.find("only view") != std::string::npos);
        QCOMPARE(part.excluded[2].reason, ExclusionReason::NothingToFuse);
        ProposalOptions single;
        single.minNodes = 1;
        QCOMPARE(proposeRegions(**g, single).regions.size(), std::size_t(1)); // relu alone
    }

    void resnet18Inference()
    {
        const auto fx = loadFixtureGraph("resnet18_infer.txt");
        QVERIFY(fx.graph);
        const Graph& g = *fx.graph;
        const Partition part = proposeRegions(g);
        // By hand: every inference batch norm is lowered and fuses with what follows it up to
        // the next convolution: the stem's bn + relu + max pool (only its values read), and per
        // basic block bn + relu and bn (+ the downsample's bn) + add + relu: 1 + 8 * 2 = 17
        // regions, all 20 batch norms and all 17 relus in them; the classifier's mean and view
        // join the last one.
        QCOMPARE(part.regions.size(), std::size_t(17));
        QCOMPARE(countTarget(g, part, "_native_batch_norm_legit_no_training", true), 20);
        QCOMPARE(countTarget(g, part, "relu", true), 17);
        QCOMPARE(countTarget(g, part, "add", true), 8);
        QCOMPARE(countTarget(g, part, "mean", true), 1);
        QCOMPARE(countTarget(g, part, "convolution", true), 0);
        QCOMPARE(countTarget(g, part, "max_pool2d_with_indices", true), 1);
        const auto pool = g.find("max_pool2d_with_indices");
        const auto stemRelu = g.find("relu");
        QVERIFY(pool && stemRelu);
        QVERIFY(part.regionOf(*pool) && part.regionOf(*pool) == part.regionOf(*stemRelu));
        QVERIFY(part.regionOf(*g.find("getitem_3")) == part.regionOf(*pool));
        const auto reasons = reasonCounts(part);
        // 20 convolutions, addmm.
        QCOMPARE(reasons.at("unsupported_op"), 21);
        QCOMPARE(reasons.count("tuple_outside"), std::size_t(0));
        QCOMPARE(reasons.at("nothing_to_fuse"), 1); // the classifier weight's t
        QCOMPARE(part.excluded.size(), std::size_t(22));
        QVERIFY(coversEveryCallNode(g, part));
        QVERIFY(validateRegions(g, part.regions).ok());
    }

    void gpt12TrainingForward()
    {
        const auto fx = loadFixtureGraph("gpt12_train_fw.txt");
        QVERIFY(fx.graph);
        const Graph& g = *fx.graph;
        const Partition part = proposeRegions(g);
        const auto reasons = reasonCounts(part);
        // 12 attention kernels, 37 addmm, 12 mm, 1 embedding (counted in the text).
        QCOMPARE(reasons.at("unsupported_op"), 62);
        QCOMPARE(reasons.at("tuple_outside"), 48); // 4 getitems per attention kernel
        QCOMPARE(countTarget(g, part, "native_layer_norm", true), 25);
        QCOMPARE(countTarget(g, part, "gelu", true), 12);
        QVERIFY(coversEveryCallNode(g, part));
        for (const auto& r : part.regions) {
            for (NodeId id : r.nodes) {
                QVERIFY(isSupportedByRegionCompiler(g, id));
            }
        }
        QVERIFY(validateRegions(g, part.regions).ok());
        QVERIFY(!part.regions.empty());
    }
};

QTEST_GUILESS_MAIN(TestAutoProposal)
#include "tst_auto_proposal.moc"

FXSCOPE_TEST_END
