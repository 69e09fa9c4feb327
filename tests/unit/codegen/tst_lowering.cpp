// Region lowering: fusion into one kernel, loop shape, loads/stores for broadcasts and views,
// reductions as phases, small middle-dim reductions unrolled, type promotion, and the ops it
// refuses.
#include "core/codegen/lowering.h"
#include "core/graph/graph_builder.h"
#include "tests/test_file.h"

#include <QtTest>

#include <cmath>
#include <limits>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::codegen;
using namespace fxs::graph;

namespace {

TensorMeta meta(std::vector<std::int64_t> sizes, DType t = DType::Float32)
{
    TensorMeta m;
    m.dtype = t;
    for (auto s : sizes) {
        m.sizes.push_back(SymInt::of(s));
    }
    return m;
}

Argument ref(NodeId id) { return Argument::ref(id); }

struct Region {
    GraphPtr graph;
    std::vector<NodeId> order, inputs, outputs;
};

Result<RegionProgram> lower(const Region& r)
{
    LoweringRequest req;
    req.graph = r.graph.get();
    req.regionId = "r0";
    req.order = r.order;
    req.inputs = r.inputs;
    req.outputs = r.outputs;
    return lowerRegion(req);
}

} // namespace

class TestLowering : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fusesPointwiseChainIntoOneFlatKernel()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({4, 8}));
        const NodeId y = b.placeholder("y", meta({8}));
        const NodeId add = b.call("add", "aten::add.Tensor", {ref(x), ref(y)}, {}, meta({4, 8}));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(add)}, {}, meta({4, 8}));
        b.output({ref(e)});
        auto g = b.build();
        QVERIFY(g.ok());
        auto p = lower({*g, {add, e}, {x, y}, {e}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->kernels.size(), std::size_t(1));
        const Kernel& k = p->kernels[0];
        QCOMPARE(k.shape, (std::vector<std::int64_t>{4, 8}));
        QCOMPARE(k.nodes, (std::vector<std::string>{"add", "exp"}));
        // y [8] broadcasts over rows: not flat; one row per x row, inner range of 8.
        QVERIFY(!k.flat);
        QCOMPARE(k.rows(), std::int64_t(4));
        QCOMPARE(k.inner(), std::int64_t(8));
        QCOMPARE(k.loads.size(), std::size_t(2));
        QCOMPARE(k.loads[0].access.strides, (std::vector<std::int64_t>{8, 1}));
        QCOMPARE(k.loads[1].access.strides, (std::vector<std::int64_t>{0, 1}));
        QCOMPARE(k.stores.size(), std::size_t(1));
        QCOMPARE(k.stores[0].access.strides, (std::vector<std::int64_t>{8, 1}));
        QVERIFY(!k.stores[0].perRow);
        QCOMPARE(p->outputs[0].sizes, (std::vector<std::int64_t>{4, 8}));
    }

    void float64ComputesInDouble()
    {
        // mean(exp(x) / 3, -1) on f64: loads, arithmetic, the reduction and the store are
        // double; a Python float stays a double constant.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({4, 8}, DType::Float64));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(x)}, {}, meta({4, 8}, DType::Float64));
        const NodeId d = b.call("div", "aten::div.Tensor", {ref(e), Argument::real(3.0)}, {},
                                meta({4, 8}, DType::Float64));
        const NodeId m = b.call("mean", "aten::mean.dim",
                                {ref(d), Argument::list({Argument::integer(-1)})}, {},
                                meta({4}, DType::Float64));
        b.output({ref(m)});
        auto g = b.build();
        auto p = lower({*g, {e, d, m}, {x}, {m}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Kernel& k = p->kernels.at(0);
        QCOMPARE(k.loads.at(0).type, ScalarType::Float64);
        for (const auto& expr : k.exprs) {
            QVERIFY2(expr.type == ComputeType::Double, expr.op.c_str());
        }
        QCOMPARE(k.reductions.at(0).type, ComputeType::Double);
        QCOMPARE(k.stores.at(0).type, ScalarType::Float64);
        QCOMPARE(p->outputs.at(0).type, ScalarType::Float64);
        QCOMPARE(scalarTypeName(ScalarType::Float64), std::string_view("float64"));
        QCOMPARE(scalarTypeSize(ScalarType::Float64), 8);
        // Float32 still computes in float: the precision follows the data.
        QCOMPARE(floatingFor(ComputeType::Int64), ComputeType::Float);
        QCOMPARE(floatingFor(ComputeType::Double), ComputeType::Double);
    }

    void sameShapeInputsGoFlat()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({4, 8}));
        const NodeId y = b.placeholder("y", meta({4, 8}));
        const NodeId m = b.call("mul", "aten::mul.Tensor", {ref(x), ref(y)}, {}, meta({4, 8}));
        const NodeId s = b.call("sigmoid", "aten::sigmoid.default", {ref(m)}, {}, meta({4, 8}));
        b.output({ref(s)});
        auto g = b.build();
        auto p = lower({*g, {m, s}, {x, y}, {s}});
        QVERIFY(p.ok());
        QVERIFY(p->kernels[0].flat);
    }

    void softmaxIsTwoPhasesAndAnEpilogue()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({6, 32}));
        const NodeId sm = b.call("_softmax", "aten::_softmax.default",
                                 {ref(x), Argument::integer(-1), Argument::boolean(false)}, {},
                                 meta({6, 32}));
        const NodeId add = b.call("add", "aten::add.Tensor", {ref(sm), ref(x)}, {}, meta({6, 32}));
        b.output({ref(add)});
        auto g = b.build();
        auto p = lower({*g, {sm, add}, {x}, {add}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Kernel& k = p->kernels[0];
        QCOMPARE(k.reductions.size(), std::size_t(2));
        QCOMPARE(int(k.reductions[0].kind), int(ReduceKind::Max));
        QCOMPARE(int(k.reductions[1].kind), int(ReduceKind::Sum));
        QCOMPARE(k.innerDims, 1);
        QCOMPARE(k.rows(), std::int64_t(6));
        QVERIFY(!k.flat);
    }

    void layerNormStatsArePerRowStores()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({2, 3, 16}));
        const NodeId w = b.placeholder("w", meta({16}));
        const NodeId ln = b.call("native_layer_norm", "aten::native_layer_norm.default",
                                 {ref(x), Argument::list({Argument::integer(16)}), ref(w),
                                  Argument::none(), Argument::real(1e-5)});
        const NodeId out = b.getitem("getitem", ln, 0, meta({2, 3, 16}));
        const NodeId mean = b.getitem("getitem_1", ln, 1, meta({2, 3, 1}));
        const NodeId rstd = b.getitem("getitem_2", ln, 2, meta({2, 3, 1}));
        b.output({ref(out), ref(mean), ref(rstd)});
        auto g = b.build();
        QVERIFY(g.ok());
        auto p = lower({*g, {ln, out, mean, rstd}, {x, w}, {out, mean, rstd}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Kernel& k = p->kernels[0];
        QCOMPARE(k.rows(), std::int64_t(6));
        QCOMPARE(k.reductions.size(), std::size_t(2)); // mean, then centred sum of squares
        QVERIFY(!k.stores[0].perRow);
        QVERIFY(k.stores[1].perRow);
        QVERIFY(k.stores[2].perRow);
        QCOMPARE(k.stores[1].access.strides, (std::vector<std::int64_t>{3, 1, 0}));
        QCOMPARE(p->outputs[1].sizes, (std::vector<std::int64_t>{2, 3, 1}));
    }

    void viewsOfInputsAreIndexArithmetic()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({8, 4}));
        const NodeId t = b.call("permute", "aten::permute.default",
                                {ref(x), Argument::list({Argument::integer(1), Argument::integer(0)})},
                                {}, meta({4, 8}));
        const NodeId s = b.call("slice", "aten::slice.Tensor",
                                {ref(t), Argument::integer(1), Argument::integer(2),
                                 Argument::integer(8), Argument::integer(2)},
                                {}, meta({4, 3}));
        const NodeId n = b.call("neg", "aten::neg.default", {ref(s)}, {}, meta({4, 3}));
        b.output({ref(n)});
        auto g = b.build();
        auto p = lower({*g, {t, s, n}, {x}, {n}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Load& l = p->kernels[0].loads[0];
        // x^T has strides (1, 4); slice(dim 1, 2:8:2) starts at element 2*4 with stride 8.
        QCOMPARE(l.access.offset, std::int64_t(8));
        QCOMPARE(l.access.strides, (std::vector<std::int64_t>{1, 8}));
        QVERIFY(!p->kernels[0].flat);
    }

    void promotesIntToFloat()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({16}, DType::Int64));
        const NodeId m = b.call("mul", "aten::mul.Tensor", {ref(x), Argument::real(0.5)}, {},
                                meta({16}));
        const NodeId h = b.call("_to_copy", "aten::_to_copy.default", {ref(m)},
                                {{"dtype", Argument::ofDtype(DType::Float16)}}, meta({16}, DType::Float16));
        b.output({ref(h)});
        auto g = b.build();
        auto p = lower({*g, {m, h}, {x}, {h}});
        QVERIFY(p.ok());
        const Kernel& k = p->kernels[0];
        QCOMPARE(int(k.loads[0].type), int(ScalarType::Int64));
        QCOMPARE(int(k.stores[0].type), int(ScalarType::Float16));
        bool sawCast = false;
        for (const auto& e : k.exprs) {
            sawCast = sawCast || (e.op == "cast" && e.type == ComputeType::Float);
        }
        QVERIFY(sawCast);
    }

    void leadingDimReductionsAreColumnKernels()
    {
        // exp of [3, 5, 7], summed over [0, 1] (keepdim) and its amax over [0, 1]: one column
        // kernel over F = [3, 5, 7], 15 rows reduced, 7 kept columns; exp stored from the pass
        // over the rows (outer strides), the sum and amax once per column (outer strides 0).
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({3, 5, 7}));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(x)}, {}, meta({3, 5, 7}));
        const auto dims = Argument::list({Argument::integer(0), Argument::integer(1)});
        const NodeId s = b.call("sum", "aten::sum.dim_IntList",
                                {ref(e), dims, Argument::boolean(true)}, {}, meta({1, 1, 7}));
        const NodeId m = b.call("amax", "aten::amax.default", {ref(e), dims}, {}, meta({7}));
        b.output({ref(e), ref(s), ref(m)});
        auto g = b.build();
        auto p = lower({*g, {e, s, m}, {x}, {e, s, m}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->kernels.size(), std::size_t(1));
        const Kernel& k = p->kernels[0];
        QVERIFY(k.columns);
        QCOMPARE(k.shape, (std::vector<std::int64_t>{3, 5, 7}));
        QCOMPARE(k.innerDims, 1);
        QCOMPARE(k.rows(), std::int64_t(15));
        QCOMPARE(k.reductions.size(), std::size_t(2));
        QCOMPARE(k.stores.size(), std::size_t(3));
        QVERIFY(!isColumnResult(k, k.stores[0]));
        QCOMPARE(k.stores[0].access.strides, (std::vector<std::int64_t>{35, 7, 1}));
        QVERIFY(isColumnResult(k, k.stores[1]));
        QVERIFY(isColumnResult(k, k.stores[2]));
        QCOMPARE(k.stores[2].access.strides, (std::vector<std::int64_t>{0, 0, 1}));
        QVERIFY(!nodeRefusal(**g, s).has_value());

        // Subtracting the column sum from the rows would need a second pass over them: the
        // node that does so is refused (a schedule starts a new kernel there).
        GraphBuilder b2;
        const NodeId x2 = b2.placeholder("x", meta({6, 4}));
        const NodeId s2 = b2.call("sum", "aten::sum.dim_IntList",
                                  {ref(x2), Argument::list({Argument::integer(0)}),
                                   Argument::boolean(true)},
                                  {}, meta({1, 4}));
        const NodeId sub = b2.call("sub", "aten::sub.Tensor", {ref(x2), ref(s2)}, {}, meta({6, 4}));
        b2.output({ref(sub)});
        auto g2 = b2.build();
        auto q = lower({*g2, {s2, sub}, {x2}, {sub}});
        QVERIFY(!q.ok());
        QCOMPARE(q.error().where, std::string("r0:sub"));
        QVERIFY(q.error().message.find("second pass") != std::string::npos);
    }

    void middleDimReductionsUnrollOrPermuteColumns()
    {
        // sum over dim 1 (2 elements) of a contiguous [3, 2, 5]: no reduction loop; the kernel
        // iterates the kept [3, 5] and adds x[:, 0, :] (offset 0) and x[:, 1, :] (offset 5),
        // both with strides (10, 1).
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({3, 2, 5}));
        const auto dim1 = Argument::list({Argument::integer(1)});
        const NodeId s =
            b.call("sum", "aten::sum.dim_IntList", {ref(x), dim1}, {}, meta({3, 5}));
        b.output({ref(s)});
        auto g = b.build();
        auto p = lower({*g, {s}, {x}, {s}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->kernels.size(), std::size_t(1));
        const Kernel& k = p->kernels[0];
        QVERIFY(k.reductions.empty());
        QCOMPARE(k.shape, (std::vector<std::int64_t>{3, 5}));
        QCOMPARE(k.loads.size(), std::size_t(2));
        QCOMPARE(k.loads[0].access.offset, std::int64_t(0));
        QCOMPARE(k.loads[1].access.offset, std::int64_t(5));
        QCOMPARE(k.loads[1].access.strides, (std::vector<std::int64_t>{10, 1}));
        QVERIFY(!nodeRefusal(**g, s).has_value());

        // exp of [4, 3, 6], summed over dim 1 keepdim: exp pinned at each index of F dim 1
        // (loads at offsets 0, 6, 12 with stride 0 along it), a dim nothing reads along after,
        // iterated once (then merged away: F [4, 6]); the transposed clone of the squeezed sum
        // stores [6, 4] contiguous (strides 1 along F dim 0, 4 along F dim 1).
        GraphBuilder b2;
        const NodeId x2 = b2.placeholder("x", meta({4, 3, 6}));
        const NodeId e = b2.call("exp", "aten::exp.default", {ref(x2)}, {}, meta({4, 3, 6}));
        const NodeId s2 = b2.call("sum", "aten::sum.dim_IntList",
                                  {ref(e), dim1, Argument::boolean(true)}, {}, meta({4, 1, 6}));
        const NodeId q = b2.call("squeeze", "aten::squeeze.dim", {ref(s2), Argument::integer(1)},
                                 {}, meta({4, 6}));
        const NodeId t = b2.call("t", "aten::t.default", {ref(q)}, {}, meta({6, 4}));
        const NodeId c = b2.call("clone", "aten::clone.default", {ref(t)}, {}, meta({6, 4}));
        b2.output({ref(c)});
        auto g2 = b2.build();
        auto p2 = lower({*g2, {e, s2, q, t, c}, {x2}, {c}});
        QVERIFY2(p2.ok(), p2.ok() ? "" : p2.error().toString().c_str());
        QCOMPARE(p2->kernels.size(), std::size_t(1));
        const Kernel& k2 = p2->kernels[0];
        QCOMPARE(k2.shape, (std::vector<std::int64_t>{4, 6}));
        QCOMPARE(k2.loads.size(), std::size_t(3));
        QCOMPARE(k2.loads[2].access.offset, std::int64_t(12));
        QCOMPARE(k2.loads[2].access.strides, (std::vector<std::int64_t>{18, 1}));
        QCOMPARE(k2.stores[0].access.strides, (std::vector<std::int64_t>{1, 4}));

        // Over 9 elements: a column kernel with F permuted so that the reduced dim leads,
        // [9, 3, 5] (9 rows of 15 columns), the input read with strides (5, 45, 1),
        // the sum stored once per column with strides (0, 5, 1).
        GraphBuilder b3;
        const NodeId x3 = b3.placeholder("x", meta({3, 9, 5}));
        const NodeId s3 =
            b3.call("sum", "aten::sum.dim_IntList", {ref(x3), dim1}, {}, meta({3, 5}));
        const NodeId v3 =
            b3.call("var", "aten::var.dim", {ref(x3), dim1}, {}, meta({3, 5}));
        b3.output({ref(s3), ref(v3)});
        auto g3 = b3.build();
        auto p3 = lower({*g3, {s3}, {x3}, {s3}});
        QVERIFY2(p3.ok(), p3.ok() ? "" : p3.error().toString().c_str());
        const Kernel& k3 = p3->kernels[0];
        QVERIFY(k3.columns);
        QCOMPARE(k3.shape, (std::vector<std::int64_t>{9, 3, 5}));
        QCOMPARE(k3.innerDims, 2);
        QCOMPARE(k3.loads[0].access.strides, (std::vector<std::int64_t>{5, 45, 1}));
        QCOMPARE(k3.stores[0].access.strides, (std::vector<std::int64_t>{0, 5, 1}));
        // A variance (two passes) over them is not: refused, saying what is lowered.
        auto q3 = lower({*g3, {v3}, {x3}, {v3}});
        QVERIFY(!q3.ok());
        QVERIFY(q3.error().message.find("unroll up to 8") != std::string::npos);
    }

    void refusesWhatItCannotLower()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({4, 4}));
        const NodeId mm = b.call("mm", "aten::mm.default", {ref(x), ref(x)}, {}, meta({4, 4}));
        const NodeId s0 = b.call("var", "aten::var.dim",
                                 {ref(x), Argument::list({Argument::integer(0)})}, {}, meta({4}));
        b.output({ref(mm), ref(s0)});
        auto g = b.build();
        auto p = lower({*g, {mm}, {x}, {mm}});
        QVERIFY(!p.ok());
        QCOMPARE(int(p.error().code), int(ErrorCode::Unsupported));
        QCOMPARE(p.error().where, std::string("r0:mm"));
        QVERIFY(opRefusal((*g)->node(mm)).has_value());
        QCOMPARE(int(opRefusal((*g)->node(mm))->kind), int(RefusalKind::Op));
        QVERIFY(!opRefusal((*g)->node(s0)).has_value());
        // The op is lowered, but not over the leading dim (var needs two passes over the rows;
        // sum, mean, amax and amin are column reductions): only the trial lowering knows.
        const auto leading = nodeRefusal(**g, s0);
        QVERIFY(leading.has_value());
        QCOMPARE(int(leading->kind), int(RefusalKind::Shape));
        QVERIFY(leading->message.find("trailing") != std::string::npos);
        // A variance over the leading dim is not a trailing-dim reduction.
        auto q = lower({*g, {s0}, {x}, {s0}});
        QVERIFY(!q.ok());
        QVERIFY(q.error().message.find("trailing") != std::string::npos);
    }

    void nodeRefusalNamesDtypesAndLetsPointwiseThrough()
    {
        GraphBuilder b;
        const NodeId z = b.placeholder("z", meta({4, 4}, DType::Complex64));
        const NodeId x = b.placeholder("x", meta({4, 4}));
        const NodeId a = b.call("abs", "aten::abs.default", {ref(z)}, {}, meta({4, 4}));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(x)}, {}, meta({4, 4}));
        const NodeId c = b.call("cast", "aten::_to_copy.default", {ref(x)},
                                {{"dtype", Argument::ofDtype(DType::Int32)}},
                                meta({4, 4}, DType::Int32));
        b.output({ref(a), ref(e), ref(c)});
        auto g = b.build();
        const auto byInput = nodeRefusal(**g, a);
        QVERIFY(byInput.has_value());
        QCOMPARE(int(byInput->kind), int(RefusalKind::Dtype));
        QCOMPARE(byInput->message,
                 std::string("reads z of dtype complex64, which the code generator does not "
                             "support"));
        const auto byOutput = nodeRefusal(**g, c);
        QVERIFY(byOutput.has_value());
        QCOMPARE(int(byOutput->kind), int(RefusalKind::Dtype));
        QCOMPARE(byOutput->message,
                 std::string("dtype int32 is not supported by the code generator"));
        QVERIFY(!nodeRefusal(**g, e).has_value());
    }

    void gelu_backwardLowersOnlyItsExactForm()
    {
        // The generated formula is the erf form; the tanh approximation must stay a LibTorch call.
        for (const char* approx : {"none", "tanh"}) {
            GraphBuilder b;
            const NodeId g = b.placeholder("g", meta({4, 8}));
            const NodeId x = b.placeholder("x", meta({4, 8}));
            const NodeId gb = b.call("gelu_backward", "aten::gelu_backward.default",
                                     {ref(g), ref(x)}, {{"approximate", Argument::string(approx)}},
                                     meta({4, 8}));
            b.output({ref(gb)});
            auto graph = b.build();
            auto p = lower({*graph, {gb}, {g, x}, {gb}});
            QCOMPARE(p.ok(), std::string(approx) == "none");
            if (!p.ok()) {
                QVERIFY(p.error().message.find("approximate=tanh") != std::string::npos);
            }
        }
    }

    void catIsASelectOverGuardedLoads()
    {
        // exp(cat([exp(x), y], -1)) * 2: one flat-free kernel; each input read only in its range
        // along the cat dim (y shifted left by 6), chosen by the index along that dim.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({4, 6}));
        const NodeId y = b.placeholder("y", meta({4, 2}));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(x)}, {}, meta({4, 6}));
        const NodeId c = b.call("cat", "aten::cat.default",
                                {Argument::list({ref(e), ref(y)}), Argument::integer(-1)}, {},
                                meta({4, 8}));
        const NodeId m = b.call("mul", "aten::mul.Tensor", {ref(c), Argument::real(2.0)}, {},
                                meta({4, 8}));
        b.output({ref(m)});
        auto g = b.build();
        QVERIFY(g.ok());
        auto p = lower({*g, {e, c, m}, {x, y}, {m}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->kernels.size(), std::size_t(1));
        const Kernel& k = p->kernels[0];
        QCOMPARE(k.shape, (std::vector<std::int64_t>{4, 8}));
        // Only the shifted, guarded loads are left (the unshifted forms were dead).
        QCOMPARE(k.loads.size(), std::size_t(2));
        QCOMPARE(k.loads[0].access.offset, std::int64_t(0));
        QCOMPARE(k.loads[0].access.strides, (std::vector<std::int64_t>{6, 1}));
        QCOMPARE(k.loads[0].access.guards, (std::vector<Guard>{{1, 0, 6}}));
        QCOMPARE(k.loads[1].access.offset, std::int64_t(-6));
        QCOMPARE(k.loads[1].access.strides, (std::vector<std::int64_t>{2, 1}));
        QCOMPARE(k.loads[1].access.guards, (std::vector<Guard>{{1, 6, 8}}));
        int indexes = 0;
        int wheres = 0;
        for (const auto& ex : k.exprs) {
            indexes += ex.kind == ExprKind::Index && ex.index == 1 ? 1 : 0;
            wheres += ex.op == "where" ? 1 : 0;
        }
        QCOMPARE(indexes, 1);
        QCOMPARE(wheres, 1);
        QVERIFY(!k.flat); // guards read the index along dim 1
    }

    void catOfThreeAlongTheFirstDim()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({1, 5}));
        const NodeId y = b.placeholder("y", meta({2, 5}));
        const NodeId z = b.placeholder("z", meta({3, 5}));
        const NodeId c = b.call("cat", "aten::cat.default",
                                {Argument::list({ref(x), ref(y), ref(z)})}, {}, meta({6, 5}));
        b.output({ref(c)});
        auto g = b.build();
        auto p = lower({*g, {c}, {x, y, z}, {c}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Kernel& k = p->kernels.at(0);
        QCOMPARE(k.loads.size(), std::size_t(3));
        QCOMPARE(k.loads[1].access.offset, std::int64_t(-5));
        QCOMPARE(k.loads[1].access.guards, (std::vector<Guard>{{0, 1, 3}}));
        QCOMPARE(k.loads[2].access.offset, std::int64_t(-15));
        QCOMPARE(k.loads[2].access.guards, (std::vector<Guard>{{0, 3, 6}}));
        // Inputs of other dtypes, or other sizes outside the cat dim, are refused.
        GraphBuilder b2;
        const NodeId u = b2.placeholder("u", meta({2, 5}));
        const NodeId v = b2.placeholder("v", meta({2, 4}));
        const NodeId w = b2.placeholder("w", meta({2, 5}, DType::Float64));
        const NodeId bad = b2.call("cat", "aten::cat.default",
                                   {Argument::list({ref(u), ref(v)})}, {}, meta({4, 5}));
        const NodeId mixed = b2.call("cat_1", "aten::cat.default",
                                     {Argument::list({ref(u), ref(w)})}, {}, meta({4, 5}));
        b2.output({ref(bad), ref(mixed)});
        auto g2 = b2.build();
        auto q = lower({*g2, {bad}, {u, v}, {bad}});
        QVERIFY(!q.ok());
        QVERIFY2(q.error().message.find("sizes differ") != std::string::npos,
                 q.error().message.c_str());
        auto r = lower({*g2, {mixed}, {u, w}, {mixed}});
        QVERIFY(!r.ok());
        QVERIFY(r.error().message.find("dtypes") != std::string::npos);
        QVERIFY(nodeRefusal(**g2, mixed).has_value());
        QVERIFY(!opRefusal((*g2)->node(mixed)).has_value());
    }

    void aPartOfACatIsNeverStored()
    {
        // neg(slice(x)) is shorter than the kernel's index space: it may feed the cat, but as an
        // output it would be written past its end.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({3, 8}));
        const NodeId s = b.call("slice", "aten::slice.Tensor",
                                {ref(x), Argument::integer(1), Argument::integer(4),
                                 Argument::integer(8)},
                                {}, meta({3, 4}));
        const NodeId n = b.call("neg", "aten::neg.default", {ref(s)}, {}, meta({3, 4}));
        const NodeId c = b.call("cat", "aten::cat.default",
                                {Argument::list({ref(n), ref(x)}), Argument::integer(1)}, {},
                                meta({3, 12}));
        b.output({ref(c), ref(n)});
        auto g = b.build();
        QVERIFY(lower({*g, {s, n, c}, {x}, {c}}).ok());
        auto p = lower({*g, {s, n, c}, {x}, {c, n}});
        QVERIFY(!p.ok());
        QCOMPARE(p.error().where, std::string("r0:neg"));
    }

    void constantsAndArangeAreIndexArithmetic()
    {
        // where(x > 0, x, scalar_tensor(-inf)) + arange(8).float(): no load but x's.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({3, 8}));
        const NodeId st = b.call("scalar_tensor", "aten::scalar_tensor.default",
                                 {Argument::real(-std::numeric_limits<double>::infinity())},
                                 {{"dtype", Argument::ofDtype(DType::Float32)}}, meta({}));
        const NodeId gt = b.call("gt", "aten::gt.Scalar", {ref(x), Argument::integer(0)}, {},
                                 meta({3, 8}, DType::Bool));
        const NodeId w = b.call("where", "aten::where.self", {ref(gt), ref(x), ref(st)}, {},
                                meta({3, 8}));
        const NodeId ar = b.call("arange", "aten::arange.default", {Argument::integer(8)}, {},
                                 meta({8}, DType::Int64));
        const NodeId add = b.call("add", "aten::add.Tensor", {ref(w), ref(ar)}, {}, meta({3, 8}));
        b.output({ref(add)});
        auto g = b.build();
        auto p = lower({*g, {st, gt, w, ar, add}, {x}, {add}});
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const Kernel& k = p->kernels.at(0);
        QCOMPARE(k.loads.size(), std::size_t(1));
        bool negInf = false;
        bool index = false;
        for (const auto& ex : k.exprs) {
            negInf = negInf || (ex.kind == ExprKind::Const && std::isinf(ex.value) && ex.value < 0);
            index = index || (ex.kind == ExprKind::Index && ex.index == 1);
        }
        QVERIFY(negInf);
        QVERIFY(index);
        QVERIFY(!nodeRefusal(**g, st).has_value());
        QVERIFY(!nodeRefusal(**g, ar).has_value());
        // A fill value an integer tensor cannot hold is refused with a reason.
        GraphBuilder b2;
        const NodeId bad = b2.call("full", "aten::full.default",
                                   {Argument::list({Argument::integer(2)}),
                                    Argument::real(std::numeric_limits<double>::infinity())},
                                   {{"dtype", Argument::ofDtype(DType::Int64)}},
                                   meta({2}, DType::Int64));
        b2.output({ref(bad)});
        auto g2 = b2.build();
        auto q = lower({*g2, {bad}, {}, {bad}});
        QVERIFY(!q.ok());
        QVERIFY(q.error().message.find("integer dtype cannot hold") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestLowering)
#include "tst_lowering.moc"

FXSCOPE_TEST_END
