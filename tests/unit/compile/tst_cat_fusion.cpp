// cat and the constructors fused into generated kernels (issue 27, fusion like Inductor's):
// regions holding a cat along each kind of dim (first, inner, negative, with 3 inputs, of
// values computed in the region, nested, around a row reduction, int64, a legacy empty input)
// and the constant/arange constructors of an attention mask, select_backward, slice_backward
// (gradients placed at an index or range, 0 elsewhere) and silu_backward are built with g++, run,
// and compared with the LibTorch eager interpreter; each is one kernel with no LibTorch step
// left. Expands of computed values along dims the kernel did not have (LLaMA's repeat_kv after
// the rotary embedding's cat): the index space gains the dims, one kernel.
#include "core/exec/interpreter.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"
#include "tests/unit/compile/eager_compare.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

using Case = test::WholeGraphCase;

Case parse(const std::string& code) { return test::parseWholeGraphCase(code); }

const char* kHeader = "def forward(self, ";

std::string graphOf(const std::string& params, const std::string& body)
{
    return kHeader + params + "):\n" + body;
}

} // namespace

class TestCatFusion : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

    // Compiles the case's region and runs it; diff: its outputs' largest difference from the
    // eager run's.
    compile::RegionOutcome compileAndCompare(const Case& c, double& diff)
    {
        exec::RunOptions o;
        o.seed = 7;
        o.keep = c.keep;
        o.perNodeTiming = false;
        auto run = exec::Interpreter::run(*c.graph, o);
        if (!run || !run->ok) {
            qFatal("eager run failed: %s", run ? "unsupported" : run.error().toString().c_str());
        }
        compile::RegionCompiler rc(test::compileOptions(m_store.get(), 1));
        auto out = rc.compileAndRun(*c.graph, {"r0", c.region, ""}, run->kept);
        diff = out.outputs.empty() ? INFINITY : 0.0;
        for (std::size_t i = 0; i < out.outputs.size(); ++i) {
            const exec::TensorHandle* want = run->kept.find("output." + std::to_string(i));
            diff = want ? std::max(diff, test::maxDifference(out.outputs[i], *want, false))
                        : INFINITY;
        }
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_store = test::openStore(m_dir.path().toStdString());
        QVERIFY(m_store);
    }

    void catMatchesEager_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<int>("kernels");
        QTest::newRow("dim0, 3 inputs, one computed")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[2, 5][5, 1]cpu", y: "f32[3, 5][5, 1]cpu", z: "f32[1, 5][5, 1]cpu")",
                   R"(    sin: "f32[2, 5][5, 1]cpu" = torch.ops.aten.sin.default(x)
    cat: "f32[6, 5][5, 1]cpu" = torch.ops.aten.cat.default([sin, y, z])
    mul: "f32[6, 5][5, 1]cpu" = torch.ops.aten.mul.Tensor(cat, 2.0)
    return (mul,)
)"))
            << 1;
        QTest::newRow("dim1")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[4, 3][3, 1]cpu", y: "f32[4, 5][5, 1]cpu")",
                   R"(    exp: "f32[4, 5][5, 1]cpu" = torch.ops.aten.exp.default(y)
    cat: "f32[4, 8][8, 1]cpu" = torch.ops.aten.cat.default([x, exp], 1)
    add: "f32[4, 8][8, 1]cpu" = torch.ops.aten.add.Tensor(cat, 1)
    return (add,)
)"))
            << 1;
        QTest::newRow("dim -1, a broadcast weight after")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[2, 3, 4][12, 4, 1]cpu", y: "f32[2, 3, 2][6, 2, 1]cpu", w: "f32[6][1]cpu")",
                   R"(    cat: "f32[2, 3, 6][18, 6, 1]cpu" = torch.ops.aten.cat.default([x, y], -1)
    mul: "f32[2, 3, 6][18, 6, 1]cpu" = torch.ops.aten.mul.Tensor(cat, w)
    tanh: "f32[2, 3, 6][18, 6, 1]cpu" = torch.ops.aten.tanh.default(mul)
    return (tanh,)
)"))
            << 1;
        QTest::newRow("dim -2, 3 inputs, a size-1 part")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[2, 3, 4][12, 4, 1]cpu", y: "f32[2, 1, 4][4, 4, 1]cpu", z: "f32[2, 2, 4][8, 4, 1]cpu")",
                   R"(    neg: "f32[2, 1, 4][4, 4, 1]cpu" = torch.ops.aten.neg.default(y)
    cat: "f32[2, 6, 4][24, 4, 1]cpu" = torch.ops.aten.cat.default([x, neg, z], -2)
    relu: "f32[2, 6, 4][24, 4, 1]cpu" = torch.ops.aten.relu.default(cat)
    return (relu,)
)"))
            << 1;
        QTest::newRow("rotary half swap of a transposed input")
            << QString::fromStdString(graphOf(
                   R"(q: "f32[2, 8, 4, 16][512, 64, 16, 1]cpu", cos: "f32[8, 16][16, 1]cpu", sin: "f32[8, 16][16, 1]cpu")",
                   R"(    transpose: "f32[2, 4, 8, 16][512, 16, 64, 1]cpu" = torch.ops.aten.transpose.int(q, 1, 2)
    mul: "f32[2, 4, 8, 16][512, 128, 16, 1]cpu" = torch.ops.aten.mul.Tensor(transpose, cos)
    slice_1: "f32[2, 4, 8, 8][512, 16, 64, 1]cpu" = torch.ops.aten.slice.Tensor(transpose, 3, 0, 8)
    slice_2: "f32[2, 4, 8, 8][512, 16, 64, 1]cpu" = torch.ops.aten.slice.Tensor(transpose, 3, 8, 9223372036854775807)
    neg: "f32[2, 4, 8, 8][256, 64, 8, 1]cpu" = torch.ops.aten.neg.default(slice_2)
    cat: "f32[2, 4, 8, 16][512, 128, 16, 1]cpu" = torch.ops.aten.cat.default([neg, slice_1], -1)
    mul_1: "f32[2, 4, 8, 16][512, 128, 16, 1]cpu" = torch.ops.aten.mul.Tensor(cat, sin)
    add: "f32[2, 4, 8, 16][512, 128, 16, 1]cpu" = torch.ops.aten.add.Tensor(mul, mul_1)
    return (add,)
)"))
            << 1;
        QTest::newRow("nested cats")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[3, 2][2, 1]cpu", y: "f32[3, 3][3, 1]cpu", z: "f32[3, 4][4, 1]cpu")",
                   R"(    cat: "f32[3, 5][5, 1]cpu" = torch.ops.aten.cat.default([x, y], 1)
    sigmoid: "f32[3, 5][5, 1]cpu" = torch.ops.aten.sigmoid.default(cat)
    cat_1: "f32[3, 9][9, 1]cpu" = torch.ops.aten.cat.default([z, sigmoid], 1)
    return (cat_1,)
)"))
            << 1;
        QTest::newRow("softmax over the cat dim")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[3, 5][5, 1]cpu", y: "f32[3, 3][3, 1]cpu")",
                   R"(    cat: "f32[3, 8][8, 1]cpu" = torch.ops.aten.cat.default([x, y], -1)
    _softmax: "f32[3, 8][8, 1]cpu" = torch.ops.aten._softmax.default(cat, -1, False)
    return (_softmax,)
)"))
            << 1;
        // A row's softmax cannot be moved to other rows: the cat starts a second kernel.
        QTest::newRow("rows of a softmax along the first dim")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[2, 6][6, 1]cpu", y: "f32[3, 6][6, 1]cpu")",
                   R"(    _softmax: "f32[2, 6][6, 1]cpu" = torch.ops.aten._softmax.default(x, -1, False)
    cat: "f32[5, 6][6, 1]cpu" = torch.ops.aten.cat.default([_softmax, y])
    mul: "f32[5, 6][6, 1]cpu" = torch.ops.aten.mul.Tensor(cat, 3.0)
    return (mul,)
)"))
            << 2;
        QTest::newRow("int64")
            << QString::fromStdString(graphOf(
                   R"(x: "i64[4][1]cpu", y: "i64[3][1]cpu")",
                   R"(    cat: "i64[7][1]cpu" = torch.ops.aten.cat.default([x, y])
    mul: "i64[7][1]cpu" = torch.ops.aten.mul.Tensor(cat, 3)
    return (mul,)
)"))
            << 1;
        QTest::newRow("a 1-D empty input is skipped")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[2, 3][3, 1]cpu", e: "f32[0][1]cpu")",
                   R"(    cat: "f32[2, 3][3, 1]cpu" = torch.ops.aten.cat.default([x, e])
    exp: "f32[2, 3][3, 1]cpu" = torch.ops.aten.exp.default(cat)
    return (exp,)
)"))
            << 1;
        // Gradients placed like a cat's single input (issue 27: LLaMA's backward has 96
        // slice_backward, GPT's 36 select_backward, each a fill and a copy in LibTorch).
        // GPT's q/k/v: three select_backward of dim 0 added up, one kernel.
        QTest::newRow("select_backward x3 added")
            << QString::fromStdString(graphOf(
                   R"(q: "f32[4, 2, 8][16, 8, 1]cpu", k: "f32[4, 2, 8][16, 8, 1]cpu", v: "f32[4, 2, 8][16, 8, 1]cpu")",
                   R"(    sb: "f32[3, 4, 2, 8][64, 16, 8, 1]cpu" = torch.ops.aten.select_backward.default(q, [3, 4, 2, 8], 0, 2)
    sb_1: "f32[3, 4, 2, 8][64, 16, 8, 1]cpu" = torch.ops.aten.select_backward.default(k, [3, 4, 2, 8], 0, 1)
    add: "f32[3, 4, 2, 8][64, 16, 8, 1]cpu" = torch.ops.aten.add.Tensor(sb, sb_1)
    sb_2: "f32[3, 4, 2, 8][64, 16, 8, 1]cpu" = torch.ops.aten.select_backward.default(v, [3, 4, 2, 8], 0, -3)
    add_1: "f32[3, 4, 2, 8][64, 16, 8, 1]cpu" = torch.ops.aten.add.Tensor(add, sb_2)
    return (add_1,)
)"))
            << 1;
        QTest::newRow("select_backward of a computed value")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[4, 8][8, 1]cpu")",
                   R"(    exp: "f32[4, 8][8, 1]cpu" = torch.ops.aten.exp.default(x)
    sb: "f32[3, 4, 8][32, 8, 1]cpu" = torch.ops.aten.select_backward.default(exp, [3, 4, 8], 0, 1)
    mul: "f32[3, 4, 8][32, 8, 1]cpu" = torch.ops.aten.mul.Tensor(sb, 2.0)
    return (mul,)
)"))
            << 1;
        QTest::newRow("select_backward along an inner dim")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[4, 8][8, 1]cpu")",
                   R"(    sb: "f32[4, 3, 8][24, 8, 1]cpu" = torch.ops.aten.select_backward.default(x, [4, 3, 8], 1, 1)
    mul: "f32[4, 3, 8][24, 8, 1]cpu" = torch.ops.aten.mul.Tensor(sb, 2.0)
    return (mul,)
)"))
            << 1;
        // A value computed in the kernel runs along the trailing dims of its index space (right
        // alignment): exp of [4, 8] cannot run along dims 0 and 2 of [4, 3, 8], so it is a
        // kernel of its own and the placement a second.
        QTest::newRow("select_backward of a computed value, inner dim")
            << QString::fromStdString(graphOf(
                   R"(x: "f32[4, 8][8, 1]cpu")",
                   R"(    exp: "f32[4, 8][8, 1]cpu" = torch.ops.aten.exp.default(x)
    sb: "f32[4, 3, 8][24, 8, 1]cpu" = torch.ops.aten.select_backward.default(exp, [4, 3, 8], 1, 1)
    mul: "f32[4, 3, 8][24, 8, 1]cpu" = torch.ops.aten.mul.Tensor(sb, 2.0)
    return (mul,)
)"))
            << 2;
        // LLaMA's rotate_half backward: the two halves' gradients placed and added (the first
        // of a computed value: exp(0) would be 1 outside its range without the where).
        QTest::newRow("slice_backward halves added")
            << QString::fromStdString(graphOf(
                   R"(a: "f32[2, 3, 8][24, 8, 1]cpu", b: "f32[2, 3, 8][24, 8, 1]cpu")",
                   R"(    exp: "f32[2, 3, 8][24, 8, 1]cpu" = torch.ops.aten.exp.default(a)
    slice_backward: "f32[2, 3, 16][48, 16, 1]cpu" = torch.ops.aten.slice_backward.default(exp, [2, 3, 16], 2, 8, 9223372036854775807, 1)
    slice_backward_1: "f32[2, 3, 16][48, 16, 1]cpu" = torch.ops.aten.slice_backward.default(b, [2, 3, 16], 2, 0, 8, 1)
    add: "f32[2, 3, 16][48, 16, 1]cpu" = torch.ops.aten.add.Tensor(slice_backward, slice_backward_1)
    return (add,)
)"))
            << 1;
        QTest::newRow("slice_backward in the middle of dim 0")
            << QString::fromStdString(graphOf(
                   R"(a: "f32[2, 5][5, 1]cpu")",
                   R"(    slice_backward: "f32[6, 5][5, 1]cpu" = torch.ops.aten.slice_backward.default(a, [6, 5], 0, 3, 5, 1)
    neg: "f32[6, 5][5, 1]cpu" = torch.ops.aten.neg.default(slice_backward)
    return (neg,)
)"))
            << 1;
        QTest::newRow("silu_backward")
            << QString::fromStdString(graphOf(
                   R"(g: "f32[4, 8][8, 1]cpu", x: "f32[4, 8][8, 1]cpu")",
                   R"(    silu_backward: "f32[4, 8][8, 1]cpu" = torch.ops.aten.silu_backward.default(g, x)
    mul: "f32[4, 8][8, 1]cpu" = torch.ops.aten.mul.Tensor(silu_backward, x)
    return (mul,)
)"))
            << 1;
    }

    void catMatchesEager()
    {
        QFETCH(QString, code);
        QFETCH(int, kernels);
        const Case c = parse(code.toStdString());
        double diff = 0;
        const auto out = compileAndCompare(c, diff);
        QVERIFY2(out.state == compile::RegionState::Miss || out.state == compile::RegionState::Hit,
                 out.headline.c_str());
        QCOMPARE(out.kernels, kernels);
        QCOMPARE(out.externNodes, 0);
        QVERIFY2(diff <= 1e-5, std::to_string(diff).c_str());
    }

    void expandsAlongNewDims_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<int>("kernels");
        // llama24_train_graph0 (mul_150 .. _unsafe_view_147): k after the rotary embedding, its
        // input a transposed view, repeated n_rep = 2 times by repeat_kv (unsqueeze, expand,
        // clone, view). Eager: mul, neg, cat, mul, add, clone (6 kernels); generated: 1 over
        // [2, 2, 2, 32, 32] (2 before: a copy kernel from the expand on).
        QTest::newRow("LLaMA rotary k, repeat_kv: unsqueeze, expand, clone, view")
            << QString::fromStdString(graphOf(
                   R"(transpose_66: "f32[2, 2, 32, 32][2048, 32, 64, 1]cpu", unsqueeze_77: "f32[1, 1, 32, 32][1024, 1024, 32, 1]cpu", unsqueeze_78: "f32[1, 1, 32, 32][1024, 1024, 32, 1]cpu")",
                   R"(    mul_150: "f32[2, 2, 32, 32][2048, 32, 64, 1]cpu" = torch.ops.aten.mul.Tensor(transpose_66, unsqueeze_77)
    slice_70: "f32[2, 2, 32, 16][2048, 32, 64, 1]cpu" = torch.ops.aten.slice.Tensor(transpose_66, 3, 0, 16)
    slice_71: "f32[2, 2, 32, 16][2048, 32, 64, 1]cpu" = torch.ops.aten.slice.Tensor(transpose_66, 3, 16, 9223372036854775807)
    neg_33: "f32[2, 2, 32, 16][1024, 16, 32, 1]cpu" = torch.ops.aten.neg.default(slice_71)
    cat_35: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.cat.default([neg_33, slice_70], -1)
    mul_151: "f32[2, 2, 32, 32][2048, 1024, 32, 1]cpu" = torch.ops.aten.mul.Tensor(cat_35, unsqueeze_78)
    add_101: "f32[2, 2, 32, 32][2048, 32, 64, 1]cpu" = torch.ops.aten.add.Tensor(mul_150, mul_151)
    unsqueeze_79: "f32[2, 2, 1, 32, 32][2048, 32, 2048, 64, 1]cpu" = torch.ops.aten.unsqueeze.default(add_101, 2)
    expand_53: "f32[2, 2, 2, 32, 32][2048, 32, 0, 64, 1]cpu" = torch.ops.aten.expand.default(unsqueeze_79, [2, 2, 2, 32, 32])
    clone_32: "f32[2, 2, 2, 32, 32][4096, 2048, 1024, 32, 1]cpu" = torch.ops.aten.clone.default(expand_53, memory_format = torch.contiguous_format)
    _unsafe_view_147: "f32[2, 4, 32, 32][4096, 1024, 32, 1]cpu" = torch.ops.aten._unsafe_view.default(clone_32, [2, 4, 32, 32])
    return (_unsafe_view_147,)
)")) << 1;
        // A row reduction before the expansion: the new dim is an outer one (the sums computed
        // once per index of it). Eager: sum, div, clone (3 kernels); generated: 1.
        QTest::newRow("sum [-1] keepdim, div, a new middle dim of 4, 3 x 5 x 7")
            << QString::fromStdString(graphOf(R"(x: "f32[3, 5, 7][35, 7, 1]cpu")",
                                              R"(    sum_1: "f32[3, 5, 1][5, 1, 1]cpu" = torch.ops.aten.sum.dim_IntList(x, [-1], True)
    div: "f32[3, 5, 7][35, 7, 1]cpu" = torch.ops.aten.div.Tensor(x, sum_1)
    unsqueeze: "f32[3, 1, 5, 7][35, 35, 7, 1]cpu" = torch.ops.aten.unsqueeze.default(div, 1)
    expand: "f32[3, 4, 5, 7][35, 0, 7, 1]cpu" = torch.ops.aten.expand.default(unsqueeze, [3, 4, 5, 7])
    clone: "f32[3, 4, 5, 7][140, 35, 7, 1]cpu" = torch.ops.aten.clone.default(expand, memory_format = torch.contiguous_format)
    _unsafe_view: "f32[12, 5, 7][35, 7, 1]cpu" = torch.ops.aten._unsafe_view.default(clone, [12, 5, 7])
    return (_unsafe_view,)
)")) << 1;
        // The new dim innermost. Eager: exp, clone (2 kernels); generated: 1.
        QTest::newRow("exp, a new last dim of 2, 3 x 5 x 7")
            << QString::fromStdString(graphOf(R"(x: "f32[3, 5, 7][35, 7, 1]cpu")",
                                              R"(    exp: "f32[3, 5, 7][35, 7, 1]cpu" = torch.ops.aten.exp.default(x)
    unsqueeze: "f32[3, 5, 7, 1][35, 7, 1, 1]cpu" = torch.ops.aten.unsqueeze.default(exp, 3)
    expand: "f32[3, 5, 7, 2][35, 7, 1, 0]cpu" = torch.ops.aten.expand.default(unsqueeze, [3, 5, 7, 2])
    clone: "f32[3, 5, 7, 2][70, 14, 2, 1]cpu" = torch.ops.aten.clone.default(expand, memory_format = torch.contiguous_format)
    view: "f32[3, 5, 14][70, 14, 1]cpu" = torch.ops.aten.view.default(clone, [3, 5, 14])
    return (view,)
)")) << 1;
        // Two new dims at once, around a kept one. Eager: neg, clone (2 kernels); generated: 1.
        QTest::newRow("neg, new dims of 2 and 3 around 5, 3 x 5")
            << QString::fromStdString(graphOf(R"(x: "f32[3, 5][5, 1]cpu")",
                                              R"(    neg: "f32[3, 5][5, 1]cpu" = torch.ops.aten.neg.default(x)
    view: "f32[3, 1, 5, 1][5, 5, 1, 1]cpu" = torch.ops.aten.view.default(neg, [3, 1, 5, 1])
    expand: "f32[3, 2, 5, 3][5, 0, 1, 0]cpu" = torch.ops.aten.expand.default(view, [3, 2, 5, 3])
    clone: "f32[3, 2, 5, 3][30, 15, 3, 1]cpu" = torch.ops.aten.clone.default(expand, memory_format = torch.contiguous_format)
    _unsafe_view: "f32[6, 15][15, 1]cpu" = torch.ops.aten._unsafe_view.default(clone, [6, 15])
    return (_unsafe_view,)
)")) << 1;
        // The computed value is also returned unexpanded: stored from the expanded kernel it
        // would be written once per index of the new dim, so the kernel is cut at the expand
        // (its value stored by the first, copied by the second). Eager: exp, clone (2 kernels).
        QTest::newRow("exp also returned, a new middle dim of 3, 2 x 4 x 6")
            << QString::fromStdString(graphOf(R"(x: "f32[2, 4, 6][24, 6, 1]cpu")",
                                              R"(    exp: "f32[2, 4, 6][24, 6, 1]cpu" = torch.ops.aten.exp.default(x)
    unsqueeze: "f32[2, 1, 4, 6][24, 24, 6, 1]cpu" = torch.ops.aten.unsqueeze.default(exp, 1)
    expand: "f32[2, 3, 4, 6][24, 0, 6, 1]cpu" = torch.ops.aten.expand.default(unsqueeze, [2, 3, 4, 6])
    clone: "f32[2, 3, 4, 6][72, 24, 6, 1]cpu" = torch.ops.aten.clone.default(expand, memory_format = torch.contiguous_format)
    _unsafe_view: "f32[6, 4, 6][24, 6, 1]cpu" = torch.ops.aten._unsafe_view.default(clone, [6, 4, 6])
    return (exp, _unsafe_view)
)")) << 2;
    }

    void expandsAlongNewDims() { catMatchesEager(); }

    // The attention mask of the LLaMA forward: aranges compared, new_ones, two scalar_tensors
    // chosen by where, a full: every constructor folds into the one kernel that reads them.
    void constructorsFoldIntoTheKernel()
    {
        const Case c = parse(graphOf(R"(x: "f32[2, 1, 8, 8][64, 64, 8, 1]cpu")", R"(    arange: "i64[8][1]cpu" = torch.ops.aten.arange.default(8, device = device(type='cpu'), pin_memory = False)
    unsqueeze: "i64[8, 1][1, 1]cpu" = torch.ops.aten.unsqueeze.default(arange, 1)
    arange_1: "i64[8][1]cpu" = torch.ops.aten.arange.start(0, 8, device = device(type='cpu'), pin_memory = False)
    le: "b8[8, 8][8, 1]cpu" = torch.ops.aten.le.Tensor(arange_1, unsqueeze)
    new_ones: "b8[][]cpu" = torch.ops.aten.new_ones.default(x, [], dtype = torch.bool, pin_memory = False)
    bitwise_and: "b8[8, 8][8, 1]cpu" = torch.ops.aten.bitwise_and.Tensor(new_ones, le)
    scalar_tensor: "f32[][]cpu" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, device = device(type='cpu'))
    scalar_tensor_1: "f32[][]cpu" = torch.ops.aten.scalar_tensor.default(0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
    where: "f32[8, 8][8, 1]cpu" = torch.ops.aten.where.self(bitwise_and, scalar_tensor_1, scalar_tensor)
    add: "f32[2, 1, 8, 8][64, 64, 8, 1]cpu" = torch.ops.aten.add.Tensor(x, where)
    full: "f32[8][1]cpu" = torch.ops.aten.full.default([8], 0.25, dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
    mul: "f32[2, 1, 8, 8][64, 64, 8, 1]cpu" = torch.ops.aten.mul.Tensor(add, full)
    arange_2: "f32[8][1]cpu" = torch.ops.aten.arange.start_step(1, 5, 0.5, dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
    add_1: "f32[2, 1, 8, 8][64, 64, 8, 1]cpu" = torch.ops.aten.add.Tensor(mul, arange_2)
    return (add_1,)
)"));
        double diff = 0;
        const auto out = compileAndCompare(c, diff);
        QVERIFY2(out.state == compile::RegionState::Miss || out.state == compile::RegionState::Hit,
                 out.headline.c_str());
        QCOMPARE(out.kernels, 1);
        QCOMPARE(out.externNodes, 0);
        QCOMPARE(diff, 0.0); // -inf where the mask is false, in the same places as eager
        // The constants reach the source as numbers the printer spells itself.
        QVERIFY(out.source.find("__builtin_inff()") != std::string::npos);
        QVERIFY(out.source.find("(0.25f)") != std::string::npos);
    }

    // The LLaMA forward's causal mask (llama24_train_graph0 r1, no inputs): two aranges made
    // computed values by `add 0`, unsqueezed as [1, 1, 32, 1] and [1, 1, 1, 32] and compared.
    // Both 32s came from one F dim: taking the comparison's F dims from its operands put two
    // of its dims on that one (its diagonal: wrong values). Now refused there: the comparison
    // starts a kernel of its own. Eager: arange, add, arange, add, le, bitwise_and (at least 5
    // kernels); generated: 2.
    void maskOfTwoUnsqueezedAranges()
    {
        const Case c = parse(graphOf(R"(x: "f32[2, 3][3, 1]cpu")", R"(    arange_3: "i64[32][1]cpu" = torch.ops.aten.arange.default(32, device = device(type='cpu'), pin_memory = False)
    add_1: "i64[32][1]cpu" = torch.ops.aten.add.Tensor(arange_3, 0)
    arange_4: "i64[32][1]cpu" = torch.ops.aten.arange.default(32, device = device(type='cpu'), pin_memory = False)
    add_2: "i64[32][1]cpu" = torch.ops.aten.add.Tensor(arange_4, 0)
    unsqueeze_4: "i64[1, 32][32, 1]cpu" = torch.ops.aten.unsqueeze.default(add_1, 0)
    unsqueeze_5: "i64[1, 1, 32][32, 32, 1]cpu" = torch.ops.aten.unsqueeze.default(unsqueeze_4, 1)
    unsqueeze_6: "i64[1, 1, 32, 1][32, 32, 1, 1]cpu" = torch.ops.aten.unsqueeze.default(unsqueeze_5, 3)
    unsqueeze_7: "i64[1, 32][32, 1]cpu" = torch.ops.aten.unsqueeze.default(add_2, 0)
    unsqueeze_8: "i64[1, 1, 32][32, 32, 1]cpu" = torch.ops.aten.unsqueeze.default(unsqueeze_7, 1)
    unsqueeze_9: "i64[1, 1, 1, 32][32, 32, 32, 1]cpu" = torch.ops.aten.unsqueeze.default(unsqueeze_8, 2)
    new_ones: "b8[][]cpu" = torch.ops.aten.new_ones.default(unsqueeze_6, [], dtype = torch.bool, pin_memory = False)
    le: "b8[1, 1, 32, 32][1024, 1024, 32, 1]cpu" = torch.ops.aten.le.Tensor(unsqueeze_9, unsqueeze_6)
    bitwise_and: "b8[1, 1, 32, 32][1024, 1024, 32, 1]cpu" = torch.ops.aten.bitwise_and.Tensor(new_ones, le)
    return (bitwise_and,)
)"));
        double diff = 0;
        const auto out = compileAndCompare(c, diff);
        QVERIFY2(out.state == compile::RegionState::Miss || out.state == compile::RegionState::Hit,
                 out.headline.c_str());
        QCOMPARE(out.kernels, 2);
        QCOMPARE(out.externNodes, 0);
        QCOMPARE(diff, 0.0);
    }

    // Two masks made from one comparison, each expanded for a reader outside the region (the
    // LLaMA forward's per-layer attention masks): one kernel stores both unexpanded, LibTorch
    // expands them after it for free (stored expansions took a kernel each).
    void returnedExpandsStayViews()
    {
        const Case c = parse(graphOf(R"(x: "f32[2, 1, 4, 4][16, 16, 4, 1]cpu")", R"(    gt: "b8[2, 1, 4, 4][16, 16, 4, 1]cpu" = torch.ops.aten.gt.Scalar(x, 0)
    scalar_tensor: "f32[][]cpu" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, device = device(type='cpu'))
    scalar_tensor_1: "f32[][]cpu" = torch.ops.aten.scalar_tensor.default(0.0, dtype = torch.float32, device = device(type='cpu'))
    where: "f32[2, 1, 4, 4][16, 16, 4, 1]cpu" = torch.ops.aten.where.self(gt, scalar_tensor_1, scalar_tensor)
    expand: "f32[2, 3, 4, 4][16, 0, 4, 1]cpu" = torch.ops.aten.expand.default(where, [2, 3, 4, 4])
    scalar_tensor_2: "f32[][]cpu" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, device = device(type='cpu'))
    scalar_tensor_3: "f32[][]cpu" = torch.ops.aten.scalar_tensor.default(0.0, dtype = torch.float32, device = device(type='cpu'))
    where_1: "f32[2, 1, 4, 4][16, 16, 4, 1]cpu" = torch.ops.aten.where.self(gt, scalar_tensor_3, scalar_tensor_2)
    expand_1: "f32[2, 3, 4, 4][16, 0, 4, 1]cpu" = torch.ops.aten.expand.default(where_1, [2, 3, 4, 4])
    return (expand, expand_1)
)"));
        double diff = 0;
        const auto out = compileAndCompare(c, diff);
        QVERIFY2(out.state == compile::RegionState::Miss || out.state == compile::RegionState::Hit,
                 out.headline.c_str());
        QCOMPARE(out.kernels, 1);
        QCOMPARE(out.externNodes, 2); // the two expands
        QCOMPARE(diff, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestCatFusion)
#include "tst_cat_fusion.moc"

FXSCOPE_TEST_END
