// Regions as schedules: generated kernels interleaved with LibTorch (extern) steps. The GPT-2
// fixture's annotated regions (layer norm, addmm, gelu, residual add) compile instead of falling
// back; a region whose reductions cannot share one kernel is cut into two kernels; every node
// the automatic proposal puts in a region of a fixture graph is generated (or is a view left to
// LibTorch, as region_schedule.h documents).
#include "core/exec/interpreter.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"
#include "core/io/graph_code_parser.h"
#include "core/cache/region_canon.h"
#include "core/codegen/lowering.h"
#include "core/compile/region_schedule.h"
#include "core/partition/auto_proposal.h"
#include "core/partition/partitioner.h"
#include "core/util/file_reader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

using test::meta;
using test::ref;

// The buffer a node's printed meta describes (contiguous strides when none are printed).
compile::detail::KernelInput specFromMeta(const Graph& g, NodeId id)
{
    const TensorMeta* m = g.node(id).tensorMeta();
    const auto type = m ? codegen::scalarTypeOf(m->dtype) : std::nullopt;
    if (!type || m->hasSymbolicSizes()) {
        return {std::nullopt, {codegen::RefusalKind::Dtype, "no kernel dtype"}};
    }
    codegen::BufferSpec b{g.node(id).name, *type, {}, {}};
    for (const auto& s : m->sizes) {
        b.sizes.push_back(s.value);
    }
    std::int64_t stride = 1;
    b.strides.resize(b.sizes.size());
    for (std::size_t k = b.sizes.size(); k-- > 0;) {
        b.strides[k] = m->strides ? (*m->strides)[k].value : stride;
        stride *= b.sizes[k];
    }
    return {b, {}};
}

Result<compile::detail::RegionSchedule> scheduleFromMeta(const Graph& g, const std::string& id,
                                                         const std::vector<NodeId>& nodes)
{
    const auto sig = cache::canonicalizeRegion(g, nodes);
    compile::detail::ScheduleRequest sr{&g, id, sig.order, sig.inputs, sig.outputs,
                                        [&](NodeId n) { return specFromMeta(g, n); }};
    return compile::detail::scheduleRegion(sr);
}

} // namespace

class TestRegionSchedule : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

    compile::CompileOptions options() { return test::compileOptions(m_store.get(), 1); }

private Q_SLOTS:
    void initTestCase()
    {
        m_store = test::openStore(m_dir.path().toStdString());
        QVERIFY(m_store);
    }

    void gpt2AnnotatedRegionsCompile()
    {
        const std::string path = FXSCOPE_TEST_DATA "/fixtures/graphs/gpt2_annotated_fw.txt";
        auto text = readFile(path);
        QVERIFY(text.ok());
        auto g = io::parseGraphCode(*text, path).graph;
        QVERIFY(g);
        const auto regions = partition::partitionByAnnotation(*g).regions;
        // By hand: the first annotated lines (compile_with_inductor 0) are block 0's MLP,
        // native_layer_norm_1 .. view_12 (ln, 3 getitems, view, t, addmm, view, gelu, view, t,
        // addmm, view) and the residual add_2: 14 nodes.
        QVERIFY(!regions.empty());
        QCOMPARE(regions[0].nodes.size(), std::size_t(14));
        std::set<std::string> keep;
        for (const auto& r : regions) {
            for (NodeId in : r.inputs) {
                keep.insert(g->node(in).name);
            }
        }
        exec::RunOptions ro;
        ro.keep.assign(keep.begin(), keep.end());
        ro.perNodeTiming = false;
        auto run = exec::Interpreter::run(*g, ro);
        QVERIFY(run.ok() && run->ok);
        for (int pass = 0; pass < 2; ++pass) {
            compile::RegionCompiler rc(options());
            const auto out = rc.compileAndRun(*g, {regions[0].id, regions[0].nodes, ""}, run->kept);
            QVERIFY2(out.state == (pass == 0 ? compile::RegionState::Miss
                                             : compile::RegionState::Hit),
                     out.headline.c_str());
            // By hand: the two addmm stay LibTorch calls with the views that only feed them
            // (view_9, t_2, view_11, t_3) and view_10, a returned view of addmm_1: 7 extern
            // nodes. Generated: layer norm + getitems, gelu, and view_12 + add_2. In canonical
            // numbering (region text: v4 view_9, v5 t_2, v6 addmm_1, v7 view_10, v8 gelu):
            QCOMPARE(out.externNodes, 7);
            QVERIFY2(out.transcript.find("schedule: gen v0 v1 v2 v3;ext v4 v5 v6 v7;gen v8 |") !=
                         std::string::npos,
                     out.transcript.c_str());
            // Kernels name their nodes by these canonical positions, never by name, and are named
            // after what they compute: layer norm is a row kernel (256 rows of 256), gelu a
            // pointwise one over 256 x 1024.
            QVERIFY2(out.source.find("// fx0_row_mul_sub_div_add_sum_256x256: covers FX nodes "
                                     "v0, v1, v2, v3\n") !=
                         std::string::npos,
                     out.source.c_str());
            QVERIFY(out.source.find("// fx1_pw_gelu_262144: covers FX nodes v8\n") !=
                    std::string::npos);
            QVERIFY(out.source.find("native_layer_norm_1") == std::string::npos);
            QVERIFY2(out.maxAbsErr < 1e-4, std::to_string(out.maxAbsErr).c_str());
            QVERIFY(out.compiledMs > 0);
        }
    }

    void proposedNodesAreGenerated_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"graphs/resnet18_infer.txt", "graphs/resnet18_train_fw.txt",
                              "graphs/resnet18_train_bw.txt", "graphs/gpt2_annotated_fw.txt",
                              "graphs/gpt2_annotated_bw.txt", "graphs/gpt12_train_fw.txt",
                              "graphs/gpt12_train_bw.txt", "graphs/gpt2_export.txt",
                              "export/small_mlp_export_graph.txt"}) {
            QTest::newRow(f) << QString(f);
        }
    }

    void proposedNodesAreGenerated()
    {
        QFETCH(QString, file);
        const std::string path = FXSCOPE_TEST_DATA "/fixtures/" + file.toStdString();
        auto text = readFile(path);
        QVERIFY(text.ok());
        auto g = io::parseGraphCode(*text, path).graph;
        QVERIFY(g);
        const auto part = partition::proposeRegions(*g);
        QVERIFY(!part.regions.empty());
        int generated = 0;
        for (const auto& r : part.regions) {
            auto s = scheduleFromMeta(*g, r.id, r.nodes);
            QVERIFY2(s.ok(), s.ok() ? "" : s.error().toString().c_str());
            QVERIFY2(!s->programs.empty(), (r.id + ": " + s->externReason).c_str());
            generated += s->generatedNodes;
            for (const auto& step : s->steps) {
                for (NodeId id : step.nodes) {
                    const Node& n = g->node(id);
                    // The one documented extern step of a proposed region: a view left to
                    // LibTorch (it feeds only LibTorch steps, is returned from one, or is not
                    // index arithmetic a kernel can take).
                    QVERIFY2(step.generated || codegen::isViewNode(n),
                             (r.id + ": " + n.name + " (" + n.target + ") is a LibTorch step: " +
                              s->externReason).c_str());
                }
            }
        }
        QVERIFY(generated > 0);
    }

    void frontNodeShapedOutByLaterNodesGetsItsOwnKernel()
    {
        // exp(x) is [4, 6]; neg(view(.., [2, 2, 6])) makes the index space [2, 2, 6], which
        // exp's result does not fit: exp gets a kernel of its own instead of staying LibTorch.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({4, 6}));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(x)}, {}, meta({4, 6}));
        const NodeId v = b.call("view", "aten::view.default",
                                {ref(e), Argument::list({Argument::integer(2), Argument::integer(2),
                                                         Argument::integer(6)})},
                                {}, meta({2, 2, 6}));
        const NodeId n = b.call("neg", "aten::neg.default", {ref(v)}, {}, meta({2, 2, 6}));
        b.output({ref(n)});
        auto g = *b.build();
        auto s = scheduleFromMeta(*g, "r0", {e, v, n});
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().toString().c_str());
        QCOMPARE(s->externNodes, 0);
        QCOMPARE(s->programs.size(), std::size_t(2));
        QCOMPARE(s->programs[0].kernels.at(0).nodes, std::vector<std::string>{"exp"});
        // The split is recorded for the dump: at the view, exp having needed a kernel of its own.
        QCOMPARE(s->cuts.size(), std::size_t(1));
        QCOMPARE(s->cuts[0].first, v);
        QVERIFY2(s->cuts[0].second.rfind("after a node that needs a kernel of its own: ", 0) == 0,
                 s->cuts[0].second.c_str());
    }

    void freeViewsDoNotCutAKernel_data()
    {
        QTest::addColumn<bool>("backward");
        QTest::newRow("forward") << false;
        QTest::newRow("backward") << true;
    }

    // LLaMA's SwiGLU. Forward: the returned views of the two matrix products (LibTorch: views
    // of region inputs) run first, so silu and the product are one kernel, not two. Backward:
    // the returned views (and their transposes) of the product and of silu_backward run last.
    void freeViewsDoNotCutAKernel()
    {
        QFETCH(bool, backward);
        const auto list = [](std::initializer_list<std::int64_t> v) {
            std::vector<Argument> a;
            for (auto x : v) {
                a.push_back(Argument::integer(x));
            }
            return Argument::list(a);
        };
        GraphBuilder b;
        std::vector<NodeId> region;
        std::size_t views = 0;
        if (!backward) {
            const NodeId x1 = b.placeholder("mm_1", meta({64, 16}));
            const NodeId x3 = b.placeholder("mm_3", meta({64, 16}));
            const NodeId v1 = b.call("_unsafe_view_1", "aten::_unsafe_view.default",
                                     {ref(x1), list({2, 32, 16})}, {}, meta({2, 32, 16}));
            const NodeId s = b.call("silu", "aten::silu.default", {ref(v1)}, {}, meta({2, 32, 16}));
            const NodeId v3 = b.call("_unsafe_view_3", "aten::_unsafe_view.default",
                                     {ref(x3), list({2, 32, 16})}, {}, meta({2, 32, 16}));
            const NodeId m = b.call("mul", "aten::mul.Tensor", {ref(s), ref(v3)}, {},
                                    meta({2, 32, 16}));
            const NodeId o = b.call("view", "aten::view.default", {ref(m), list({64, 16})}, {},
                                    meta({64, 16}));
            b.output({ref(v1), ref(s), ref(v3), ref(o)});
            region = {v1, s, v3, m, o};
            views = 2; // the two _unsafe_views; the returned view of the product is generated
        } else {
            const NodeId mm = b.placeholder("mm", meta({64, 16}));
            const NodeId si = b.placeholder("silu", meta({2, 32, 16}));
            const NodeId a = b.placeholder("a", meta({2, 32, 16}));
            const NodeId x = b.placeholder("x", meta({2, 32, 16}));
            const NodeId v = b.call("view", "aten::view.default", {ref(mm), list({2, 32, 16})}, {},
                                    meta({2, 32, 16}));
            const NodeId m1 = b.call("mul", "aten::mul.Tensor", {ref(v), ref(si)}, {},
                                     meta({2, 32, 16}));
            const NodeId v1 = b.call("view_1", "aten::view.default", {ref(m1), list({64, 16})},
                                     {}, meta({64, 16}));
            const NodeId m2 = b.call("mul_1", "aten::mul.Tensor", {ref(v), ref(a)}, {},
                                     meta({2, 32, 16}));
            const NodeId sb = b.call("silu_backward", "aten::silu_backward.default",
                                     {ref(m2), ref(x)}, {}, meta({2, 32, 16}));
            const NodeId v2 = b.call("view_2", "aten::view.default", {ref(sb), list({64, 16})},
                                     {}, meta({64, 16}));
            const NodeId t1 = b.call("t", "aten::t.default", {ref(v2)}, {}, meta({16, 64}));
            const NodeId t2 = b.call("t_1", "aten::t.default", {ref(v1)}, {}, meta({16, 64}));
            b.output({ref(v1), ref(t1), ref(v2), ref(t2)});
            region = {v, m1, v1, m2, sb, v2, t1, t2};
            views = 4; // the returned views of the two results and their transposes
        }
        auto g = *b.build();
        auto s = scheduleFromMeta(*g, "r0", region);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().toString().c_str());
        QCOMPARE(s->externNodes, int(views));
        QCOMPARE(s->programs.size(), std::size_t(1));
        QCOMPARE(s->programs[0].kernels.size(), std::size_t(1));
        // And the reordered schedule computes what eager does (verified against it).
        exec::RunOptions ro;
        ro.keep = backward ? std::vector<std::string>{"mm", "silu", "a", "x"}
                           : std::vector<std::string>{"mm_1", "mm_3"};
        ro.perNodeTiming = false;
        auto run = exec::Interpreter::run(*g, ro);
        QVERIFY(run.ok() && run->ok);
        compile::RegionCompiler rc(options());
        const auto out = rc.compileAndRun(*g, {"r0", region, ""}, run->kept);
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.kernels, 1);
    }

    void reductionsThatCannotShareAKernelAreCut()
    {
        // s = sum(x, -1) reduces x's trailing dim; softmax(s, 0) reduces s's only dim, which is
        // not a trailing dim of x's index space: two kernels, no LibTorch step.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({8, 16}));
        const NodeId s = b.call("sum", "aten::sum.dim_IntList",
                                {ref(x), Argument::list({Argument::integer(-1)})}, {}, meta({8}));
        const NodeId sm = b.call("_softmax", "aten::_softmax.default",
                                 {ref(s), Argument::integer(0), Argument::boolean(false)}, {},
                                 meta({8}));
        b.output({ref(sm)});
        auto g = *b.build();
        exec::RunOptions ro;
        ro.keep = {"x"};
        ro.perNodeTiming = false;
        auto run = exec::Interpreter::run(*g, ro);
        QVERIFY(run.ok() && run->ok);
        compile::RegionCompiler rc(options());
        const auto out = rc.compileAndRun(*g, {"r0", {s, sm}, ""}, run->kept);
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QVERIFY2(out.externNodes == 0, out.transcript.c_str());
        QVERIFY(out.source.find("fxs_region_entry_1(") != std::string::npos);
        // Hand check: softmax over the 8 row sums.
        const auto xs = run->kept.find("x")->toDoubles();
        std::vector<double> sums(8, 0.0);
        double total = 0;
        for (int i = 0; i < 8; ++i) {
            for (int j = 0; j < 16; ++j) {
                sums[std::size_t(i)] += xs[std::size_t(i * 16 + j)];
            }
        }
        const double mx = *std::max_element(sums.begin(), sums.end());
        for (double v : sums) {
            total += std::exp(v - mx);
        }
        const auto got = out.outputs.at(0).toDoubles();
        for (int i = 0; i < 8; ++i) {
            QVERIFY(std::abs(got[std::size_t(i)] - std::exp(sums[std::size_t(i)] - mx) / total) <
                    1e-5);
        }
    }
};

QTEST_GUILESS_MAIN(TestRegionSchedule)
#include "tst_region_schedule.moc"

FXSCOPE_TEST_END
