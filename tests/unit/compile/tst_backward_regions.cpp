// Backward forms lowered as pointwise + row reductions, each compiled and checked against
// LibTorch's own kernel (the eager engine runs aten::native_layer_norm_backward,
// _softmax_backward_data and _log_softmax_backward_data): native_layer_norm_backward's
// grad_input, and a graph that also reads grad_weight (a reduction over rows the loop IR does
// not do), where the node stays a LibTorch call.
#include "core/exec/interpreter.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

constexpr std::int64_t kRows = 24;
constexpr std::int64_t kCols = 96;

using test::meta;
using test::ref;
Argument ints(std::vector<std::int64_t> v)
{
    std::vector<Argument> items;
    for (auto x : v) {
        items.push_back(Argument::integer(x));
    }
    return Argument::list(items);
}
Argument bools(std::vector<bool> v)
{
    std::vector<Argument> items;
    for (bool x : v) {
        items.push_back(Argument::boolean(x));
    }
    return Argument::list(items);
}

double maxDiff(const exec::TensorHandle& a, const exec::TensorHandle& b)
{
    const auto x = a.toDoubles();
    const auto y = b.toDoubles();
    if (x.size() != y.size()) {
        return 1e30;
    }
    double m = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        m = std::max(m, std::abs(x[i] - y[i]));
    }
    return m;
}

} // namespace

class TestBackwardRegions : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

    // Runs the graph on the eager engine (LibTorch), compiles `region` and returns both.
    std::pair<exec::RunReport, compile::RegionOutcome> compileAgainstEager(
        const GraphPtr& g, const std::vector<NodeId>& region, const std::vector<std::string>& keep)
    {
        exec::RunOptions o;
        o.seed = 7;
        o.keep = keep;
        o.perNodeTiming = false;
        auto run = exec::Interpreter::run(*g, o);
        if (!run || !run->ok) {
            qFatal("eager run failed: %s", run ? "unsupported op" : run.error().toString().c_str());
        }
        compile::RegionCompiler rc(test::compileOptions(m_store.get(), 1));
        auto out = rc.compileAndRun(*g, {"r0", region, ""}, run->kept);
        return {*run, out};
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_store = test::openStore(m_dir.path().toStdString());
        QVERIFY(m_store);
    }

    void layerNormBackwardGradInput()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({kRows, kCols}));
        const NodeId w = b.placeholder("w", meta({kCols}));
        const NodeId bias = b.placeholder("b", meta({kCols}));
        const NodeId go = b.placeholder("go", meta({kRows, kCols}));
        const NodeId ln = b.call("native_layer_norm", "aten::native_layer_norm.default",
                                 {ref(x), ints({kCols}), ref(w), ref(bias), Argument::real(1e-5)});
        b.getitem("getitem", ln, 0, meta({kRows, kCols}));
        const NodeId mean = b.getitem("getitem_1", ln, 1, meta({kRows, 1}));
        const NodeId rstd = b.getitem("getitem_2", ln, 2, meta({kRows, 1}));
        const NodeId bw = b.call("native_layer_norm_backward",
                                 "aten::native_layer_norm_backward.default",
                                 {ref(go), ref(x), ints({kCols}), ref(mean), ref(rstd), ref(w),
                                  ref(bias), bools({true, false, false})});
        const NodeId gi = b.getitem("getitem_3", bw, 0, meta({kRows, kCols}));
        const NodeId sc = b.call("mul", "aten::mul.Tensor", {ref(gi), Argument::real(0.5)}, {},
                                 meta({kRows, kCols}));
        b.output({ref(sc)});
        const auto [run, out] = compileAgainstEager(*b.build(), {bw, gi, sc},
                                                    {"go", "x", "getitem_1", "getitem_2", "w", "b"});
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.externNodes, 0);
        // By hand: the canonical order is the backward (v0), its getitem (v1), the mul (v2); the
        // source names them so, never by name; the kernel is a row kernel over the 24 x 96 input.
        QVERIFY(out.source.find("// fx0_row_sub_mul_sum_24x96: covers FX nodes v0, v1, v2\n") !=
                std::string::npos);
        QVERIFY(out.source.find("native_layer_norm_backward") == std::string::npos);
        const double d = maxDiff(out.outputs.at(0), *run.kept.find("output.0"));
        QVERIFY2(d < 1e-4, std::to_string(d).c_str());
        // grad_input sums to zero over each row (the sum is -rstd * sum(xhat) * mean(g * xhat)
        // and xhat has zero mean): a check that does not come from LibTorch.
        const auto v = out.outputs.at(0).toDoubles();
        for (std::int64_t r = 0; r < kRows; ++r) {
            double sum = 0;
            for (std::int64_t c = 0; c < kCols; ++c) {
                sum += v[std::size_t(r * kCols + c)];
            }
            QVERIFY2(std::abs(sum) < 1e-3, std::to_string(sum).c_str());
        }
    }

    // grad_weight read: grad_input (and tanh of it) in the row kernel, grad_weight from a column
    // kernel after it (column_ops.cpp); before column reductions the node and its getitems
    // stayed LibTorch calls.
    void layerNormBackwardReadingGradWeightIsAColumnKernel()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({kRows, kCols}));
        const NodeId w = b.placeholder("w", meta({kCols}));
        const NodeId mean = b.placeholder("mean", meta({kRows, 1}));
        const NodeId rstd = b.placeholder("rstd", meta({kRows, 1}));
        const NodeId go = b.placeholder("go", meta({kRows, kCols}));
        const NodeId bw = b.call("native_layer_norm_backward",
                                 "aten::native_layer_norm_backward.default",
                                 {ref(go), ref(x), ints({kCols}), ref(mean), ref(rstd), ref(w),
                                  Argument::none(), bools({true, true, false})});
        const NodeId gi = b.getitem("getitem", bw, 0, meta({kRows, kCols}));
        const NodeId gw = b.getitem("getitem_1", bw, 1, meta({kCols}));
        const NodeId t = b.call("tanh", "aten::tanh.default", {ref(gi)}, {}, meta({kRows, kCols}));
        b.output({ref(t), ref(gw)});
        const auto [run, out] =
            compileAgainstEager(*b.build(), {bw, gi, gw, t}, {"go", "x", "mean", "rstd", "w"});
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.externNodes, 0);
        QCOMPARE(out.kernels, 2); // the row kernel, then the column kernel
        // Region outputs come in graph order (getitem_1, tanh); the graph returns (tanh, gw).
        QCOMPARE(out.outputNames, (std::vector<std::string>{"getitem_1", "tanh"}));
        QVERIFY(maxDiff(out.outputs.at(1), *run.kept.find("output.0")) < 1e-5);
        QVERIFY(maxDiff(out.outputs.at(0), *run.kept.find("output.1")) < 1e-5);
    }

    void softmaxBackward_data()
    {
        QTest::addColumn<QString>("forward");
        QTest::addColumn<bool>("rowSumsToZero");
        QTest::newRow("softmax") << "_softmax" << true;
        QTest::newRow("log_softmax") << "_log_softmax" << false;
    }

    void softmaxBackward()
    {
        // (log_)softmax(x) then its backward data op on a synthesised grad_output.
        QFETCH(QString, forward);
        QFETCH(bool, rowSumsToZero);
        const std::string fw = forward.toStdString();
        const std::string bwName = fw + "_backward_data";
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({kRows, kCols}));
        const NodeId go = b.placeholder("go", meta({kRows, kCols}));
        const NodeId y = b.call(fw, "aten::" + fw + ".default",
                                {ref(x), Argument::integer(-1), Argument::boolean(false)}, {},
                                meta({kRows, kCols}));
        const NodeId bw = b.call(bwName, "aten::" + bwName + ".default",
                                 {ref(go), ref(y), Argument::integer(-1),
                                  Argument::ofDtype(DType::Float32)},
                                 {}, meta({kRows, kCols}));
        b.output({ref(bw)});
        const auto [run, out] = compileAgainstEager(*b.build(), {bw}, {"go", fw});
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        // One node, generated: canonical position v0; its name never reaches the source. The
        // kernel is named after what it computes: softmax's y * (g - sum(g * y)), log_softmax's
        // g - exp(y) * sum(g), rows of 96.
        const std::string kernel = fw == "_softmax" ? "fx0_row_mul_sub_sum_24x96"
                                                    : "fx0_row_exp_mul_sub_sum_24x96";
        QVERIFY2(out.source.find("// " + kernel + ": covers FX nodes v0\n") != std::string::npos,
                 out.source.c_str());
        QVERIFY(out.source.find(bwName) == std::string::npos);
        QVERIFY(maxDiff(out.outputs.at(0), *run.kept.find("output.0")) < 1e-5);
        if (rowSumsToZero) {
            // Softmax's gradient sums to zero over the row (not LibTorch's word for it).
            const auto v = out.outputs.at(0).toDoubles();
            double sum = 0;
            for (std::int64_t c = 0; c < kCols; ++c) {
                sum += v[std::size_t(c)];
            }
            QVERIFY(std::abs(sum) < 1e-5);
        }
    }
};

QTEST_GUILESS_MAIN(TestBackwardRegions)
#include "tst_backward_regions.moc"

FXSCOPE_TEST_END
