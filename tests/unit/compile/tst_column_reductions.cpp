// Column reductions (reductions over leading dims, loop_ir.h: Kernel::columns) against eager
// LibTorch: sums, means and amax/amin over the first dim, over the first two of a 3-D operand,
// keepdim and not, odd sizes; pointwise producers fused into the pass over the rows and their
// outputs stored from the same kernel; the bias-gradient pattern of the GPT-12 backward (a view
// of a computed value merging dims, then a column sum); native_layer_norm_backward with its
// weight and bias gradients read. Reductions of a few elements along middle dims (unrolled into
// pointwise kernels): LLaMA's repeat_kv backward with both its consumer chains (transpose + clone,
// the rotary embedding's backward), over strided inputs as the attention backward gives them.
// A view the row kernel cannot take of its stored output stays a free LibTorch view that the
// next kernel reads (GPT-12's layer norm backward, transposed clone, merged view, bias sum).
// Each region is built with g++, run, and compared with the LibTorch eager interpreter; the
// kernel counts are checked by hand against eager's launches.
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"
#include "tests/unit/compile/eager_compare.h"

#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

using Case = test::WholeGraphCase;

Case parse(const std::string& code) { return test::parseWholeGraphCase(code); }

} // namespace

class TestColumnReductions : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

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
        QTest::addColumn<bool>("unrolled"); // a pointwise kernel, not a column kernel
        // Eager: one reduce kernel each; generated: one column kernel.
        QTest::newRow("sum [0] keepdim, 37 x 300")
            << QString::fromStdString(test::graphCode(R"(x: "f32[37, 300][300, 1]cpu")",
                                              R"(    sum_1: "f32[1, 300][300, 1]cpu" = torch.ops.aten.sum.dim_IntList(x, [0], True)
    return (sum_1,)
)")) << 1 << 1e-5 << 0 << false;
        QTest::newRow("sum [0] not keepdim, then a view")
            << QString::fromStdString(test::graphCode(R"(x: "f32[37, 300][300, 1]cpu")",
                                              R"(    sum_1: "f32[300][1]cpu" = torch.ops.aten.sum.dim_IntList(x, [0])
    view: "f32[1, 300][300, 1]cpu" = torch.ops.aten.view.default(sum_1, [1, 300])
    return (view,)
)")) << 1 << 1e-5 << 0 << false;
        // The LLaMA-24 backward's RMSNorm weight gradients: sum.dim_IntList(mul(grad, normed),
        // [0, 1], True), then a view. Eager: mul, sum (2 kernels); generated: 1.
        QTest::newRow("sum [0, 1] keepdim of a product, 3-D (LLaMA RMSNorm weight gradient)")
            << QString::fromStdString(test::graphCode(
                   R"(g: "f32[3, 50, 70][3500, 70, 1]cpu", h: "f32[3, 50, 70][3500, 70, 1]cpu")",
                   R"(    mul: "f32[3, 50, 70][3500, 70, 1]cpu" = torch.ops.aten.mul.Tensor(g, h)
    sum_1: "f32[1, 1, 70][70, 70, 1]cpu" = torch.ops.aten.sum.dim_IntList(mul, [0, 1], True)
    view: "f32[70][1]cpu" = torch.ops.aten.view.default(sum_1, [70])
    return (view,)
)")) << 1 << 1e-5 << 0 << false;
        // Eager: gelu_backward, sum (2 kernels); generated: 1 storing both.
        QTest::newRow("pointwise output and its column sum from one kernel")
            << QString::fromStdString(test::graphCode(
                   R"(g: "f32[37, 300][300, 1]cpu", x: "f32[37, 300][300, 1]cpu")",
                   R"(    gelu_backward: "f32[37, 300][300, 1]cpu" = torch.ops.aten.gelu_backward.default(g, x)
    sum_1: "f32[1, 300][300, 1]cpu" = torch.ops.aten.sum.dim_IntList(gelu_backward, [0], True)
    view: "f32[300][1]cpu" = torch.ops.aten.view.default(sum_1, [300])
    return (gelu_backward, view)
)")) << 1 << 1e-5 << 0 << false;
        // Eager: mean, amax, amin (3 kernels); generated: 1.
        QTest::newRow("mean, amax and amin over [0, 1], 600 rows x 20 columns")
            << QString::fromStdString(test::graphCode(R"(x: "f32[2, 300, 20][6000, 20, 1]cpu")",
                                              R"(    mean: "f32[20][1]cpu" = torch.ops.aten.mean.dim(x, [0, 1])
    amax: "f32[1, 1, 20][20, 20, 1]cpu" = torch.ops.aten.amax.default(x, [0, 1], True)
    amin: "f32[20][1]cpu" = torch.ops.aten.amin.default(x, [0, 1])
    return (mean, amax, amin)
)")) << 1 << 1e-5 << 0 << false;
        // Eager: mul, sum, mul (3 kernels); generated: 1, the weight read per column.
        QTest::newRow("bfloat16, two kept dims, an epilogue product")
            << QString::fromStdString(test::graphCode(
                   R"(x: "bf16[64, 3, 40][120, 40, 1]cpu", y: "bf16[64, 3, 40][120, 40, 1]cpu", w: "bf16[40][1]cpu")",
                   R"(    mul: "bf16[64, 3, 40][120, 40, 1]cpu" = torch.ops.aten.mul.Tensor(x, y)
    sum_1: "bf16[3, 40][40, 1]cpu" = torch.ops.aten.sum.dim_IntList(mul, [0])
    mul_1: "bf16[3, 40][40, 1]cpu" = torch.ops.aten.mul.Tensor(sum_1, w)
    return (mul_1,)
)")) << 1 << 2e-2 << 0 << false;
        // Cut from gpt12_train_bw.txt (sum_3, sizes made smaller and odd): gelu_backward of an
        // mm's output, viewed as rows (merging two dims of a computed value), its column sum for
        // the bias gradient; the view also leaves the region for the weight gradient's mm, and
        // its transpose (t_58) for the other mm: a free LibTorch view run after the kernel, not
        // between gelu_backward and the sum (which it would cut into two kernels).
        // Eager: gelu_backward, sum (2 kernels, the views free); generated: 1.
        QTest::newRow("GPT-12 bias gradient: gelu_backward, merged view, sum [0]")
            << QString::fromStdString(test::graphCode(
                   R"(mm_14: "f32[12, 96][96, 1]cpu", view_153: "f32[3, 4, 96][384, 96, 1]cpu")",
                   R"(    view_163: "f32[3, 4, 96][384, 96, 1]cpu" = torch.ops.aten.view.default(mm_14, [3, 4, 96])
    gelu_backward: "f32[3, 4, 96][384, 96, 1]cpu" = torch.ops.aten.gelu_backward.default(view_163, view_153)
    view_164: "f32[12, 96][96, 1]cpu" = torch.ops.aten.view.default(gelu_backward, [12, 96])
    t_58: "f32[96, 12][1, 96]cpu" = torch.ops.aten.t.default(view_164)
    sum_3: "f32[1, 96][96, 1]cpu" = torch.ops.aten.sum.dim_IntList(view_164, [0], True)
    view_165: "f32[96][1]cpu" = torch.ops.aten.view.default(sum_3, [96])
    return (view_164, t_58, view_165)
)")) << 1 << 1e-5 << 1 << false;
        // Over more elements than are unrolled along a middle dim: F permuted so that the 50
        // reduced rows lead, the kept [3, 7, 9] the columns; a consumer broadcasting a [7, 9]
        // input in the epilogue. Eager: sum, mul (2 kernels); generated: 1.
        QTest::newRow("sum [1] of a contiguous 3 x 50 x 7 x 9, then a broadcast product")
            << QString::fromStdString(test::graphCode(
                   R"(x: "f32[3, 50, 7, 9][3150, 63, 9, 1]cpu", w: "f32[7, 9][9, 1]cpu")",
                   R"(    sum_1: "f32[3, 7, 9][63, 9, 1]cpu" = torch.ops.aten.sum.dim_IntList(x, [1])
    mul: "f32[3, 7, 9][63, 9, 1]cpu" = torch.ops.aten.mul.Tensor(sum_1, w)
    return (mul,)
)")) << 1 << 1e-5 << 0 << false;
        // Two non-adjacent dims, 4 x 6 = 24 rows, keepdim; amin too, of an exp fused into the
        // pass over the rows. Eager: exp, amax, amin (3 kernels); generated: 1.
        QTest::newRow("amax and amin [0, 2] of exp, 4 x 5 x 6 x 7")
            << QString::fromStdString(test::graphCode(R"(x: "f32[4, 5, 6, 7][210, 42, 7, 1]cpu")",
                                              R"(    exp: "f32[4, 5, 6, 7][210, 42, 7, 1]cpu" = torch.ops.aten.exp.default(x)
    amax: "f32[1, 5, 1, 7][35, 7, 7, 1]cpu" = torch.ops.aten.amax.default(exp, [0, 2], True)
    amin: "f32[5, 7][7, 1]cpu" = torch.ops.aten.amin.default(exp, [0, 2])
    return (amax, amin)
)")) << 1 << 1e-5 << 0 << false;
        // mean without keepdim over 11 elements of a strided (transposed) odd-sized input.
        // Eager: mean (1 kernel); generated: 1.
        QTest::newRow("mean [2] not keepdim, 3 x 5 x 11 x 9 transposed input")
            << QString::fromStdString(test::graphCode(R"(x: "f32[3, 5, 9, 11][495, 99, 11, 1]cpu")",
                                              R"(    transpose: "f32[3, 5, 11, 9][495, 99, 1, 11]cpu" = torch.ops.aten.transpose.int(x, 2, 3)
    mean: "f32[3, 5, 9][45, 9, 1]cpu" = torch.ops.aten.mean.dim(transpose, [2])
    return (mean,)
)")) << 1 << 1e-5 << 0 << false;
        // native_layer_norm_backward with every output read (GPT-12's 25): grad_input in the row
        // kernel, grad_weight and grad_bias from one column kernel (2 kernels; eager on CUDA: the
        // grad_input kernel and the gamma/beta kernel(s), at least 2).
        QTest::newRow("layer_norm_backward with gamma/beta, 3 x 5 rows of 40")
            << QString::fromStdString(test::graphCode(
                   R"(g: "f32[3, 5, 40][200, 40, 1]cpu", x: "f32[3, 5, 40][200, 40, 1]cpu", mean: "f32[3, 5, 1][5, 1, 1]cpu", rstd: "f32[3, 5, 1][5, 1, 1]cpu", w: "f32[40][1]cpu", b: "f32[40][1]cpu")",
                   R"(    native_layer_norm_backward = torch.ops.aten.native_layer_norm_backward.default(g, x, [40], mean, rstd, w, b, [True, True, True])
    getitem: "f32[3, 5, 40][200, 40, 1]cpu" = native_layer_norm_backward[0]
    getitem_1: "f32[40][1]cpu" = native_layer_norm_backward[1]
    getitem_2: "f32[40][1]cpu" = native_layer_norm_backward[2]
    return (getitem, getitem_1, getitem_2)
)")) << 2 << 1e-5 << 0 << false;
        // gpt12_train_bw (view_166 .. view_167, sizes made smaller): the layer norm backward's
        // grad_input plus a residual, transposed and made contiguous by the row kernel; its
        // merged view (which that kernel cannot take) is returned and summed over its rows for
        // a bias gradient. The view stays a free LibTorch view of the stored clone and the sum
        // reads it: the column kernel stores only the sums (it re-stored the whole view as a
        // copy before). Eager: layer_norm_backward (2), add, clone, sum (5 kernels); generated:
        // the row kernel, its column kernel, the sum's column kernel (3); the view and t extern.
        QTest::newRow("GPT-12 layer_norm_backward, transposed clone, its view summed [0]")
            << QString::fromStdString(test::graphCode(
                   R"(mm_16: "f32[12, 40][40, 1]cpu", add_34: "f32[3, 4, 40][160, 40, 1]cpu", mean: "f32[3, 4, 1][4, 1, 1]cpu", rstd: "f32[3, 4, 1][4, 1, 1]cpu", w: "f32[40][1]cpu", b: "f32[40][1]cpu", getitem_123: "f32[3, 4, 40][160, 40, 1]cpu")",
                   R"(    view_166: "f32[3, 4, 40][160, 40, 1]cpu" = torch.ops.aten.view.default(mm_16, [3, 4, 40])
    native_layer_norm_backward_1 = torch.ops.aten.native_layer_norm_backward.default(view_166, add_34, [40], mean, rstd, w, b, [True, True, True])
    getitem_126: "f32[3, 4, 40][160, 40, 1]cpu" = native_layer_norm_backward_1[0]
    getitem_127: "f32[40][1]cpu" = native_layer_norm_backward_1[1]
    getitem_128: "f32[40][1]cpu" = native_layer_norm_backward_1[2]
    add_36: "f32[3, 4, 40][160, 40, 1]cpu" = torch.ops.aten.add.Tensor(getitem_123, getitem_126)
    transpose_72: "f32[4, 3, 40][40, 160, 1]cpu" = torch.ops.aten.transpose.int(add_36, 1, 0)
    clone_36: "f32[4, 3, 40][120, 40, 1]cpu" = torch.ops.aten.clone.default(transpose_72, memory_format = torch.contiguous_format)
    _unsafe_view_24: "f32[12, 40][40, 1]cpu" = torch.ops.aten._unsafe_view.default(clone_36, [12, 40])
    t_62: "f32[40, 12][1, 40]cpu" = torch.ops.aten.t.default(_unsafe_view_24)
    sum_4: "f32[1, 40][40, 1]cpu" = torch.ops.aten.sum.dim_IntList(_unsafe_view_24, [0], True)
    view_167: "f32[40][1]cpu" = torch.ops.aten.view.default(sum_4, [40])
    return (getitem_127, getitem_128, add_36, _unsafe_view_24, t_62, view_167)
)")) << 3 << 1e-5 << 2 << false;
        // Only the weight and bias gradients read, of a grad_out computed in the region (37 rows of
        // 300): the column kernel alone, recomputing the product.
        QTest::newRow("layer_norm_backward, gamma/beta only, a fused producer")
            << QString::fromStdString(test::graphCode(
                   R"(g: "f32[37, 300][300, 1]cpu", h: "f32[37, 300][300, 1]cpu", x: "f32[37, 300][300, 1]cpu", mean: "f32[37, 1][1, 1]cpu", rstd: "f32[37, 1][1, 1]cpu", w: "f32[300][1]cpu", b: "f32[300][1]cpu")",
                   R"(    mul: "f32[37, 300][300, 1]cpu" = torch.ops.aten.mul.Tensor(g, h)
    native_layer_norm_backward = torch.ops.aten.native_layer_norm_backward.default(mul, x, [300], mean, rstd, w, b, [True, True, True])
    getitem_1: "f32[300][1]cpu" = native_layer_norm_backward[1]
    getitem_2: "f32[300][1]cpu" = native_layer_norm_backward[2]
    return (getitem_1, getitem_2)
)")) << 1 << 1e-5 << 0 << false;
        // llama24_train_graph1 (view_284 .. _unsafe_view_217): the attention backward's dK,
        // [2, 4, 32, 32] with strides [4096, 32, 128, 1], summed over n_rep = 2 (GQA), then
        // transposed and made contiguous. Eager: sum, clone (2 kernels); generated: 1 over the
        // kept [2, 2, 32, 32], the transposed store of the _unsafe_view itself (the index space
        // permuted to the clone's order so that its dims merge: permuteToOrderOf).
        QTest::newRow("LLaMA repeat_kv backward: sum [2] keepdim, squeeze, transpose, clone")
            << QString::fromStdString(test::graphCode(
                   R"(getitem_100: "f32[2, 4, 32, 32][4096, 32, 128, 1]cpu")",
                   R"(    view_284: "f32[2, 2, 2, 32, 32][4096, 64, 32, 128, 1]cpu" = torch.ops.aten.view.default(getitem_100, [2, 2, 2, 32, 32])
    sum_5: "f32[2, 2, 1, 32, 32][2048, 1024, 1024, 32, 1]cpu" = torch.ops.aten.sum.dim_IntList(view_284, [2], True)
    squeeze: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.squeeze.dim(sum_5, 2)
    transpose_98: "f32[2, 32, 2, 32][2048, 32, 1024, 1]cpu" = torch.ops.aten.transpose.int(squeeze, 1, 2)
    clone_49: "f32[2, 32, 2, 32][2048, 64, 32, 1]cpu" = torch.ops.aten.clone.default(transpose_98, memory_format = torch.contiguous_format)
    _unsafe_view_217: "f32[2, 32, 64][2048, 64, 1]cpu" = torch.ops.aten._unsafe_view.default(clone_49, [2, 32, 64])
    return (_unsafe_view_217,)
)")) << 1 << 1e-5 << 0 << true;
        // The same graph's dQ/dK rotary chain (view_285 .. _unsafe_view_218): the summed dK
        // times cos, plus rotate_half's backward (two slices of a computed value, a neg, two
        // slice_backwards) times sin, transposed and made contiguous. Eager: sum, mul, neg,
        // two slice_backward (a zero fill and a copy each), add, mul, add, clone (at least
        // 10 kernels); generated: 1.
        QTest::newRow("LLaMA repeat_kv backward into the rotary embedding's backward")
            << QString::fromStdString(test::graphCode(
                   R"(getitem_99: "f32[2, 4, 32, 32][4096, 32, 128, 1]cpu", unsqueeze_106: "f32[1, 1, 32, 32][1024, 1024, 32, 1]cpu", unsqueeze_105: "f32[1, 1, 32, 32][1024, 1024, 32, 1]cpu")",
                   R"(    view_285: "f32[2, 2, 2, 32, 32][4096, 64, 32, 128, 1]cpu" = torch.ops.aten.view.default(getitem_99, [2, 2, 2, 32, 32])
    sum_6: "f32[2, 2, 1, 32, 32][2048, 1024, 1024, 32, 1]cpu" = torch.ops.aten.sum.dim_IntList(view_285, [2], True)
    squeeze_1: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.squeeze.dim(sum_6, 2)
    mul_238: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.mul.Tensor(squeeze_1, unsqueeze_106)
    slice_101: "f32[2, 2, 32, 16][2048, 1024, 32, 1]cpu" = torch.ops.aten.slice.Tensor(mul_238, 3, 0, 16)
    slice_102: "f32[2, 2, 32, 16][2048, 1024, 32, 1]cpu" = torch.ops.aten.slice.Tensor(mul_238, 3, 16, 32)
    neg_48: "f32[2, 2, 32, 16][1024, 512, 16, 1]cpu" = torch.ops.aten.neg.default(slice_101)
    slice_backward: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.slice_backward.default(neg_48, [2, 2, 32, 32], 3, 16, 9223372036854775807, 1)
    slice_backward_1: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.slice_backward.default(slice_102, [2, 2, 32, 32], 3, 0, 16, 1)
    add_153: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.add.Tensor(slice_backward, slice_backward_1)
    mul_239: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.mul.Tensor(squeeze_1, unsqueeze_105)
    add_154: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.add.Tensor(add_153, mul_239)
    transpose_99: "f32[2, 32, 2, 32][2048, 32, 1024, 1]cpu" = torch.ops.aten.transpose.int(add_154, 1, 2)
    clone_50: "f32[2, 32, 2, 32][2048, 64, 32, 1]cpu" = torch.ops.aten.clone.default(transpose_99, memory_format = torch.contiguous_format)
    _unsafe_view_218: "f32[2, 32, 64][2048, 64, 1]cpu" = torch.ops.aten._unsafe_view.default(clone_50, [2, 32, 64])
    return (_unsafe_view_218,)
)")) << 1 << 1e-5 << 0 << true;
        // A pointwise producer pinned at each of the 5 indices of the middle dim, a consumer
        // broadcasting a [7, 9] input. Eager: mul, sum, add (3 kernels); generated: 1.
        QTest::newRow("sum [1] of a product, 3 x 5 x 7 x 9, then a broadcast add")
            << QString::fromStdString(test::graphCode(
                   R"(x: "f32[3, 5, 7, 9][315, 63, 9, 1]cpu", y: "f32[3, 5, 7, 9][315, 63, 9, 1]cpu", z: "f32[7, 9][9, 1]cpu")",
                   R"(    mul: "f32[3, 5, 7, 9][315, 63, 9, 1]cpu" = torch.ops.aten.mul.Tensor(x, y)
    sum_1: "f32[3, 7, 9][63, 9, 1]cpu" = torch.ops.aten.sum.dim_IntList(mul, [1])
    add: "f32[3, 7, 9][63, 9, 1]cpu" = torch.ops.aten.add.Tensor(sum_1, z)
    return (add,)
)")) << 1 << 1e-5 << 0 << true;
        // Two non-adjacent dims (2 x 3 = 6 elements), keepdim. Eager: amax, mul (2 kernels).
        QTest::newRow("amax [0, 2] keepdim, 2 x 5 x 3 x 4, then a product")
            << QString::fromStdString(test::graphCode(R"(x: "f32[2, 5, 3, 4][60, 12, 4, 1]cpu")",
                                              R"(    amax: "f32[1, 5, 1, 4][4, 4, 4, 1]cpu" = torch.ops.aten.amax.default(x, [0, 2], True)
    mul: "f32[1, 5, 1, 4][4, 4, 4, 1]cpu" = torch.ops.aten.mul.Tensor(amax, 2.0)
    return (mul,)
)")) << 1 << 1e-5 << 0 << true;
        // mean without keepdim over 7 elements of an odd shape, read through a transposed view
        // of the input, with a consumer. Eager: mean, exp (2 kernels).
        QTest::newRow("mean [2] not keepdim, 3 x 5 x 7 x 9 transposed input, then exp")
            << QString::fromStdString(test::graphCode(R"(x: "f32[3, 5, 9, 7][315, 63, 7, 1]cpu")",
                                              R"(    transpose: "f32[3, 5, 7, 9][315, 63, 1, 7]cpu" = torch.ops.aten.transpose.int(x, 2, 3)
    mean: "f32[3, 5, 9][45, 9, 1]cpu" = torch.ops.aten.mean.dim(transpose, [2])
    exp: "f32[3, 5, 9][45, 9, 1]cpu" = torch.ops.aten.exp.default(mean)
    return (exp,)
)")) << 1 << 1e-5 << 0 << true;
    }

    void columnsMatchEager()
    {
        QFETCH(QString, code);
        QFETCH(int, kernels);
        QFETCH(double, tolerance);
        QFETCH(int, externs);
        QFETCH(bool, unrolled);
        const Case c = parse(code.toStdString());
        double diff = 0;
        const auto out = test::compileAgainstEager(c, m_store.get(), 11, diff);
        QVERIFY2(out.state == compile::RegionState::Miss || out.state == compile::RegionState::Hit,
                 out.headline.c_str());
        QCOMPARE(out.kernels, kernels);
        QCOMPARE(out.externNodes, externs);
        QVERIFY2(diff <= tolerance, std::to_string(diff).c_str());
        QCOMPARE(out.source.find("column reduction(s) over the rows") != std::string::npos,
                 !unrolled);
        QCOMPARE(out.source.find(" 0 row reduction(s)") != std::string::npos, unrolled);
    }

    // grad_input repeated along a new middle dim (an expand that adds a dim to the index space,
    // expand_ops.cpp) while the weight and bias gradients are read: their column kernel
    // re-lowers the producers against the row kernel's index space, so the expand starts a
    // kernel of its own (a guard: the column part refuses it too). Eager: layer_norm_backward (2),
    // clone (3 kernels); generated: the row kernel, its column kernel, the copy (3).
    void layerNormBackwardThenExpandAlongNewDim()
    {
        const Case c = parse(test::graphCode(
            R"(g: "f32[2, 5, 40][200, 40, 1]cpu", x: "f32[2, 5, 40][200, 40, 1]cpu", mean: "f32[2, 5, 1][5, 1, 1]cpu", rstd: "f32[2, 5, 1][5, 1, 1]cpu", w: "f32[40][1]cpu", b: "f32[40][1]cpu")",
            R"(    native_layer_norm_backward = torch.ops.aten.native_layer_norm_backward.default(g, x, [40], mean, rstd, w, b, [True, True, True])
    getitem: "f32[2, 5, 40][200, 40, 1]cpu" = native_layer_norm_backward[0]
    getitem_1: "f32[40][1]cpu" = native_layer_norm_backward[1]
    getitem_2: "f32[40][1]cpu" = native_layer_norm_backward[2]
    unsqueeze: "f32[2, 1, 5, 40][200, 200, 40, 1]cpu" = torch.ops.aten.unsqueeze.default(getitem, 1)
    expand: "f32[2, 3, 5, 40][200, 0, 40, 1]cpu" = torch.ops.aten.expand.default(unsqueeze, [2, 3, 5, 40])
    clone: "f32[2, 3, 5, 40][600, 200, 40, 1]cpu" = torch.ops.aten.clone.default(expand, memory_format = torch.contiguous_format)
    _unsafe_view: "f32[6, 5, 40][200, 40, 1]cpu" = torch.ops.aten._unsafe_view.default(clone, [6, 5, 40])
    return (getitem_1, getitem_2, _unsafe_view)
)"));
        double diff = 0;
        const auto out = test::compileAgainstEager(c, m_store.get(), 11, diff);
        QVERIFY2(out.state == compile::RegionState::Miss || out.state == compile::RegionState::Hit,
                 out.headline.c_str());
        QCOMPARE(out.kernels, 3);
        QCOMPARE(out.externNodes, 0);
        QVERIFY2(diff <= 1e-5, std::to_string(diff).c_str());
    }
};

QTEST_GUILESS_MAIN(TestColumnReductions)
#include "tst_column_reductions.moc"

FXSCOPE_TEST_END
