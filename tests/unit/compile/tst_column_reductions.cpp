// Column reductions (reductions over leading dims, loop_ir.h: Kernel::columns) against eager
// LibTorch: sums, means and amax/amin over the first dim, over the first two of a 3-D operand,
// keepdim and not, odd sizes; pointwise producers fused into the pass over the rows and their
// outputs stored from the same kernel; the bias-gradient pattern of the GPT-12 backward (a view
// of a computed value merging dims, then a column sum); native_layer_norm_backward with its
// weight and bias gradients read. Each region is built with g++, run, and compared with the
// LibTorch eager interpreter; the kernel counts are checked by hand against eager's launches.
#include "core/exec/interpreter.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"
#include "tests/unit/compile/whole_graph_case.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

using Case = test::WholeGraphCase;

Case parse(const std::string& code) { return test::parseWholeGraphCase(code); }

// Largest |a - b| / (1 + |b|) over finite values; infinity where NaN/Inf positions or sizes
// differ.
double maxDiff(const exec::TensorHandle& a, const exec::TensorHandle& b)
{
    if (a.sizes() != b.sizes()) {
        return INFINITY;
    }
    const auto x = a.toDoubles();
    const auto y = b.toDoubles();
    double m = 0;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (std::isfinite(x[i]) && std::isfinite(y[i])) {
            m = std::max(m, std::abs(x[i] - y[i]) / (1 + std::abs(y[i])));
        } else if (!(std::isnan(x[i]) && std::isnan(y[i])) && x[i] != y[i]) {
            return INFINITY;
        }
    }
    return m;
}

std::string graphOf(const std::string& params, const std::string& body)
{
    return "def forward(self, " + params + "):\n" + body;
}

} // namespace

class TestColumnReductions : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

    // Compiles the case's region and runs it; diff: its outputs' largest relative difference
    // from the eager run's.
    compile::RegionOutcome compileAndCompare(const Case& c, double& diff)
    {
        exec::RunOptions o;
        o.seed = 11;
        o.keep = c.keep;
        o.perNodeTiming = false;
        auto run = exec::Interpreter::run(*c.graph, o);
        if (!run || !run->ok) {
            qFatal("eager run failed: %s", run ? "unsupported" : run.error().toString().c_str());
        }
        compile::RegionCompiler rc(test::compileOptions(m_store.get(), 1));
        auto out = rc.compileAndRun(*c.graph, {"r0", c.region, ""}, run->kept);
        // Region outputs by name against the graph's returned values (their order may differ).
        const std::vector<NodeId> returned = c.graph->returnedNodes();
        diff = out.outputs.empty() || out.outputs.size() != returned.size() ? INFINITY : 0.0;
        for (std::size_t i = 0; i < out.outputs.size() && i < out.outputNames.size(); ++i) {
            std::size_t k = 0;
            while (k < returned.size() && c.graph->node(returned[k]).name != out.outputNames[i]) {
                ++k;
            }
            const exec::TensorHandle* want = run->kept.find("output." + std::to_string(k));
            diff = want ? std::max(diff, maxDiff(out.outputs[i], *want)) : INFINITY;
        }
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_store = test::openStore(m_dir.path().toStdString());
        QVERIFY(m_store);
    }

    void columnsMatchEager_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<double>("tolerance");
        QTest::addColumn<int>("externs"); // nodes left to LibTorch (free views)
        // Eager: one reduce kernel each; generated: one column kernel.
        QTest::newRow("sum [0] keepdim, 37 x 300")
            << QString::fromStdString(graphOf(R"(x: "f32[37, 300][300, 1]cpu")",
                                              R"(    sum_1: "f32[1, 300][300, 1]cpu" = torch.ops.aten.sum.dim_IntList(x, [0], True)
    return (sum_1,)
)")) << 1 << 1e-5 << 0;
        QTest::newRow("sum [0] not keepdim, then a view")
            << QString::fromStdString(graphOf(R"(x: "f32[37, 300][300, 1]cpu")",
                                              R"(    sum_1: "f32[300][1]cpu" = torch.ops.aten.sum.dim_IntList(x, [0])
    view: "f32[1, 300][300, 1]cpu" = torch.ops.aten.view.default(sum_1, [1, 300])
    return (view,)
)")) << 1 << 1e-5 << 0;
        // The LLaMA-24 backward's RMSNorm weight gradients: sum.dim_IntList(mul(grad, normed),
        // [0, 1], True), then a view. Eager: mul, sum (2 kernels); generated: 1.
        QTest::newRow("sum [0, 1] keepdim of a product, 3-D (LLaMA RMSNorm weight gradient)")
            << QString::fromStdString(graphOf(
                   R"(g: "f32[3, 50, 70][3500, 70, 1]cpu", h: "f32[3, 50, 70][3500, 70, 1]cpu")",
                   R"(    mul: "f32[3, 50, 70][3500, 70, 1]cpu" = torch.ops.aten.mul.Tensor(g, h)
    sum_1: "f32[1, 1, 70][70, 70, 1]cpu" = torch.ops.aten.sum.dim_IntList(mul, [0, 1], True)
    view: "f32[70][1]cpu" = torch.ops.aten.view.default(sum_1, [70])
    return (view,)
)")) << 1 << 1e-5 << 0;
        // Eager: gelu_backward, sum (2 kernels); generated: 1 storing both.
        QTest::newRow("pointwise output and its column sum from one kernel")
            << QString::fromStdString(graphOf(
                   R"(g: "f32[37, 300][300, 1]cpu", x: "f32[37, 300][300, 1]cpu")",
                   R"(    gelu_backward: "f32[37, 300][300, 1]cpu" = torch.ops.aten.gelu_backward.default(g, x)
    sum_1: "f32[1, 300][300, 1]cpu" = torch.ops.aten.sum.dim_IntList(gelu_backward, [0], True)
    view: "f32[300][1]cpu" = torch.ops.aten.view.default(sum_1, [300])
    return (gelu_backward, view)
)")) << 1 << 1e-5 << 0;
        // Eager: mean, amax, amin (3 kernels); generated: 1.
        QTest::newRow("mean, amax and amin over [0, 1], 600 rows x 20 columns")
            << QString::fromStdString(graphOf(R"(x: "f32[2, 300, 20][6000, 20, 1]cpu")",
                                              R"(    mean: "f32[20][1]cpu" = torch.ops.aten.mean.dim(x, [0, 1])
    amax: "f32[1, 1, 20][20, 20, 1]cpu" = torch.ops.aten.amax.default(x, [0, 1], True)
    amin: "f32[20][1]cpu" = torch.ops.aten.amin.default(x, [0, 1])
    return (mean, amax, amin)
)")) << 1 << 1e-5 << 0;
        // Eager: mul, sum, mul (3 kernels); generated: 1, the weight read per column.
        QTest::newRow("bfloat16, two kept dims, an epilogue product")
            << QString::fromStdString(graphOf(
                   R"(x: "bf16[64, 3, 40][120, 40, 1]cpu", y: "bf16[64, 3, 40][120, 40, 1]cpu", w: "bf16[40][1]cpu")",
                   R"(    mul: "bf16[64, 3, 40][120, 40, 1]cpu" = torch.ops.aten.mul.Tensor(x, y)
    sum_1: "bf16[3, 40][40, 1]cpu" = torch.ops.aten.sum.dim_IntList(mul, [0])
    mul_1: "bf16[3, 40][40, 1]cpu" = torch.ops.aten.mul.Tensor(sum_1, w)
    return (mul_1,)
)")) << 1 << 2e-2 << 0;
        // Cut from gpt12_train_bw.txt (sum_3, sizes made smaller and odd): gelu_backward of an
        // mm's output, viewed as rows (merging two dims of a computed value), its column sum for
        // the bias gradient; the view also leaves the region for the weight gradient's mm, and
        // its transpose (t_58) for the other mm: a free LibTorch view run after the kernel, not
        // between gelu_backward and the sum (which it would cut into two kernels).
        // Eager: gelu_backward, sum (2 kernels, the views free); generated: 1.
        QTest::newRow("GPT-12 bias gradient: gelu_backward, merged view, sum [0]")
            << QString::fromStdString(graphOf(
                   R"(mm_14: "f32[12, 96][96, 1]cpu", view_153: "f32[3, 4, 96][384, 96, 1]cpu")",
                   R"(    view_163: "f32[3, 4, 96][384, 96, 1]cpu" = torch.ops.aten.view.default(mm_14, [3, 4, 96])
    gelu_backward: "f32[3, 4, 96][384, 96, 1]cpu" = torch.ops.aten.gelu_backward.default(view_163, view_153)
    view_164: "f32[12, 96][96, 1]cpu" = torch.ops.aten.view.default(gelu_backward, [12, 96])
    t_58: "f32[96, 12][1, 96]cpu" = torch.ops.aten.t.default(view_164)
    sum_3: "f32[1, 96][96, 1]cpu" = torch.ops.aten.sum.dim_IntList(view_164, [0], True)
    view_165: "f32[96][1]cpu" = torch.ops.aten.view.default(sum_3, [96])
    return (view_164, t_58, view_165)
)")) << 1 << 1e-5 << 1;
        // native_layer_norm_backward with every output read (GPT-12's 25): grad_input in the row
        // kernel, grad_weight and grad_bias from one column kernel (2 kernels; eager on CUDA: the
        // grad_input kernel and the gamma/beta kernel(s), at least 2).
        QTest::newRow("layer_norm_backward with gamma/beta, 3 x 5 rows of 40")
            << QString::fromStdString(graphOf(
                   R"(g: "f32[3, 5, 40][200, 40, 1]cpu", x: "f32[3, 5, 40][200, 40, 1]cpu", mean: "f32[3, 5, 1][5, 1, 1]cpu", rstd: "f32[3, 5, 1][5, 1, 1]cpu", w: "f32[40][1]cpu", b: "f32[40][1]cpu")",
                   R"(    native_layer_norm_backward = torch.ops.aten.native_layer_norm_backward.default(g, x, [40], mean, rstd, w, b, [True, True, True])
    getitem: "f32[3, 5, 40][200, 40, 1]cpu" = native_layer_norm_backward[0]
    getitem_1: "f32[40][1]cpu" = native_layer_norm_backward[1]
    getitem_2: "f32[40][1]cpu" = native_layer_norm_backward[2]
    return (getitem, getitem_1, getitem_2)
)")) << 2 << 1e-5 << 0;
        // Only the weight and bias gradients read, of a grad_out computed in the region (37 rows of
        // 300): the column kernel alone, recomputing the product.
        QTest::newRow("layer_norm_backward, gamma/beta only, a fused producer")
            << QString::fromStdString(graphOf(
                   R"(g: "f32[37, 300][300, 1]cpu", h: "f32[37, 300][300, 1]cpu", x: "f32[37, 300][300, 1]cpu", mean: "f32[37, 1][1, 1]cpu", rstd: "f32[37, 1][1, 1]cpu", w: "f32[300][1]cpu", b: "f32[300][1]cpu")",
                   R"(    mul: "f32[37, 300][300, 1]cpu" = torch.ops.aten.mul.Tensor(g, h)
    native_layer_norm_backward = torch.ops.aten.native_layer_norm_backward.default(mul, x, [300], mean, rstd, w, b, [True, True, True])
    getitem_1: "f32[300][1]cpu" = native_layer_norm_backward[1]
    getitem_2: "f32[300][1]cpu" = native_layer_norm_backward[2]
    return (getitem_1, getitem_2)
)")) << 1 << 1e-5 << 0;
    }

    void columnsMatchEager()
    {
        QFETCH(QString, code);
        QFETCH(int, kernels);
        QFETCH(double, tolerance);
        QFETCH(int, externs);
        const Case c = parse(code.toStdString());
        double diff = 0;
        const auto out = compileAndCompare(c, diff);
        QVERIFY2(out.state == compile::RegionState::Miss || out.state == compile::RegionState::Hit,
                 out.headline.c_str());
        QCOMPARE(out.kernels, kernels);
        QCOMPARE(out.externNodes, externs);
        QVERIFY2(diff <= tolerance, std::to_string(diff).c_str());
        QVERIFY(out.source.find("column reduction(s) over the rows") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestColumnReductions)
#include "tst_column_reductions.moc"

FXSCOPE_TEST_END
