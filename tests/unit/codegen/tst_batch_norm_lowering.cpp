// Inference batch norm (_native_batch_norm_legit_no_training) lowered as a pointwise op with
// per-channel loads, fused with relu and the residual add; weight/bias None, eps, f16 input;
// save_mean/save_rstd refused with a reason; outputs laid out as eager lays them out
// (channels_last: the index space iterated in memory order, stores unit-stride), while kernels
// with reductions keep contiguous outputs; dims every access steps through as one iterated as one.
#include "core/codegen/lowering.h"
#include "core/graph/graph_builder.h"
#include "tests/test_file.h"

#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::codegen;
using namespace fxs::graph;

namespace {

using Dims = std::vector<std::int64_t>;

TensorMeta meta(Dims sizes, DType t = DType::Float32, Dims strides = {})
{
    TensorMeta m;
    m.dtype = t;
    for (auto s : sizes) {
        m.sizes.push_back(SymInt::of(s));
    }
    if (!strides.empty()) {
        m.strides.emplace();
        for (auto s : strides) {
            m.strides->push_back(SymInt::of(s));
        }
    }
    return m;
}

Argument ref(NodeId id) { return Argument::ref(id); }

const Dims kShape{2, 4, 3, 3};
const Dims kChannelsLast{36, 1, 12, 4};

// bn(x, w?, b?, mean, var, 0.1, eps)[0] (+ res) -> relu; x and res with `strides` (or none).
struct BnCase {
    GraphPtr graph;
    std::vector<NodeId> order, inputs, outputs;
    NodeId bn = kNoNode;
};

BnCase bnRelu(bool affine, bool residual, DType t = DType::Float32, double eps = 1e-5,
              Dims strides = {}, bool readStats = false)
{
    GraphBuilder b;
    BnCase c;
    const NodeId x = b.placeholder("x", meta(kShape, t, strides));
    const NodeId w = b.placeholder("w", meta({4}));
    const NodeId bias = b.placeholder("b", meta({4}));
    const NodeId mean = b.placeholder("mean", meta({4}));
    const NodeId var = b.placeholder("var", meta({4}));
    const NodeId res = b.placeholder("res", meta(kShape, t, strides));
    c.bn = b.call("bn", "aten::_native_batch_norm_legit_no_training.default",
                  {ref(x), affine ? ref(w) : Argument::none(), affine ? ref(bias) : Argument::none(),
                   ref(mean), ref(var), Argument::real(0.1), Argument::real(eps)});
    const NodeId item = b.getitem("getitem", c.bn, 0, meta(kShape, t, strides));
    c.order = {c.bn, item};
    if (readStats) {
        c.order.push_back(b.getitem("getitem_1", c.bn, 1, meta({0}, t)));
    }
    NodeId last = item;
    if (residual) {
        last = b.call("add", "aten::add.Tensor", {ref(item), ref(res)}, {}, meta(kShape, t, strides));
        c.order.push_back(last);
    }
    const NodeId relu = b.call("relu", "aten::relu.default", {ref(last)}, {}, meta(kShape, t, strides));
    c.order.push_back(relu);
    b.output({ref(relu)});
    c.graph = *b.build();
    c.inputs = affine ? std::vector<NodeId>{x, w, bias, mean, var} : std::vector<NodeId>{x, mean, var};
    if (residual) {
        c.inputs.push_back(res);
    }
    c.outputs = {relu};
    return c;
}

Result<RegionProgram> lower(const BnCase& c, std::vector<Dims> outputStrides = {})
{
    LoweringRequest req;
    req.graph = c.graph.get();
    req.regionId = "r0";
    req.order = c.order;
    req.inputs = c.inputs;
    req.outputs = c.outputs;
    req.outputStrides = std::move(outputStrides);
    return lowerRegion(req);
}

int countOps(const Kernel& k, const std::string& op)
{
    return int(std::count_if(k.exprs.begin(), k.exprs.end(),
                             [&](const Expr& e) { return e.kind == ExprKind::Op && e.op == op; }));
}

bool hasConstant(const Kernel& k, double v)
{
    return std::any_of(k.exprs.begin(), k.exprs.end(),
                       [&](const Expr& e) { return e.kind == ExprKind::Const && e.value == v; });
}

} // namespace

class TestBatchNormLowering : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void batchNormReluAndAddAreOneKernel()
    {
        const BnCase c = bnRelu(true, true);
        auto p = lower(c);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->kernels.size(), std::size_t(1));
        const Kernel& k = p->kernels[0];
        // [N, C, H, W] iterated as [N, C, H*W]: every access steps through H and W as one dim.
        QCOMPARE(k.shape, (Dims{2, 4, 9}));
        QCOMPARE(k.inner(), std::int64_t(9));
        QVERIFY(k.reductions.empty());
        // x, w, b, mean, var, res: the vectors run along dim 1 (the channels) only.
        QCOMPARE(k.loads.size(), std::size_t(6));
        QCOMPARE(k.loads[0].access.strides, (Dims{36, 9, 1}));
        int perChannel = 0;
        for (const auto& l : k.loads) {
            perChannel += l.access.strides == Dims{0, 1, 0} ? 1 : 0;
        }
        QCOMPARE(perChannel, 4);
        QCOMPARE(countOps(k, "rsqrt"), 1);
        QCOMPARE(countOps(k, "relu"), 1);
        QVERIFY(hasConstant(k, 1e-5));
        QCOMPARE(k.stores.size(), std::size_t(1));
        QCOMPARE(k.stores[0].access.strides, (Dims{36, 9, 1}));
        QCOMPARE(p->outputs[0].strides, (Dims{36, 9, 3, 1}));
        // The op is taken by the automatic proposal's question too.
        QVERIFY(!nodeRefusal(*c.graph, c.bn).has_value());
    }

    void weightAndBiasNoneAndEps()
    {
        const BnCase c = bnRelu(false, false, DType::Float32, 1e-3);
        auto p = lower(c);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Kernel& k = p->kernels.at(0);
        QCOMPARE(k.loads.size(), std::size_t(3)); // x, mean, var
        QCOMPARE(countOps(k, "mul"), 1);          // (x - mean) * rstd, no weight
        QCOMPARE(countOps(k, "add"), 1);          // var + eps, no bias
        QVERIFY(hasConstant(k, 1e-3));
        QVERIFY(!hasConstant(k, 1e-5));
    }

    void halfInputComputesInFloat()
    {
        const BnCase c = bnRelu(true, false, DType::Float16);
        auto p = lower(c);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Kernel& k = p->kernels.at(0);
        QCOMPARE(k.loads.at(0).type, ScalarType::Float16);
        QCOMPARE(k.loads.at(1).type, ScalarType::Float32); // the f32 weight
        QCOMPARE(countOps(k, "rsqrt"), 1);
        for (const auto& e : k.exprs) {
            if (e.kind == ExprKind::Op && e.op == "rsqrt") {
                QCOMPARE(e.type, ComputeType::Float);
            }
        }
        QCOMPARE(k.stores.at(0).type, ScalarType::Float16);
    }

    void savedStatisticsAreRefusedWithAReason()
    {
        const BnCase c = bnRelu(true, false, DType::Float32, 1e-5, {}, true);
        const auto why = nodeRefusal(*c.graph, c.bn);
        QVERIFY(why.has_value());
        QCOMPARE(int(why->kind), int(RefusalKind::Shape));
        QVERIFY2(why->message.find("item 1 of aten::_native_batch_norm_legit_no_training") !=
                     std::string::npos,
                 why->message.c_str());
        QVERIFY2(why->message.find("not produced by the code generator (it makes item 0 only)") !=
                     std::string::npos,
                 why->message.c_str());
    }

    void channelsLastOutputsIterateInMemoryOrder()
    {
        const BnCase c = bnRelu(true, true, DType::Float32, 1e-5, kChannelsLast);
        auto p = lower(c, {kChannelsLast});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Kernel& k = p->kernels.at(0);
        // N, H, W, C with C innermost; N, H and W then iterate as one dim of 18.
        QCOMPARE(k.shape, (Dims{18, 4}));
        QCOMPARE(k.inner(), std::int64_t(4));
        QCOMPARE(k.loads.at(0).access.strides, (Dims{4, 1})); // x: unit stride
        QCOMPARE(k.loads.at(1).access.strides, (Dims{0, 1})); // w along C
        QCOMPARE(k.stores.at(0).access.strides, (Dims{4, 1}));
        QCOMPARE(p->outputs.at(0).sizes, kShape);
        QCOMPARE(p->outputs.at(0).strides, kChannelsLast);
        // Without eager's layout the same inputs give a contiguous output, as before.
        auto plain = lower(c);
        QVERIFY(plain.ok());
        QCOMPARE(plain->kernels.at(0).shape, (Dims{2, 4, 9}));
        QCOMPARE(plain->kernels.at(0).stores.at(0).access.strides, (Dims{36, 9, 1}));
        QCOMPARE(plain->outputs.at(0).strides, (Dims{36, 9, 3, 1}));
    }

    void aContiguousOrNonDenseLayoutChangesNothing()
    {
        const BnCase c = bnRelu(true, false, DType::Float32, 1e-5, kChannelsLast);
        for (const Dims& s : {Dims{36, 9, 3, 1}, Dims{72, 1, 24, 8}, Dims{0, 1, 12, 4}}) {
            auto p = lower(c, {s});
            QVERIFY(p.ok());
            QCOMPARE(p->kernels.at(0).shape, (Dims{2, 4, 9}));
            QCOMPARE(p->outputs.at(0).strides, (Dims{36, 9, 3, 1}));
        }
    }

    void kernelsWithReductionsKeepContiguousOutputs()
    {
        // exp(x) and its sum over the last dim: a row reduction, so exp stays contiguous even
        // where eager would lay it out otherwise.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({4, 8}, DType::Float32, {1, 4}));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(x)}, {}, meta({4, 8}));
        const NodeId s = b.call("sum", "aten::sum.dim_IntList",
                                {ref(e), Argument::list({Argument::integer(-1)})}, {}, meta({4}));
        b.output({ref(e), ref(s)});
        auto g = b.build();
        QVERIFY(g.ok());
        LoweringRequest req;
        req.graph = g->get();
        req.regionId = "r0";
        req.order = {e, s};
        req.inputs = {x};
        req.outputs = {e, s};
        req.outputStrides = {{1, 4}, {1}};
        auto p = lowerRegion(req);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->kernels.at(0).shape, (Dims{4, 8}));
        QCOMPARE(p->outputs.at(0).strides, (Dims{8, 1}));
        // The same exp alone follows eager's transposed layout.
        req.order = {e};
        req.outputs = {e};
        req.outputStrides = {{1, 4}};
        auto alone = lowerRegion(req);
        QVERIFY(alone.ok());
        QCOMPARE(alone->kernels.at(0).shape, (Dims{8, 4}));
        QCOMPARE(alone->outputs.at(0).strides, (Dims{1, 4}));
        QVERIFY(alone->kernels.at(0).flat); // load and store both unit-stride in that order
    }
};

QTEST_APPLESS_MAIN(TestBatchNormLowering)
#include "tst_batch_norm_lowering.moc"

FXSCOPE_TEST_END
