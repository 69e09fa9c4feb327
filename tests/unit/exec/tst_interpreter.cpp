// The interpreter on small hand-written graphs: numerics against direct LibTorch calls, every
// kind of argument conversion, liveness (peak bytes), unsupported operators listed before
// anything runs, input synthesis (seeds, symbolic sizes, safe index ranges), the inputs file,
// and feeding a backward graph from its forward graph; substitutes (node groups the caller runs,
// reordered around the nodes they read; a group that is not convex refused).
#include "exec_test_util.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::exec;
using namespace fxs::exec::test;
using graph::Argument;
using graph::DType;
using graph::NodeId;

namespace {

Argument ints(std::vector<std::int64_t> v)
{
    std::vector<Argument> items;
    for (auto i : v) {
        items.push_back(Argument::integer(i));
    }
    return Argument::list(std::move(items));
}

RunReport mustRun(const graph::Graph& g, const RunOptions& o)
{
    auto r = Interpreter::run(g, o);
    if (!r.ok()) {
        qWarning("%s", r.error().toString().c_str());
        return {};
    }
    for (const auto& u : r->unsupported) {
        qWarning("unsupported %s (%s): %s", u.node.c_str(), u.target.c_str(), u.reason.c_str());
    }
    return *r;
}

} // namespace

class TestInterpreter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void substitutesRunInPlaceOfTheirNodes()
    {
        // g = {neg, add} reads abs, which comes after neg in graph order: abs must run first.
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x");
        const NodeId neg = b.call("neg", "aten::neg.default", {Argument::ref(x)});
        const NodeId abs = b.call("abs", "aten::abs.default", {Argument::ref(x)});
        const NodeId add =
            b.call("add", "aten::add.Tensor", {Argument::ref(neg), Argument::ref(abs)});
        const NodeId mul = b.call("mul", "aten::mul.Tensor", {Argument::ref(add), Argument::real(2)});
        b.output({Argument::ref(mul)});
        auto g = b.build().value();
        const at::Tensor xt = at::randn({5});
        RunOptions o;
        o.inputs = storeOf({{"x", xt}});
        int calls = 0;
        o.substitutes.push_back(
            {"g", {neg, add}, {x, abs}, {add},
             [&](const std::vector<TensorHandle>& in) -> Result<std::vector<TensorHandle>> {
                 ++calls;
                 // 3x instead of neg: shows the group ran instead of its nodes.
                 return std::vector<TensorHandle>{
                     makeHandle(3 * tensorOf(in[0]) + tensorOf(in[1]))};
             }});
        auto r = mustRun(*g, o);
        QVERIFY(r.ok);
        QCOMPARE(calls, 1);
        QVERIFY(close(outputTensor(r, 0), (3 * xt + xt.abs()) * 2));
        QCOMPARE(r.nodesRun, 4); // the group's two nodes count as run
        std::vector<std::string> names;
        for (const auto& n : r.perNode) {
            names.push_back(n.name);
        }
        QCOMPARE(names, (std::vector<std::string>{"abs", "g", "mul"}));
        QCOMPARE(r.perNode[1].target, std::string("fxscope.substitute"));
    }

    void aSubstituteThatIsNotConvexIsRefused()
    {
        // neg -> abs -> add with g = {neg, add}: a path leaves g and comes back.
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x");
        const NodeId neg = b.call("neg", "aten::neg.default", {Argument::ref(x)});
        const NodeId abs = b.call("abs", "aten::abs.default", {Argument::ref(neg)});
        const NodeId add =
            b.call("add", "aten::add.Tensor", {Argument::ref(neg), Argument::ref(abs)});
        b.output({Argument::ref(add)});
        auto g = b.build().value();
        RunOptions o;
        o.inputs = storeOf({{"x", at::randn({5})}});
        o.substitutes.push_back({"g", {neg, add}, {x, abs}, {add},
                                 [](const std::vector<TensorHandle>& in) {
                                     return Result<std::vector<TensorHandle>>(in);
                                 }});
        auto r = Interpreter::run(*g, o);
        QVERIFY(r.ok());
        QVERIFY(!r->ok);
        QCOMPARE(r->unsupported.size(), std::size_t(1));
        QCOMPARE(r->unsupported[0].node, std::string("g"));
        QVERIFY(r->unsupported[0].reason.find("convex") != std::string::npos);
    }

    void addMulMatchesLibTorch()
    {
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x");
        const NodeId y = b.placeholder("y");
        const NodeId add = b.call("add", "aten::add.Tensor", {Argument::ref(x), Argument::ref(y)},
                                  {{"alpha", Argument::integer(2)}});
        const NodeId mul =
            b.call("mul", "aten::mul.Tensor", {Argument::ref(add), Argument::real(0.5)});
        const NodeId mm = b.call("mm", "aten::mm.default", {Argument::ref(mul), Argument::ref(y)});
        b.output({Argument::ref(mm), Argument::ref(add)});
        auto g = b.build().value();
        at::manual_seed(3);
        auto xt = at::randn({3, 3});
        auto yt = at::randn({3, 3});
        RunOptions o;
        o.inputs = storeOf({{"x", xt}, {"y", yt}});
        auto r = mustRun(*g, o);
        QVERIFY(r.ok);
        QCOMPARE(r.nodesRun, 3);
        QCOMPARE(r.device, std::string("cpu"));
        QVERIFY(close(outputTensor(r, 0), at::mm((xt + 2 * yt) * 0.5, yt)));
        QVERIFY(close(outputTensor(r, 1), xt + 2 * yt));
        QCOMPARE(r.perNode.size(), std::size_t(3));
        QCOMPARE(r.perNode[2].target, std::string("aten::mm.default"));
        QCOMPARE(r.outputs[0].shape, (std::vector<std::int64_t>{3, 3}));
        QCOMPARE(r.outputs[0].dtype, std::string("float32"));
        QCOMPARE(r.outputs[0].name, std::string("mm"));
        // Without summaries (timing loops): no output is read on the host, the values are kept.
        o.summarizeOutputs = false;
        auto quiet = mustRun(*g, o);
        QVERIFY(quiet.ok);
        QVERIFY(quiet.outputs.empty());
        QVERIFY(close(outputTensor(quiet, 0), at::mm((xt + 2 * yt) * 0.5, yt)));
    }

    void scalarToTensorKeepsIntegerDtype()
    {
        // add.Tensor(i64 scalar, 1): the literal becomes a wrapped number, the result stays i64.
        graph::GraphBuilder b;
        const NodeId n = b.placeholder("n");
        const NodeId add =
            b.call("add", "aten::add.Tensor", {Argument::ref(n), Argument::integer(1)});
        b.output({Argument::ref(add)});
        RunOptions o;
        o.inputs = storeOf({{"n", at::scalar_tensor(41, at::kLong)}});
        auto r = mustRun(*b.build().value(), o);
        QVERIFY(r.ok);
        QCOMPARE(outputTensor(r, 0).scalar_type(), at::kLong);
        QCOMPARE(outputTensor(r, 0).item<std::int64_t>(), std::int64_t(42));
    }

    void runtimeErrorNamesTheNode()
    {
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x", metaOf(DType::Float32, {2, 3}));
        const NodeId mm =
            b.call("bad_mm", "aten::mm.default", {Argument::ref(x), Argument::ref(x)});
        b.output({Argument::ref(mm)});
        auto r = Interpreter::run(*b.build().value(), {});
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Runtime);
        QCOMPARE(r.error().where, std::string("bad_mm"));
    }

    void argumentKinds()
    {
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x");
        const NodeId idx = b.placeholder("idx");
        const NodeId sum = b.call("sum", "aten::sum.dim_IntList",
                                  {Argument::ref(x), ints({1}), Argument::boolean(true)});
        const NodeId cast = b.call("cast", "aten::_to_copy.default", {Argument::ref(x)},
                                   {{"dtype", Argument::ofDtype(DType::Float64)}});
        const NodeId cl = b.call("cl", "aten::clone.default", {Argument::ref(x)},
                                 {{"memory_format", Argument::memoryFormat("contiguous_format")}});
        const NodeId full =
            b.call("full", "aten::full.default", {ints({2, 3}), Argument::real(1.5)},
                   {{"dtype", Argument::ofDtype(DType::Float32)},
                    {"layout", Argument::layout("strided")},
                    {"device", Argument::ofDevice({"cuda", 0})},
                    {"pin_memory", Argument::boolean(false)}});
        const NodeId cat =
            b.call("cat", "aten::cat.default",
                   {Argument::list({Argument::ref(x), Argument::ref(cl)}), Argument::integer(1)});
        const NodeId index =
            b.call("index", "aten::index.Tensor",
                   {Argument::ref(x), Argument::list({Argument::none(), Argument::ref(idx)})});
        const NodeId gelu = b.call("gelu", "aten::gelu.default", {Argument::ref(x)},
                                   {{"approximate", Argument::string("tanh")}});
        const NodeId ln = b.call("ln", "aten::native_layer_norm.default",
                                 {Argument::ref(x), ints({3}), Argument::none(), Argument::none(),
                                  Argument::real(1e-5)});
        const NodeId ln0 = b.getitem("ln0", ln, 0);
        const NodeId ln2 = b.getitem("ln2", ln, 2);
        const NodeId x3 =
            b.call("x3", "aten::unsqueeze.default", {Argument::ref(x), Argument::integer(0)});
        const NodeId pool = b.call("pool", "aten::max_pool2d_with_indices.default",
                                   {Argument::ref(x3), Argument::integer(2)});
        const NodeId pool0 = b.getitem("pool0", pool, 0);
        const NodeId size0 =
            b.call("size0", "aten::sym_size.int", {Argument::ref(x), Argument::integer(0)});
        const NodeId twice =
            b.call("twice", "operator.mul", {Argument::ref(size0), Argument::integer(2)});
        const NodeId view = b.call(
            "view", "aten::view.default",
            {Argument::ref(cat), Argument::list({Argument::ref(twice), Argument::integer(-1)})});
        b.output({Argument::ref(sum), Argument::ref(cast), Argument::ref(full),
                  Argument::ref(index), Argument::ref(gelu), Argument::ref(ln0), Argument::ref(ln2),
                  Argument::ref(view), Argument::ref(twice), Argument::none(),
                  Argument::ref(pool0)});
        auto g = b.build();
        QVERIFY(g.ok());
        at::manual_seed(4);
        auto xt = at::randn({4, 3});
        auto it = at::tensor({2, 0, 1, 2}, at::kLong);
        RunOptions o;
        o.inputs = storeOf({{"x", xt}, {"idx", it}});
        auto r = mustRun(**g, o);
        QVERIFY(r.ok);
        QVERIFY(close(outputTensor(r, 0), xt.sum({1}, true)));
        QCOMPARE(outputTensor(r, 1).scalar_type(), at::kDouble);
        QVERIFY(close(outputTensor(r, 2), at::full({2, 3}, 1.5)));
        QCOMPARE(outputTensor(r, 2).device().type(), at::kCPU); // device remapped to the run's
        QVERIFY(close(outputTensor(r, 3), xt.index_select(1, it)));
        QVERIFY(close(outputTensor(r, 4), at::gelu(xt, "tanh")));
        auto ref = at::native_layer_norm(xt, {3}, {}, {}, 1e-5);
        QVERIFY(close(outputTensor(r, 5), std::get<0>(ref)));
        QVERIFY(close(outputTensor(r, 6), std::get<2>(ref)));
        QVERIFY(close(outputTensor(r, 7), at::cat({xt, xt}, 1).view({8, -1})));
        QCOMPARE(r.outputs[8].value, std::string("8"));
        QCOMPARE(r.outputs[9].value, std::string("None"));
        QVERIFY(close(outputTensor(r, 10),
                      std::get<0>(at::max_pool2d_with_indices(xt.unsqueeze(0), {2, 2}))));
    }

    void livenessFreesValues()
    {
        // x (1 MiB) -> neg x10: with frees, at most x + the previous + the current value live.
        graph::GraphBuilder b;
        NodeId prev = b.placeholder("x", metaOf(DType::Float32, {256, 1024}));
        for (int i = 0; i < 10; ++i) {
            prev = b.call("n" + std::to_string(i), "aten::neg.default", {Argument::ref(prev)});
        }
        b.output({Argument::ref(prev)});
        auto r = mustRun(*b.build().value(), {});
        QVERIFY(r.ok);
        QCOMPARE(r.peakBytes, std::int64_t(3 * 256 * 1024 * 4));
        // Keeping every value holds all 11 MiB.
        graph::GraphBuilder k;
        prev = k.placeholder("x", metaOf(DType::Float32, {256, 1024}));
        RunOptions o;
        for (int i = 0; i < 10; ++i) {
            prev = k.call("n" + std::to_string(i), "aten::neg.default", {Argument::ref(prev)});
            o.keep.push_back("n" + std::to_string(i));
        }
        k.output({Argument::ref(prev)});
        auto all = mustRun(*k.build().value(), o);
        QCOMPARE(all.peakBytes, std::int64_t(11 * 256 * 1024 * 4));
        QCOMPARE(all.kept.size(), std::size_t(11)); // 10 kept + output.0
    }

    void unsupportedListedUpFront()
    {
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x", metaOf(DType::Float32, {2}));
        const NodeId ok = b.call("relu", "aten::relu.default", {Argument::ref(x)});
        const NodeId bad =
            b.call("weird", "aten::definitely_not_an_op.default", {Argument::ref(ok)});
        const NodeId dyn = b.call("sin", "torch.sin", {Argument::ref(bad)});
        const NodeId kw = b.call("kw", "aten::relu.default", {Argument::ref(dyn)},
                                 {{"nonsense", Argument::integer(1)}});
        b.output({Argument::ref(kw)});
        auto g = b.build().value();
        QCOMPARE(Interpreter::checkSupport(*g).size(), std::size_t(3));
        auto r = Interpreter::run(*g, {});
        QVERIFY(r.ok());
        QVERIFY(!r->ok);
        QCOMPARE(r->nodesRun, 0);
        QVERIFY(r->perNode.empty());
        QCOMPARE(r->unsupported.size(), std::size_t(3));
        QCOMPARE(r->unsupported[0].node, std::string("weird"));
        QCOMPARE(r->unsupported[0].target, std::string("aten::definitely_not_an_op.default"));
        QCOMPARE(r->unsupported[1].node, std::string("sin"));
        QCOMPARE(r->unsupported[2].node, std::string("kw"));
        QVERIFY(r->unsupported[2].reason.find("nonsense") != std::string::npos);
    }

    void synthesisIsSeededAndBoundsIndices()
    {
        graph::GraphBuilder b;
        const NodeId w = b.placeholder("w", metaOf(DType::Float32, {10, 4}));
        const NodeId idx = b.placeholder("idx", metaOf(DType::Int64, {500}));
        const NodeId v = b.call("v", "aten::view.default", {Argument::ref(idx), ints({25, 20})});
        const NodeId emb =
            b.call("emb", "aten::embedding.default", {Argument::ref(w), Argument::ref(v)});
        b.output({Argument::ref(emb)});
        auto g = b.build().value();
        RunOptions o;
        o.keep = {"idx", "w"};
        auto r1 = mustRun(*g, o);
        QVERIFY(r1.ok);
        auto i1 = tensorOf(*r1.kept.find("idx"));
        QCOMPARE(i1.min().item<std::int64_t>(), std::int64_t(0));
        QCOMPARE(i1.max().item<std::int64_t>(), std::int64_t(9)); // 500 draws cover [0, 10)
        auto r2 = mustRun(*g, o);
        QVERIFY(at::equal(tensorOf(*r2.kept.find("w")), tensorOf(*r1.kept.find("w"))));
        o.seed = 5;
        auto r3 = mustRun(*g, o);
        QVERIFY(!at::equal(tensorOf(*r3.kept.find("w")), tensorOf(*r1.kept.find("w"))));
    }

    void synthesisScalesWeightsAndKeepsVariancesPositive()
    {
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x", metaOf(DType::Float32, {8, 256}));
        const NodeId w = b.placeholder("w", metaOf(DType::Float32, {64, 256}));
        const NodeId rv = b.placeholder("rv", metaOf(DType::Float32, {64}));
        const NodeId rm = b.placeholder("rm", metaOf(DType::Float32, {64}));
        const NodeId t = b.call("t", "aten::t.default", {Argument::ref(w)}, {},
                                metaOf(DType::Float32, {256, 64}));
        const NodeId mm = b.call("mm", "aten::mm.default", {Argument::ref(x), Argument::ref(t)});
        const NodeId bn = b.call("bn", "aten::_native_batch_norm_legit_no_training.default",
                                 {Argument::ref(mm), Argument::none(), Argument::none(),
                                  Argument::ref(rm), Argument::ref(rv), Argument::real(0.1),
                                  Argument::real(1e-5)});
        b.output({Argument::ref(b.getitem("out", bn, 0))});
        RunOptions o;
        o.keep = {"x", "w", "rv"};
        auto r = mustRun(*b.build().value(), o);
        QVERIFY(r.ok);
        // w feeds mm through t: a weight with fan-in 256, so its std is about 1/16.
        const double wStd = tensorOf(*r.kept.find("w")).std().item<double>();
        QVERIFY2(std::abs(wStd - 1.0 / 16) < 0.005, std::to_string(wStd).c_str());
        const double xStd = tensorOf(*r.kept.find("x")).std().item<double>();
        QVERIFY(std::abs(xStd - 1.0) < 0.1);
        // The running variance is kept in [0.5, 1.5).
        QVERIFY(tensorOf(*r.kept.find("rv")).min().item<double>() >= 0.5);
        QVERIFY(tensorOf(*r.kept.find("rv")).max().item<double>() < 1.5);
    }

    void symbolicSizesAndStrides()
    {
        graph::GraphBuilder b;
        graph::TensorMeta m;
        m.dtype = DType::Float32;
        m.sizes = {graph::SymInt::symbol("s0"), graph::SymInt::symbol("2*s1 + 1")};
        m.strides = std::vector<graph::SymInt>{graph::SymInt::of(1), graph::SymInt::symbol("s0")};
        const NodeId x = b.placeholder("x", m);
        b.output({Argument::ref(x)});
        auto g = b.build().value();
        RunOptions o;
        o.sizes = {{"s0", 3}, {"s1", 2}};
        auto r = mustRun(*g, o);
        QVERIFY(r.ok);
        QCOMPARE(r.outputs[0].shape, (std::vector<std::int64_t>{3, 5}));
        QCOMPARE(outputTensor(r, 0).strides().vec(), (std::vector<std::int64_t>{1, 3}));
        o.sizes.erase("s1");
        auto missing = Interpreter::run(*g, o);
        QVERIFY(!missing.ok());
        QVERIFY(missing.error().message.find("s1") != std::string::npos);
        QCOMPARE(missing.error().where, std::string("x"));
    }

    void inputsFileByName()
    {
        // inputs_xy.pt: torch.save({"x": arange(6).view(2, 3).float(), "y": full((2, 3), 10.)})
        // (tests/data/exec/make_inputs.py)
        graph::GraphBuilder b;
        const NodeId x = b.placeholder("x");
        const NodeId y = b.placeholder("y");
        b.output({Argument::ref(
            b.call("add", "aten::add.Tensor", {Argument::ref(x), Argument::ref(y)}))});
        RunOptions o;
        o.inputsFile = FXSCOPE_TEST_DATA "/exec/inputs_xy.pt";
        auto r = mustRun(*b.build().value(), o);
        QVERIFY(r.ok);
        const auto values = r.kept.find("output.0")->toDoubles();
        QCOMPARE(values, (std::vector<double>{10, 11, 12, 13, 14, 15}));
        // inputs_list1.pt: torch.save([arange(3.)]): positional, and a one-element list.
        graph::GraphBuilder p;
        p.output({Argument::ref(
            p.call("neg", "aten::neg.default", {Argument::ref(p.placeholder("a"))}))});
        RunOptions po;
        po.inputsFile = FXSCOPE_TEST_DATA "/exec/inputs_list1.pt";
        auto pr = mustRun(*p.build().value(), po);
        QVERIFY(pr.ok);
        QCOMPARE(pr.kept.find("output.0")->toDoubles(), (std::vector<double>{-0.0, -1, -2}));
        o.inputsFile = FXSCOPE_TEST_DATA "/exec/does_not_exist.pt";
        auto bad = Interpreter::run(*b.build().value(), o);
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().code, ErrorCode::Io);
    }

    void backwardFedFromForward()
    {
        // fw: mm = a @ w; out = relu(mm); returns (out, w, mm)   [out: user output]
        graph::GraphBuilder f;
        const NodeId a = f.placeholder("primals_1", metaOf(DType::Float32, {3, 4}));
        const NodeId w = f.placeholder("primals_2", metaOf(DType::Float32, {4, 5}));
        const NodeId mm = f.call("mm", "aten::mm.default", {Argument::ref(a), Argument::ref(w)},
                                 {}, metaOf(DType::Float32, {3, 5}));
        const NodeId out = f.call("relu", "aten::relu.default", {Argument::ref(mm)}, {},
                                  metaOf(DType::Float32, {3, 5}));
        f.output({Argument::ref(out), Argument::ref(a), Argument::ref(mm)});
        f.node(f.size() - 1).outputAot = {std::nullopt, std::nullopt,
                                          graph::AotTag{"SavedForBackwardsAOTOutput",
                                                        "SavedForBackwardsAOTOutput(idx=1)", 1}};
        auto fw = f.build().value();
        // bw: primals_1 by name, `saved` by AOT comment (the forward's mm), tangents_1 without
        // meta (takes relu's shape); grad_w = a^T (tangent * (mm > 0)).
        graph::GraphBuilder bb;
        const NodeId pa = bb.placeholder("primals_1");
        const NodeId saved = bb.placeholder("saved");
        bb.node(saved).aot = graph::AotTag{"SavedForBackwardsAOTOutput",
                                           " SavedForBackwardsAOTOutput(idx=1)", 1};
        const NodeId tan = bb.placeholder("tangents_1");
        const NodeId tb = bb.call("tb", "aten::threshold_backward.default",
                                  {Argument::ref(tan), Argument::ref(saved), Argument::integer(0)});
        const NodeId at_ = bb.call("at", "aten::t.default", {Argument::ref(pa)});
        const NodeId gw =
            bb.call("gw", "aten::mm.default", {Argument::ref(at_), Argument::ref(tb)});
        bb.output({Argument::ref(gw)});
        auto bw = bb.build().value();
        RunOptions o;
        o.forwardGraph = fw;
        o.keep = {"primals_1", "saved", "tangents_1"};
        auto r = mustRun(*bw, o);
        QVERIFY(r.ok);
        auto pa1 = tensorOf(*r.kept.find("primals_1"));
        auto mmv = tensorOf(*r.kept.find("saved"));
        auto tanv = tensorOf(*r.kept.find("tangents_1"));
        QCOMPARE(tanv.sizes().vec(), (std::vector<std::int64_t>{3, 5}));
        QCOMPARE(mmv.sizes().vec(), (std::vector<std::int64_t>{3, 5}));
        // The forward's primals_2 is not kept, but mm = primals_1 @ primals_2 must be
        // consistent with primals_1: check the gradient formula on the fed values.
        QVERIFY(close(outputTensor(r, 0), at::mm(pa1.t(), tanv * (mmv > 0))));
        QVERIFY(r.notes.back().find("1 by AOT comment, 1 by name; 1 tangents") !=
                std::string::npos);

        // An input that matches nothing is an error naming it.
        o.keep.clear();
        graph::GraphBuilder u;
        const NodeId lost = u.placeholder("mystery_value", metaOf(DType::Float32, {2}));
        u.output({Argument::ref(lost)});
        auto unmatched = Interpreter::run(*u.build().value(), o);
        QVERIFY(!unmatched.ok());
        QVERIFY(unmatched.error().message.find("mystery_value") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestInterpreter)
#include "tst_interpreter.moc"

FXSCOPE_TEST_END
