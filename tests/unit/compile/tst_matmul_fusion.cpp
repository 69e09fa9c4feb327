// Matrix products sharing an operand run as one product (issue 27; matmul_groups.h,
// matmul_fusion.h). tests/data/compile/matmul_groups.txt, checked by hand: mm and mm_1 read
// view(x, [4, 8]) twice (one left operand: a group, results column blocks of one [4, 8]
// product); mm_2 reads it too but its right operand is made from mm's result (sum_1 -> mul ->
// t_2), so it cannot run in the same step; mm_3 and mm_4 multiply t(g1) and t(g2) by x (one
// right operand: row blocks of one [8, 8] product). view_3 splits mm's block's first dim,
// which its strides (8, 1) allow. The recorded LLaMA-24 step (24 layers): q/k/v read one
// normalised activation and gate/up another, in each layer (48 groups in the forward); in the
// backward the gate and up weight gradients read saved views of one forward value
// (mm_173, mm_175: view_265 and view_264, both view(mul_X, [64, 128]) in the forward).
#include "core/codegen/lowering.h"
#include "core/compile/compiled_graph.h"
#include "core/compile/matmul_fusion.h"
#include "core/compile/matmul_groups.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/io/graph_code_parser.h"
#include "core/partition/auto_proposal.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <QTemporaryDir>
#include <QtTest>

#include <array>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

graph::GraphPtr load(const std::string& path)
{
    auto text = readFile(path);
    return text.ok() ? io::parseGraphCode(*text, path).graph : nullptr;
}

std::vector<std::string> names(const graph::Graph& g, const compile::MatmulGroup& grp)
{
    std::vector<std::string> out;
    for (auto id : grp.nodes) {
        out.push_back(g.node(id).name);
    }
    return out;
}

// The test graph with `line` in place of view_3's statement (the view of mm's block).
graph::GraphPtr withView3(const std::string& line)
{
    auto text = readFile(FXSCOPE_TEST_DATA "/compile/matmul_groups.txt");
    if (!text.ok()) {
        return nullptr;
    }
    std::string s = *text;
    const auto at = s.find("        view_3:");
    const auto end = s.find('\n', at);
    s.replace(at, end - at, line);
    s.replace(s.find("relu: \"f32[2, 2, 6][12, 6, 1]cpu\""), 33, "relu: \"f32[24][1]cpu\"");
    return io::parseGraphCode(s, "view3.txt").graph;
}

// Products made another way (one wider product, its blocks) round otherwise: float32 apart.
bool near(const at::Tensor& a, const at::Tensor& b)
{
    return at::allclose(a, b, 1e-5, 1e-5);
}

// The test graph with `line` added after the statement that makes `after`.
graph::GraphPtr withLineAfter(const std::string& after, const std::string& line)
{
    auto text = readFile(FXSCOPE_TEST_DATA "/compile/matmul_groups.txt");
    if (!text.ok()) {
        return nullptr;
    }
    std::string s = *text;
    const auto at = s.find("        " + after + ":");
    if (at == std::string::npos) {
        return nullptr;
    }
    s.insert(s.find('\n', at) + 1, line + "\n");
    return io::parseGraphCode(s, "added.txt").graph;
}

} // namespace

class TestMatmulFusion : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void viewStridesFollowPyTorch()
    {
        using V = std::vector<std::int64_t>;
        QCOMPARE(codegen::viewStrides({2, 3, 4}, {12, 4, 1}, {6, 4}), std::optional<V>(V{4, 1}));
        // A column block of a [128, 512] product: its first dim splits, its dims do not merge.
        QCOMPARE(codegen::viewStrides({128, 256}, {512, 1}, {2, 64, 256}),
                 std::optional<V>(V{32768, 512, 1}));
        QCOMPARE(codegen::viewStrides({2, 64, 256}, {32768, 512, 1}, {2, 64, 4, 64}),
                 std::optional<V>(V{32768, 512, 64, 1}));
        QCOMPARE(codegen::viewStrides({2, 64, 256}, {32768, 512, 1}, {128, 256}),
                 std::optional<V>(V{512, 1}));
        QVERIFY(!codegen::viewStrides({128, 256}, {512, 1}, {32768}));
        // A transpose keeps its own shape, and cannot be flattened.
        QCOMPARE(codegen::viewStrides({4, 3}, {1, 4}, {4, 3}), std::optional<V>(V{1, 4}));
        QVERIFY(!codegen::viewStrides({4, 3}, {1, 4}, {12}));
        QVERIFY(!codegen::viewStrides({4, 3}, {3, 1}, {5, 2})); // another element count
        QCOMPARE(codegen::viewStrides({4, 1, 3}, {3, 7, 1}, {12}), std::optional<V>(V{1}));
    }

    void groupsOfTheHandCheckedGraph()
    {
        auto g = load(FXSCOPE_TEST_DATA "/compile/matmul_groups.txt");
        QVERIFY(g);
        auto groups = compile::findMatmulGroups(*g, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(names(*g, groups[0]), (std::vector<std::string>{"mm", "mm_1"}));
        QCOMPARE(groups[0].shared, 0);
        QVERIFY(groups[0].sameByGraph);
        QCOMPARE(groups[0].id, std::string("mm0"));
        QCOMPARE(names(*g, groups[1]), (std::vector<std::string>{"mm_3", "mm_4"}));
        QCOMPARE(groups[1].shared, 1);
        // A node of a region is left to the region.
        std::vector<bool> excluded(g->size(), false);
        excluded[*g->find("mm_1")] = true;
        groups = compile::findMatmulGroups(*g, nullptr, excluded);
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(names(*g, groups[0]), (std::vector<std::string>{"mm_3", "mm_4"}));
    }

    void inputOperandsAreUnwrittenGraphInputs()
    {
        // By hand: mm and mm_1 read view(x), view_1(x) and t(w1), t(w2); mm_3 and mm_4 read
        // t(g1), t(g2) and x. Every operand is a placeholder or a view of one.
        using Sides = std::array<bool, 2>;
        auto g = load(FXSCOPE_TEST_DATA "/compile/matmul_groups.txt");
        QVERIFY(g);
        auto groups = compile::findMatmulGroups(*g, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(groups[0].inputOperands, (Sides{true, true}));
        QCOMPARE(groups[1].inputOperands, (Sides{true, true}));
        // w2 written in place: the right operands of mm/mm_1 are not kept; g1 written through
        // its view t_3: nor the left ones of mm_3/mm_4.
        auto written = withLineAfter("t_1", "        add_: \"f32[2, 8][8, 1]cpu\" = "
                                            "torch.ops.aten.add_.Tensor(w2, 1.0)");
        QVERIFY(written);
        groups = compile::findMatmulGroups(*written, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(groups[0].inputOperands, (Sides{true, false}));
        QCOMPARE(groups[1].inputOperands, (Sides{true, true}));
        auto throughView = withLineAfter("t_3", "        mul_: \"f32[6, 4][1, 6]cpu\" = "
                                                "torch.ops.aten.mul_.Tensor(t_3, 2.0)");
        QVERIFY(throughView);
        groups = compile::findMatmulGroups(*throughView, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(groups[1].inputOperands, (Sides{false, true}));
        // t_1 made by a region: a buffer of its own each run.
        std::vector<bool> excluded(g->size(), false);
        excluded[*g->find("t_1")] = true;
        groups = compile::findMatmulGroups(*g, nullptr, excluded);
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(groups[0].inputOperands, (Sides{true, false}));
    }

    void keptOperandsFollowTheirTensors()
    {
        auto g = load(FXSCOPE_TEST_DATA "/compile/matmul_groups.txt");
        QVERIFY(g);
        auto groups = compile::findMatmulGroups(*g, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(2));
        auto runs = std::make_shared<compile::MatmulGroupRuns>(1);
        auto subs = compile::matmulSubstitutes(*g, {groups[0]}, runs);
        QCOMPARE(subs.size(), std::size_t(1));
        const at::Tensor x = at::randn({4, 8});
        at::Tensor w1 = at::randn({6, 8});
        const at::Tensor w2 = at::randn({2, 8});
        const auto h = [](const at::Tensor& t) { return exec::makeHandle(t); };
        // Inputs: view (the shared operand, one value by the graph), t, t_1; each call makes
        // its views anew, as a run of the graph does.
        QCOMPARE(subs[0].inputs.size(), std::size_t(3));
        const auto call = [&](const at::Tensor& a, const at::Tensor& b) {
            auto out = subs[0].run({h(x.view({4, 8})), h(a.t()), h(b.t())});
            return out.ok() && out->size() == 2 &&
                   near(exec::tensorOf((*out)[0]), at::mm(x, a.t())) &&
                   near(exec::tensorOf((*out)[1]), at::mm(x, b.t()));
        };
        QVERIFY(call(w1, w2));
        QCOMPARE(runs->kept[0].load(), 0L); // joined and kept
        QVERIFY(call(w1, w2));
        QCOMPARE(runs->kept[0].load(), 1L);
        w1.add_(1.0); // an optimizer's step: the version counter moves, the values with it
        QVERIFY(call(w1, w2));
        QCOMPARE(runs->kept[0].load(), 1L);
        QVERIFY(call(w1, w2));
        QCOMPARE(runs->kept[0].load(), 2L);
        // Another tensor: joined anew, and no longer kept.
        const at::Tensor other = w1.clone();
        QVERIFY(call(other, w2));
        QVERIFY(call(other, w2));
        QCOMPARE(runs->kept[0].load(), 2L);
        QCOMPARE(runs->fused[0].load(), 6L);
        // Inference tensors carry no version counter: never kept.
        auto fresh = std::make_shared<compile::MatmulGroupRuns>(1);
        auto inference = compile::matmulSubstitutes(*g, {groups[0]}, fresh);
        at::Tensor iw1;
        {
            c10::InferenceMode mode;
            iw1 = at::randn({6, 8});
        }
        for (int i = 0; i < 2; ++i) {
            auto out = inference[0].run({h(x), h(iw1.t()), h(w2.t())});
            QVERIFY(out.ok());
            QVERIFY(near(exec::tensorOf((*out)[0]), at::mm(x, iw1.t())));
        }
        QCOMPARE(fresh->kept[0].load(), 0L);
        QCOMPARE(fresh->fused[0].load(), 2L);
    }

    // The same through whole runs of a graph, its views made as the engine makes them
    // (direct_views.cpp): the weights' side-by-side copy is kept between runs and follows an
    // in-place change of a weight (an optimizer's step) because the engine's views share the
    // weight's version counter. Before, they had counters of their own and every run after
    // the change multiplied by the old weights (found by tst_cuda_run's replay test).
    void keptOperandsFollowInPlaceChangesAcrossRuns()
    {
        const std::string code =
            "def forward(self, x: \"f32[64, 48][48, 1]cpu\", w1: \"f32[32, 48][48, 1]cpu\", "
            "w2: \"f32[16, 48][48, 1]cpu\"):\n"
            "    t: \"f32[48, 32][1, 48]cpu\" = torch.ops.aten.t.default(w1)\n"
            "    mm: \"f32[64, 32][32, 1]cpu\" = torch.ops.aten.mm.default(x, t)\n"
            "    t_1: \"f32[48, 16][1, 48]cpu\" = torch.ops.aten.t.default(w2)\n"
            "    mm_1: \"f32[64, 16][16, 1]cpu\" = torch.ops.aten.mm.default(x, t_1)\n"
            "    return (mm, mm_1)\n";
        const graph::GraphPtr g = io::parseGraphCode(code, "kept.txt").graph;
        QVERIFY(g);
        const at::Tensor x = at::randn({64, 48});
        const at::Tensor w1 = at::randn({32, 48});
        const at::Tensor w2 = at::randn({16, 48});
        auto store = std::make_shared<exec::ValueStore>();
        store->set("x", exec::makeHandle(x));
        store->set("w1", exec::makeHandle(w1));
        store->set("w2", exec::makeHandle(w2));
        exec::RunOptions ro;
        ro.device = exec::DevicePref::Cpu;
        ro.inputs = store;
        ro.perNodeTiming = false;
        ro.summarizeOutputs = false;
        QVERIFY(ro.directViews);
        auto fusion = compile::fuseMatmulsFor(*g, {}, ro, *store);
        QVERIFY2(fusion.ok(), fusion.ok() ? "" : fusion.error().toString().c_str());
        QCOMPARE(fusion->groups.size(), std::size_t(1));
        QVERIFY(fusion->groups[0].inputOperands[1]); // the weights' side is kept
        ro.substitutes = fusion->substitutes;
        for (int round = 0; round < 3; ++round) {
            auto run = exec::Interpreter::run(*g, ro);
            QVERIFY(run.ok() && run->ok);
            const auto output = [&](int i) {
                return exec::tensorOf(*run->kept.find("output." + std::to_string(i)));
            };
            QVERIFY2(near(output(0), at::mm(x, w1.t())), std::to_string(round).c_str());
            QVERIFY(near(output(1), at::mm(x, w2.t())));
            w1.mul_(2);
        }
    }

    void aViewThatWouldCopyKeepsTheNodeOut()
    {
        // mm's block [4, 6] has strides (8, 1): flattening it needs a copy, which `view` cannot
        // make; `reshape` makes it and the group stays.
        auto viewed = withView3("        view_3: \"f32[24][1]cpu\" = "
                                "torch.ops.aten.view.default(mm, [24])");
        QVERIFY(viewed);
        auto groups = compile::findMatmulGroups(*viewed, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(names(*viewed, groups[0]), (std::vector<std::string>{"mm_3", "mm_4"}));
        auto reshaped = withView3("        view_3: \"f32[24][1]cpu\" = "
                                  "torch.ops.aten.reshape.default(mm, [24])");
        QVERIFY(reshaped);
        groups = compile::findMatmulGroups(*reshaped, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(names(*reshaped, groups[0]), (std::vector<std::string>{"mm", "mm_1"}));
    }

    void compiledRunEqualsEagerWithTheGroups()
    {
        auto g = load(FXSCOPE_TEST_DATA "/compile/matmul_groups.txt");
        QVERIFY(g);
        auto store = test::openStore(m_dir.path().toStdString() + "/store");
        QVERIFY(store);
        for (bool fuse : {true, false}) {
            compile::GraphCompileOptions o;
            o.compile.store = store.get();
            o.fuseMatmuls = fuse;
            auto r = compile::runCompiledGraph(*g, {}, o);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
            QVERIFY(r->compiled.ok);
            QCOMPARE(r->matmulGroups.size(), std::size_t(fuse ? 2 : 0));
            for (const auto& grp : r->matmulGroups) {
                QCOMPARE(grp.fusedRuns, 1L);
                QCOMPARE(grp.separateRuns, 0L);
            }
            QCOMPARE(r->outputMaxAbsErr.size(), std::size_t(5));
            for (const auto& e : r->outputMaxAbsErr) {
                QVERIFY(e && *e < 1e-5);
            }
            // Fused: two groups, one product each (for four mm nodes: the operands they lay
            // side by side are t(w1), t(w2) and t(g1), t(g2), joined by the run before and
            // kept), and sum, mul, mm_2 and relu. Unfused: the five mm nodes, sum, mul, relu.
            QCOMPARE(r->kernels, fuse ? 6 : 8);
            for (const auto& grp : r->matmulGroups) {
                QCOMPARE(grp.keptRuns, 1L);
                QCOMPARE(grp.keptSides, 1);
            }
            const bool stepNamed = std::any_of(
                r->compiled.perNode.begin(), r->compiled.perNode.end(),
                [](const auto& n) { return n.name == "mm0" && n.target == "fxscope.mm_group"; });
            QCOMPARE(stepNamed, fuse);
        }
    }

    void regionsCompileOnTheColumnBlocks()
    {
        // With the automatic regions, relu's region reads view_3 of mm's column block: it is
        // compiled for the block's strides, so the compiled run copies nothing into it.
        auto g = load(FXSCOPE_TEST_DATA "/compile/matmul_groups.txt");
        QVERIFY(g);
        auto store = test::openStore(m_dir.path().toStdString() + "/store2");
        QVERIFY(store);
        compile::GraphCompileOptions o;
        o.compile.store = store.get();
        auto regions = partition::proposeRegions(*g).regions;
        QVERIFY(!regions.empty());
        auto r = compile::runCompiledGraph(*g, regions, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(r->matmulGroups.size(), std::size_t(2));
        QVERIFY(r->regionsUsed >= 1);
        for (const auto& e : r->outputMaxAbsErr) {
            QVERIFY(e && *e < 1e-5);
        }
    }

    void separateTensorsAreMultipliedSeparately()
    {
        auto g = load(FXSCOPE_TEST_DATA "/compile/matmul_groups.txt");
        QVERIFY(g);
        auto groups = compile::findMatmulGroups(*g, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(2));
        compile::MatmulGroup cols = groups[0]; // mm, mm_1: view and view_1 of x, times t(w)
        cols.sameByGraph = false;              // as for placeholders the forward fills
        auto runs = std::make_shared<compile::MatmulGroupRuns>(1);
        auto subs = compile::matmulSubstitutes(*g, {cols}, runs);
        QCOMPARE(subs.size(), std::size_t(1));
        // Inputs in first use: view, t (mm's operands), view_1, t_1.
        QCOMPARE(subs[0].inputs.size(), std::size_t(4));
        const at::Tensor x = at::randn({4, 8});
        const at::Tensor x2 = x.clone(); // equal values, another tensor
        const at::Tensor w1 = at::randn({6, 8});
        const at::Tensor w2 = at::randn({2, 8});
        const auto h = [](const at::Tensor& t) { return exec::makeHandle(t); };
        auto same = subs[0].run({h(x), h(w1.t()), h(x), h(w2.t())});
        QVERIFY(same.ok());
        QCOMPARE(runs->fused[0].load(), 1L);
        QCOMPARE(runs->separate[0].load(), 0L);
        auto apart = subs[0].run({h(x), h(w1.t()), h(x2), h(w2.t())});
        QVERIFY(apart.ok());
        QCOMPARE(runs->separate[0].load(), 1L);
        for (const auto* out : {&*same, &*apart}) {
            QCOMPARE(out->size(), std::size_t(2));
            QVERIFY(near(exec::tensorOf((*out)[0]), at::mm(x, w1.t())));
            QVERIFY(near(exec::tensorOf((*out)[1]), at::mm(x, w2.t())));
        }
        // Fused: column blocks of one [4, 8] product; separately: products of their own.
        QCOMPARE(exec::tensorOf((*same)[1]).strides().vec(), (std::vector<std::int64_t>{8, 1}));
        QCOMPARE(exec::tensorOf((*same)[1]).data_ptr<float>(),
                 exec::tensorOf((*same)[0]).data_ptr<float>() + 6);
        QVERIFY(exec::tensorOf((*apart)[1]).is_contiguous());

        // Row blocks (mm_3, mm_4: t(g) times x, one node) are contiguous.
        auto rows = compile::matmulSubstitutes(*g, {groups[1]}, nullptr);
        const at::Tensor g1 = at::randn({4, 6});
        const at::Tensor g2 = at::randn({4, 2});
        auto r = rows[0].run({h(g1.t()), h(x), h(g2.t())}); // t_3, x, t_4
        QVERIFY(r.ok());
        QVERIFY(near(exec::tensorOf((*r)[0]), at::mm(g1.t(), x)));
        QVERIFY(near(exec::tensorOf((*r)[1]), at::mm(g2.t(), x)));
        QVERIFY(exec::tensorOf((*r)[1]).is_contiguous());
    }

    void sumsOfProducts()
    {
        // tests/data/compile/matmul_sums.txt, by hand: add_1 = (view(a @ w1) + view(b @ w2)) +
        // view(c @ t(w3)), each product and view read only by the tree: one sum over the joined
        // inner dim (6 + 2 + 3). add_2 adds a placeholder and add_3 has alpha 2: no sums; their
        // products all multiply w1 (one right operand: a row group).
        auto g = load(FXSCOPE_TEST_DATA "/compile/matmul_sums.txt");
        QVERIFY(g);
        auto groups = compile::findMatmulGroups(*g, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(groups[0].shared, 2);
        QCOMPARE(names(*g, groups[0]), (std::vector<std::string>{"mm", "mm_1", "mm_2"}));
        QCOMPARE(g->node(groups[0].root).name, std::string("add_1"));
        std::vector<std::string> inner;
        for (auto id : groups[0].sumNodes) {
            inner.push_back(g->node(id).name);
        }
        QCOMPARE(inner, (std::vector<std::string>{"view", "view_1", "add", "view_2", "add_1"}));
        QCOMPARE(groups[1].shared, 1);
        QCOMPARE(names(*g, groups[1]), (std::vector<std::string>{"mm_4", "mm_5", "mm_6"}));
        QCOMPARE(compile::matmulSumNodeNames(*g),
                 (std::vector<std::string>{"view", "view_1", "add", "view_2", "add_1"}));
        // An inner add that is a region's node leaves the tree unsummed.
        std::vector<bool> excluded(g->size(), false);
        excluded[*g->find("add")] = true;
        groups = compile::findMatmulGroups(*g, nullptr, excluded);
        QVERIFY(std::none_of(groups.begin(), groups.end(),
                             [](const auto& grp) { return grp.shared == 2; }));

        auto store = test::openStore(m_dir.path().toStdString() + "/store4");
        QVERIFY(store);
        compile::GraphCompileOptions o;
        o.compile.store = store.get();
        auto r = compile::runCompiledGraph(*g, {}, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(r->matmulGroups.size(), std::size_t(2));
        QCOMPARE(r->matmulGroups[0].shared, 2);
        QCOMPARE(r->matmulGroups[0].fusedRuns, 1L);
        for (const auto& e : r->outputMaxAbsErr) {
            QVERIFY(e && *e < 1e-5);
        }
        // Every operand laid side by side is a placeholder (t(w3) a view of one), joined by
        // the run before and kept: the sum is a product alone (both sides kept), the rows a
        // product (p, q, r kept); then mul, add_2, add_3.
        QCOMPARE(r->matmulGroups[0].keptSides, 2);
        QCOMPARE(r->matmulGroups[1].keptSides, 1);
        QCOMPARE(r->matmulGroups[0].keptRuns, 1L);
        QCOMPARE(r->matmulGroups[1].keptRuns, 1L);
        QCOMPARE(r->kernels, 5);
    }

    void llamaStepGroups()
    {
        auto fw = load(FXSCOPE_TEST_DATA "/recorded/graphs/llama24_train_graph0.txt.gz");
        auto bw = load(FXSCOPE_TEST_DATA "/recorded/graphs/llama24_train_graph1.txt.gz");
        QVERIFY(fw && bw);
        auto groups = compile::findMatmulGroups(*fw, nullptr, {});
        QCOMPARE(groups.size(), std::size_t(48));
        QCOMPARE(names(*fw, groups[0]), (std::vector<std::string>{"mm", "mm_1", "mm_2"}));
        QCOMPARE(names(*fw, groups[1]), (std::vector<std::string>{"mm_4", "mm_5"}));
        for (const auto& grp : groups) {
            QCOMPARE(grp.shared, 0);
        }
        // The backward: the weight gradients' saved activations are views of one forward
        // value only by the forward graph.
        const auto pair = std::vector<std::string>{"mm_173", "mm_175"};
        groups = compile::findMatmulGroups(*bw, fw.get(), {});
        // 48 weight-gradient groups and 48 input-gradient sums (gate/up, q/k/v).
        QCOMPARE(groups.size(), std::size_t(96));
        QCOMPARE(std::count_if(groups.begin(), groups.end(),
                               [](const auto& grp) { return grp.shared == 2; }),
                 std::ptrdiff_t(48));
        QCOMPARE(names(*bw, groups[0]), pair);
        QCOMPARE(groups[0].shared, 1);
        QVERIFY(!groups[0].sameByGraph);
        for (const auto& grp : compile::findMatmulGroups(*bw, nullptr, {})) {
            QVERIFY(names(*bw, grp) != pair);
        }
    }

    void batchedGroupsAreTheProductsOnlyOutputsRead()
    {
        auto g = test::layeredProducts(3, 8, 6);
        QVERIFY(g);
        // Without `batched`: no group (the chain's products share w but each reaches the
        // next; the weight gradients share no operand). With it, the weight gradients: the
        // chain's products are read by its relus, not only by the output.
        QVERIFY(compile::findMatmulGroups(*g, nullptr, {}).empty());
        auto groups = compile::findMatmulGroups(*g, nullptr, {}, true);
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(groups[0].shared, 3);
        QCOMPARE(names(*g, groups[0]), (std::vector<std::string>{"mm_w0", "mm_w1", "mm_w2"}));
        QCOMPARE(groups[0].inputOperands, (std::array<bool, 2>{false, false}));
        // A member in a region is left to it.
        std::vector<bool> excluded(g->size(), false);
        excluded[*g->find("mm_w1")] = true;
        groups = compile::findMatmulGroups(*g, nullptr, excluded, true);
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(names(*g, groups[0]), (std::vector<std::string>{"mm_w0", "mm_w2"}));
        // 4096 x 2048 floats (32 MiB) a left operand: two members fill kMaxDeferredBytes, so
        // four layers make two groups, and three make one (the third alone).
        auto big = test::layeredProducts(4, 4096, 2048);
        QVERIFY(big);
        groups = compile::findMatmulGroups(*big, nullptr, {}, true);
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(names(*big, groups[0]), (std::vector<std::string>{"mm_w0", "mm_w1"}));
        QCOMPARE(names(*big, groups[1]), (std::vector<std::string>{"mm_w2", "mm_w3"}));
        big = test::layeredProducts(3, 4096, 2048);
        QVERIFY(big);
        groups = compile::findMatmulGroups(*big, nullptr, {}, true);
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(names(*big, groups[0]), (std::vector<std::string>{"mm_w0", "mm_w1"}));
    }

    void batchedGroupRunsWhereItsLastOperandIsMade()
    {
        auto g = test::layeredProducts(3, 8, 6);
        QVERIFY(g);
        auto groups = compile::findMatmulGroups(*g, nullptr, {}, true);
        QCOMPARE(groups.size(), std::size_t(1));
        auto runs = std::make_shared<compile::MatmulGroupRuns>(1);
        exec::RunOptions ro;
        ro.keep = {"relu_3", "t_w0", "t_w1", "t_w2"};
        auto eager = exec::Interpreter::run(*g, ro);
        QVERIFY2(eager.ok(), eager.ok() ? "" : eager.error().toString().c_str());
        ro.substitutes = compile::matmulSubstitutes(*g, groups, runs);
        auto grouped = exec::Interpreter::run(*g, ro);
        QVERIFY2(grouped.ok(), grouped.ok() ? "" : grouped.error().toString().c_str());
        // On the CPU the members are made one by one (no batched call): the values are eager's.
        QCOMPARE(runs->fused[0].load(), 0L);
        QCOMPARE(runs->separate[0].load(), 1L);
        for (const auto& name : ro.keep) {
            const exec::TensorHandle* a = eager->kept.find(name);
            const exec::TensorHandle* b = grouped->kept.find(name);
            QVERIFY(a && b);
            QVERIFY(at::equal(exec::tensorOf(*a), exec::tensorOf(*b)));
        }
        // The group's step comes once the last left operand (tg_2) exists, before the views
        // of its results.
        const auto index = [&](const std::string& name) {
            const auto& steps = grouped->perNode;
            return std::find_if(steps.begin(), steps.end(),
                                [&](const auto& n) { return n.name == name; }) -
                   steps.begin();
        };
        QVERIFY(index("mm0") < std::ptrdiff_t(grouped->perNode.size()));
        QVERIFY(index("mm0") > index("tg_2"));
        QVERIFY(index("mm0") < index("t_w0"));
        QVERIFY(index("mm_c0") < index("mm0")); // the chain did not wait for the group
    }

    void llamaBackwardBatchesTheWeightGradientsLeft()
    {
        auto fw = load(FXSCOPE_TEST_DATA "/recorded/graphs/llama24_train_graph0.txt.gz");
        auto bw = load(FXSCOPE_TEST_DATA "/recorded/graphs/llama24_train_graph1.txt.gz");
        QVERIFY(fw && bw);
        // With the forward, q/k/v's and gate/up's weight gradients share their saved
        // activation (48 groups; 48 sums): left are the down and o projections' (mm_171 and
        // mm_177 in the last layer, then every 14 nodes: [128, 64] by [64, 256] and by
        // [64, 128], 24 each); lm_head's (mm_169) is alone of its shape.
        auto groups = compile::findMatmulGroups(*bw, fw.get(), {}, true);
        QCOMPARE(groups.size(), std::size_t(98));
        std::vector<compile::MatmulGroup> batched;
        std::copy_if(groups.begin(), groups.end(), std::back_inserter(batched),
                     [](const auto& grp) { return grp.shared == 3; });
        QCOMPARE(batched.size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) {
            QCOMPARE(batched[i].nodes.size(), std::size_t(24));
            for (std::size_t k = 0; k < 24; ++k) {
                const int id = (i == 0 ? 171 : 177) + 14 * int(k);
                QCOMPARE(bw->node(batched[i].nodes[k]).name, "mm_" + std::to_string(id));
            }
        }
        // Without it the saved activations are not known to be one: the weight gradients
        // batch by shape alone (down 24, gate and up 48, o and q 48, k and v 48).
        groups = compile::findMatmulGroups(*bw, nullptr, {}, true);
        std::vector<std::size_t> sizes;
        for (const auto& grp : groups) {
            if (grp.shared == 3) {
                sizes.push_back(grp.nodes.size());
            }
        }
        QCOMPARE(sizes, (std::vector<std::size_t>{24, 48, 48, 48}));
    }

    void llamaBackwardFromItsForwardRunsFused()
    {
        auto fw = load(FXSCOPE_TEST_DATA "/recorded/graphs/llama24_train_graph0.txt.gz");
        auto bw = load(FXSCOPE_TEST_DATA "/recorded/graphs/llama24_train_graph1.txt.gz");
        QVERIFY(fw && bw);
        auto store = test::openStore(m_dir.path().toStdString() + "/store3");
        QVERIFY(store);
        compile::GraphCompileOptions o;
        o.compile.store = store.get();
        o.compile.device = compile::TargetDevice::Cpu;
        o.run.forwardGraph = fw;
        auto r = compile::runCompiledGraph(*bw, {}, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QVERIFY(r->compiled.ok);
        QCOMPARE(r->matmulGroups.size(), std::size_t(96));
        for (const auto& grp : r->matmulGroups) {
            QCOMPARE(grp.fusedRuns, 1L); // the saved views are one tensor at run time
            QCOMPARE(grp.separateRuns, 0L);
        }
        for (const auto& e : r->outputMaxAbsErr) {
            QVERIFY(!e || *e < 1e-3);
        }
    }
};

QTEST_GUILESS_MAIN(TestMatmulFusion)
#include "tst_matmul_fusion.moc"
FXSCOPE_TEST_END
