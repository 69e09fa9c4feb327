// Views folded into index arithmetic (issue 27): clone / _unsafe_view / transpose chains over a
// strided region input stay views of it — through intermediates that are not one stride per dim
// (Val::parts) — and are loaded where the kernel reads them; a column sum of such a view, and a
// view of the column sum's result. The cases are cut from gpt12_train_bw.txt (its attention's
// qkv gradient, region r4), sizes made smaller. Each region is built with g++, run, and compared
// with the LibTorch eager interpreter; kernel counts are counted by hand.
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"
#include "tests/unit/compile/eager_compare.h"

#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

// One q/k/v gradient of GPT's attention backward (B 2, H 3, T 5, D 4): the attention's output
// [B, H, T, D] with strides [H*T*D, D, H*D, 1] (getitem_131), cloned, viewed [B*H, T, D] (not
// one stride per dim), transposed, cloned, viewed [T, B, H*D] (one stride per dim again:
// [12, 60, 1]).
std::string qkvChain(const std::string& in, const std::string& s)
{
    return "    clone_a" + s + R"(: "f32[2, 3, 5, 4][60, 20, 4, 1]cpu" = torch.ops.aten.clone.default()" + in + R"(, memory_format = torch.contiguous_format)
    _unsafe_view_a)" + s + R"(: "f32[6, 5, 4][20, 4, 1]cpu" = torch.ops.aten._unsafe_view.default(clone_a)" + s + R"(, [6, 5, 4])
    transpose_a)" + s + R"(: "f32[5, 6, 4][4, 20, 1]cpu" = torch.ops.aten.transpose.int(_unsafe_view_a)" + s + R"(, 0, 1)
    clone_b)" + s + R"(: "f32[5, 6, 4][24, 4, 1]cpu" = torch.ops.aten.clone.default(transpose_a)" + s + R"(, memory_format = torch.contiguous_format)
    _unsafe_view_b)" + s + R"(: "f32[5, 2, 12][24, 12, 1]cpu" = torch.ops.aten._unsafe_view.default(clone_b)" + s + R"(, [5, 2, 12])
)";
}

// The qkv gradient's tail: the [3, T, B, H*D] sum `src` permuted to [T, B, 3, H*D], cloned,
// viewed [T, B, 3*H*D] (returned, as the mm's operand), its column sum over [T, B] (the bias
// gradient) viewed [3*H*D].
std::string qkvTail(const std::string& src)
{
    return R"(    unsqueeze_12: "f32[3, 5, 2, 1, 12][120, 24, 12, 12, 1]cpu" = torch.ops.aten.unsqueeze.default()" +
           src + R"(, 3)
    transpose_76: "f32[1, 5, 2, 3, 12][12, 24, 12, 120, 1]cpu" = torch.ops.aten.transpose.int(unsqueeze_12, 0, -2)
    squeeze_12: "f32[5, 2, 3, 12][24, 12, 120, 1]cpu" = torch.ops.aten.squeeze.dim(transpose_76, 0)
    clone_43: "f32[5, 2, 3, 12][72, 36, 12, 1]cpu" = torch.ops.aten.clone.default(squeeze_12, memory_format = torch.contiguous_format)
    _unsafe_view_31: "f32[5, 2, 36][72, 36, 1]cpu" = torch.ops.aten._unsafe_view.default(clone_43, [5, 2, 36])
    sum_5: "f32[1, 1, 36][36, 36, 1]cpu" = torch.ops.aten.sum.dim_IntList(_unsafe_view_31, [0, 1], True)
    view_169: "f32[36][1]cpu" = torch.ops.aten.view.default(sum_5, [36])
    return (_unsafe_view_31, view_169)
)";
}

const char* kAttnOut = R"("f32[2, 3, 5, 4][60, 4, 12, 1]cpu")";

} // namespace

class TestViewFusion : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

private Q_SLOTS:
    void initTestCase()
    {
        m_store = test::openStore(m_dir.path().toStdString());
        QVERIFY(m_store);
    }

    void viewChainsMatchEager_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<int>("kernels");
        // A reshape of a transposed clone of a strided input, one stride per dim again, read by
        // a pointwise op. Eager: 2 copies and the add; generated: 1 (main: 3, a kernel per clone).
        QTest::newRow("reshape of a transposed clone of a strided input, then add")
            << QString::fromStdString(
                   test::graphCode(std::string("g: ") + kAttnOut + R"(, y: "f32[5, 2, 12][24, 12, 1]cpu")",
                           qkvChain("g", "") + R"(    add: "f32[5, 2, 12][24, 12, 1]cpu" = torch.ops.aten.add.Tensor(_unsafe_view_b, y)
    return (add,)
)"))
            << 1;
        // GPT-12 r4, one of q/k/v: the chain, then select_backward into the [3, T, B, H*D]
        // gradient. Eager: 2 copies and the placement; generated: 1 (main: 3).
        QTest::newRow("GPT-12 r4, one q/k/v gradient with select_backward")
            << QString::fromStdString(test::graphCode(std::string("g: ") + kAttnOut, qkvChain("g", "") + R"(    select_backward: "f32[3, 5, 2, 12][120, 24, 12, 1]cpu" = torch.ops.aten.select_backward.default(_unsafe_view_b, [3, 5, 2, 12], 0, 2)
    return (select_backward,)
)"))
            << 1;
        // GPT-12 r4 whole: q, k and v placed and added, the [3, T, B, H*D] sum permuted to
        // [T, B, 3, H*D], cloned and viewed [T, B, 3*H*D] (merging dims that run along F dims 0
        // and 3: F is permuted to [T, B, 3, H*D] first), its column sum over [T, B] for the
        // bias gradient and a view of that. Generated: one column kernel storing the view and
        // the sum (main: 11, and the sum's view left to LibTorch; Inductor: 3).
        QTest::newRow("GPT-12 r4, the qkv gradient and its bias gradient")
            << QString::fromStdString(test::graphCode(
                   std::string("q: ") + kAttnOut + ", k: " + kAttnOut + ", v: " + kAttnOut,
                   qkvChain("v", "0") + qkvChain("k", "1") + qkvChain("q", "2") +
                       R"(    select_backward: "f32[3, 5, 2, 12][120, 24, 12, 1]cpu" = torch.ops.aten.select_backward.default(_unsafe_view_b0, [3, 5, 2, 12], 0, 2)
    select_backward_1: "f32[3, 5, 2, 12][120, 24, 12, 1]cpu" = torch.ops.aten.select_backward.default(_unsafe_view_b1, [3, 5, 2, 12], 0, 1)
    add_37: "f32[3, 5, 2, 12][120, 24, 12, 1]cpu" = torch.ops.aten.add.Tensor(select_backward, select_backward_1)
    select_backward_2: "f32[3, 5, 2, 12][120, 24, 12, 1]cpu" = torch.ops.aten.select_backward.default(_unsafe_view_b2, [3, 5, 2, 12], 0, 0)
    add_38: "f32[3, 5, 2, 12][120, 24, 12, 1]cpu" = torch.ops.aten.add.Tensor(add_37, select_backward_2)
)" + qkvTail("add_38")))
            << 1;
        // The same tail over a region input: the permuted view [T, B, 3*C] of the input has a
        // dim of sub-dims (strides 120 and 1); its column sum reads it with the index space split
        // to [T, B, 3, C] (refinedSpace). Generated: 1 (main: 1, and the merged view of the
        // copy left to LibTorch).
        QTest::newRow("permuted view of an input merged, then its column sum")
            << QString::fromStdString(test::graphCode(R"(a: "f32[3, 5, 2, 12][120, 24, 12, 1]cpu")", qkvTail("a")))
            << 1;
        // LLaMA's rotary embedding backward for q (llama24_train_graph1, mul_240 .. add_156, then
        // the transpose and clone of the attention's input gradient; B 2, H 4, S 6, D 8): slices
        // of a computed value (its halves) feeding neg, placed back by slice_backward, a
        // permuted store after them. Generated: 1 (main at 6ea7b29: 3; Inductor: 1).
        QTest::newRow("LLaMA rotary backward, then transpose and clone")
            << QString::fromStdString(test::graphCode(R"(x: "f32[2, 4, 6, 8][192, 8, 32, 1]cpu", cos: "f32[1, 1, 6, 8][48, 48, 8, 1]cpu", sin: "f32[1, 1, 6, 8][48, 48, 8, 1]cpu")", R"(    mul_240: "f32[2, 4, 6, 8][192, 8, 32, 1]cpu" = torch.ops.aten.mul.Tensor(x, sin)
    slice_103: "f32[2, 4, 6, 4][192, 8, 32, 1]cpu" = torch.ops.aten.slice.Tensor(mul_240, 3, 0, 4)
    slice_104: "f32[2, 4, 6, 4][192, 8, 32, 1]cpu" = torch.ops.aten.slice.Tensor(mul_240, 3, 4, 8)
    neg_49: "f32[2, 4, 6, 4][96, 4, 16, 1]cpu" = torch.ops.aten.neg.default(slice_103)
    slice_backward_2: "f32[2, 4, 6, 8][192, 48, 8, 1]cpu" = torch.ops.aten.slice_backward.default(neg_49, [2, 4, 6, 8], 3, 4, 9223372036854775807, 1)
    slice_backward_3: "f32[2, 4, 6, 8][192, 48, 8, 1]cpu" = torch.ops.aten.slice_backward.default(slice_104, [2, 4, 6, 8], 3, 0, 4, 1)
    add_155: "f32[2, 4, 6, 8][192, 48, 8, 1]cpu" = torch.ops.aten.add.Tensor(slice_backward_2, slice_backward_3)
    mul_241: "f32[2, 4, 6, 8][192, 8, 32, 1]cpu" = torch.ops.aten.mul.Tensor(x, cos)
    add_156: "f32[2, 4, 6, 8][192, 48, 8, 1]cpu" = torch.ops.aten.add.Tensor(add_155, mul_241)
    transpose_99: "f32[2, 6, 4, 8][192, 8, 48, 1]cpu" = torch.ops.aten.transpose.int(add_156, 1, 2)
    clone_50: "f32[2, 6, 4, 8][192, 32, 8, 1]cpu" = torch.ops.aten.clone.default(transpose_99, memory_format = torch.contiguous_format)
    return (clone_50,)
)"))
            << 1;
    }

    void viewChainsMatchEager()
    {
        QFETCH(QString, code);
        QFETCH(int, kernels);
        const test::WholeGraphCase c = test::parseWholeGraphCase(code.toStdString());
        double diff = 0;
        const auto out = test::compileAgainstEager(c, m_store.get(), 5, diff);
        QVERIFY2(out.state == compile::RegionState::Miss || out.state == compile::RegionState::Hit,
                 out.headline.c_str());
        QCOMPARE(out.kernels, kernels);
        QCOMPARE(out.externNodes, 0);
        QVERIFY2(diff <= 1e-5, std::to_string(diff).c_str());
    }
};

QTEST_GUILESS_MAIN(TestViewFusion)
#include "tst_view_fusion.moc"

FXSCOPE_TEST_END
