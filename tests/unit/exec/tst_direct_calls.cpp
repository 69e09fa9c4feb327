// RunOptions::directMatmuls (direct_calls.h) where no GPU is: a CPU product is never made
// directly (directMatmul declines, matmul is LibTorch's mm, the count stands still), and a graph
// run with the option gives exactly what it gives without. The products on the GPU, against
// LibTorch's mm for every operand layout cuBLAS reads in place and the layouts it declines, are
// tst_cuda_run's (label gpu); how operands are described to cuBLAS is checked here, against
// addresses, and the output sizes the cuDNN convolution graphs are built with
// (cudnn_conv.h) against LibTorch's convolution.
#include "core/exec/cudnn_conv.h"
#include "core/exec/direct_calls.h"
#include "exec_test_util.h"
#include "tests/test_file.h"

#include <QtTest>

#include <ATen/ATen.h>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::exec;
using namespace fxs::exec::test;
using graph::Argument;
using graph::NodeId;

class TestDirectCalls : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // How the CUDA calls describe an operand to cuBLAS, checked against addresses: for every
    // [rows, cols] up to 4 x 4 and strides 0-6, a layout accepted reads every element where
    // the row-major operand has it (not transposed: column-major (j, i) at j + i * ld;
    // transposed: (i, j) at i + j * ld) with a leading dimension cuBLAS accepts (at least the
    // column-major rows, and 1); a layout declined has no leading dimension up to 12 that
    // would read it so, either way.
    void operandLayoutsReadEveryElementInPlace()
    {
        using exec::detail::columnMajorOperand;
        const auto reads = [](std::int64_t rows, std::int64_t cols, std::int64_t s0,
                              std::int64_t s1, bool transposed, std::int64_t ld) {
            for (std::int64_t i = 0; i < rows; ++i) {
                for (std::int64_t j = 0; j < cols; ++j) {
                    const std::int64_t blas = transposed ? i + j * ld : j + i * ld;
                    if (blas != i * s0 + j * s1) {
                        return false;
                    }
                }
            }
            return ld >= std::max<std::int64_t>(1, transposed ? rows : cols);
        };
        int accepted = 0;
        int declined = 0;
        for (std::int64_t rows = 1; rows <= 4; ++rows) {
            for (std::int64_t cols = 1; cols <= 4; ++cols) {
                for (std::int64_t s0 = 0; s0 <= 6; ++s0) {
                    for (std::int64_t s1 = 0; s1 <= 6; ++s1) {
                        const auto o = columnMajorOperand(rows, cols, s0, s1);
                        const QString what = QStringLiteral("[%1, %2] strides [%3, %4]")
                                                 .arg(rows).arg(cols).arg(s0).arg(s1);
                        if (o) {
                            ++accepted;
                            QVERIFY2(reads(rows, cols, s0, s1, o->transposed, o->ld),
                                     qPrintable(what));
                            continue;
                        }
                        ++declined;
                        for (std::int64_t ld = 1; ld <= 12; ++ld) {
                            QVERIFY2(!reads(rows, cols, s0, s1, false, ld) &&
                                         !reads(rows, cols, s0, s1, true, ld),
                                     qPrintable(what + QStringLiteral(" ld %1").arg(ld)));
                        }
                    }
                }
            }
        }
        QVERIFY(accepted > 100 && declined > 100);
        // By hand: a contiguous matrix, its transpose, a row slice of a wider one, a padded
        // column-major one; broadcast rows and every other column are declined.
        using Op = exec::detail::ColumnMajorOperand;
        QCOMPARE(columnMajorOperand(3, 4, 4, 1), std::optional<Op>(Op{false, 4}));
        QCOMPARE(columnMajorOperand(3, 4, 1, 3), std::optional<Op>(Op{true, 3}));
        QCOMPARE(columnMajorOperand(3, 4, 6, 1), std::optional<Op>(Op{false, 6}));
        QCOMPARE(columnMajorOperand(3, 4, 1, 5), std::optional<Op>(Op{true, 5}));
        QCOMPARE(columnMajorOperand(1, 4, 99, 1), std::optional<Op>(Op{false, 4}));
        QVERIFY(!columnMajorOperand(3, 4, 0, 1));
        QVERIFY(!columnMajorOperand(3, 4, 4, 2));
        // A tensor's own strides: b.t() of a contiguous [4, 3] reads transposed, ld 3.
        const at::Tensor t = at::randn({4, 3}).t();
        QCOMPARE(columnMajorOperand(t.size(0), t.size(1), t.stride(0), t.stride(1)),
                 std::optional<Op>(Op{true, 3}));
    }

    // cuBLASLt's alignment hints: the largest power of two up to 256 dividing the address.
    void alignmentHints()
    {
        using exec::detail::alignmentOf;
        QCOMPARE(alignmentOf(0x1000), std::int64_t(256));
        QCOMPARE(alignmentOf(0x1080), std::int64_t(128));
        QCOMPARE(alignmentOf(0x1004), std::int64_t(4));
        QCOMPARE(alignmentOf(0x1001), std::int64_t(1));
        QCOMPARE(alignmentOf(0), std::int64_t(256));
    }

    // The sizes a fused convolution's graph gives y, for every input 1-7 x 1-6, kernel 1-3 x
    // 1-3, stride 1-3, padding 0-2 and dilation 1-2: those of LibTorch's conv2d on the same
    // operands; where conv2d refuses (the kernel wider than the padded input) nullopt. Bad
    // parameters and mismatched channels are declined.
    void fusedConvOutputSizesAreLibTorchs()
    {
        using exec::detail::FusedConvParams;
        using exec::detail::fusedConvOutputSizes;
        int compared = 0;
        int refused = 0;
        for (std::int64_t h = 1; h <= 7; ++h) {
            for (std::int64_t r = 1; r <= 3; ++r) {
                for (std::int64_t stride = 1; stride <= 3; ++stride) {
                    for (std::int64_t pad = 0; pad <= 2; ++pad) {
                        for (std::int64_t dil = 1; dil <= 2; ++dil) {
                            const std::int64_t wd = 7 - h % 3; // another width
                            const std::int64_t s = 4 - r;
                            FusedConvParams p;
                            p.stride = {stride, 4 - stride};
                            p.padding = {pad, 2 - pad};
                            p.dilation = {dil, 3 - dil};
                            const auto y = fusedConvOutputSizes({2, 3, h, wd}, {5, 3, r, s}, p);
                            at::Tensor out;
                            try {
                                out = at::conv2d(at::zeros({2, 3, h, wd}), at::zeros({5, 3, r, s}),
                                                 {}, {p.stride[0], p.stride[1]},
                                                 {p.padding[0], p.padding[1]},
                                                 {p.dilation[0], p.dilation[1]});
                            } catch (const std::exception&) {
                                QVERIFY(!y);
                                ++refused;
                                continue;
                            }
                            QVERIFY(y);
                            QCOMPARE(at::IntArrayRef(y->data(), 4), out.sizes());
                            ++compared;
                        }
                    }
                }
            }
        }
        QVERIFY(compared > 200 && refused > 20);
        FusedConvParams bad;
        bad.stride = {0, 1};
        QVERIFY(!fusedConvOutputSizes({1, 3, 8, 8}, {4, 3, 3, 3}, bad));
        bad = FusedConvParams{};
        bad.padding = {-1, 0};
        QVERIFY(!fusedConvOutputSizes({1, 3, 8, 8}, {4, 3, 3, 3}, bad));
        QVERIFY(!fusedConvOutputSizes({1, 3, 8, 8}, {4, 2, 3, 3}, FusedConvParams{}));
        // By hand: ResNet's stem, 224 x 224 through 7 x 7, stride 2, padding 3: 112 x 112.
        FusedConvParams stem;
        stem.stride = {2, 2};
        stem.padding = {3, 3};
        QCOMPARE(fusedConvOutputSizes({16, 3, 224, 224}, {64, 3, 7, 7}, stem),
                 (std::optional<std::array<std::int64_t, 4>>{{16, 64, 112, 112}}));
    }

    void cpuProductsAreLibTorchs()
    {
        const long before = exec::detail::directMatmulCount();
        const at::Tensor a = at::randn({6, 5});
        const at::Tensor b = at::randn({5, 4});
        QVERIFY(!exec::detail::directMatmul(a, b).defined());
        QVERIFY(!exec::detail::directMatmul(a, b.t().contiguous().t()).defined());
        for (bool direct : {true, false}) {
            const at::Tensor c = exec::detail::matmul(a, b, direct);
            QVERIFY(at::equal(c, at::mm(a, b)));
        }
        // Undefined and mismatched operands are declined, not crashed on.
        QVERIFY(!exec::detail::directMatmul(at::Tensor(), b).defined());
        QVERIFY(!exec::detail::directMatmul(a, a).defined());
        QCOMPARE(exec::detail::directMatmulCount(), before);
    }

    // addmm: a CPU one is never made directly (directAddmm declines), and a graph's addmm run
    // with the options that choose it directly (chooseAddmm and directMatmuls) gives LibTorch's
    // addmm exactly: on the CPU both ways are LibTorch's.
    void cpuAddmmIsLibTorchs()
    {
        const long before = exec::detail::directAddmmCount();
        const at::Tensor bias = at::randn({4});
        const at::Tensor a = at::randn({6, 5});
        const at::Tensor w = at::randn({4, 5});
        QVERIFY(!exec::detail::directAddmm(bias, a, w.t()).defined());
        QVERIFY(!exec::detail::directAddmm(at::Tensor(), a, w.t()).defined());
        graph::GraphBuilder g;
        const NodeId b = g.placeholder("b");
        const NodeId x = g.placeholder("x");
        const NodeId wn = g.placeholder("w");
        const NodeId wt = g.call("t", "aten::t.default", {Argument::ref(wn)});
        const NodeId mm = g.call("addmm", "aten::addmm.default",
                                 {Argument::ref(b), Argument::ref(x), Argument::ref(wt)});
        g.output({Argument::ref(mm)});
        auto graph = g.build().value();
        RunOptions ro;
        ro.inputs = storeOf({{"b", bias}, {"x", a}, {"w", w}});
        ro.chooseAddmm = true;
        ro.directMatmuls = true;
        auto r = Interpreter::run(*graph, ro);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QVERIFY(r->ok);
        const at::Tensor got = outputTensor(*r, 0);
        QVERIFY(at::equal(got, at::addmm(bias, a, w.t())) ||
                at::equal(got, at::mm(a, w.t()).add_(bias))); // the way timed faster here
        QCOMPARE(exec::detail::directAddmmCount(), before);
    }

    void graphsRunAlikeWithTheOption()
    {
        // mm(x, t(w)) and mm(t(mm), x): row- and column-major operands.
        graph::GraphBuilder g;
        const NodeId x = g.placeholder("x");
        const NodeId w = g.placeholder("w");
        const NodeId wt = g.call("t", "aten::t.default", {Argument::ref(w)});
        const NodeId mm = g.call("mm", "aten::mm.default", {Argument::ref(x), Argument::ref(wt)});
        const NodeId mt = g.call("t_1", "aten::t.default", {Argument::ref(mm)});
        const NodeId mm2 =
            g.call("mm_1", "aten::mm.default", {Argument::ref(mt), Argument::ref(x)});
        g.output({Argument::ref(mm), Argument::ref(mm2)});
        auto graph = g.build().value();
        const at::Tensor xt = at::randn({6, 5});
        const at::Tensor w0 = at::randn({4, 5});
        const long before = exec::detail::directMatmulCount();
        at::Tensor outs[2][2];
        for (bool direct : {true, false}) {
            RunOptions ro;
            ro.inputs = storeOf({{"x", xt}, {"w", w0}});
            ro.directMatmuls = direct;
            auto r = Interpreter::run(*graph, ro);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
            QVERIFY(r->ok);
            for (int i = 0; i < 2; ++i) {
                outs[direct ? 0 : 1][i] = outputTensor(*r, i);
            }
        }
        QCOMPARE(exec::detail::directMatmulCount(), before); // the CPU's products are LibTorch's
        for (int i = 0; i < 2; ++i) {
            QVERIFY(at::equal(outs[0][i], outs[1][i]));
        }
        QVERIFY(close(outs[0][0], at::mm(xt, w0.t())));
        QVERIFY(close(outs[0][1], at::mm(at::mm(xt, w0.t()).t(), xt)));
    }
};

QTEST_GUILESS_MAIN(TestDirectCalls)
#include "tst_direct_calls.moc"

FXSCOPE_TEST_END
