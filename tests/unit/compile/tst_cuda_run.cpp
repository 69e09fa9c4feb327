// CUDA regions on a GPU (label gpu): the chain runs eagerly on cuda:0, compiles to a cubin,
// verifies against eager on the GPU, is timed with CUDA events, and hits the cache the second
// time (with the timings saved at the miss); the whole graph with the region in place is timed
// on the device without per-node syncs and as CUDA graph replays; a build-only entry is
// verified by its first run; a region without inputs runs on the graph's GPU; float32 products
// made by calling cuBLAS directly agree with LibTorch's mm for every operand layout cuBLAS reads
// in place, and the others are left to mm; products of one shape made in one batched call
// agree too, also when captured in a CUDA graph, and a compiled run makes its weight gradients
// so; a CUDA graph captured with a group's kept weights
// replays with a weight changed in place since. Skipped, with the
// reason, where this LibTorch has no CUDA or the driver sees no GPU (a skip is reported as
// such, never as a pass).
#include "core/compile/compiled_graph.h"
#include "core/compile/conv_fusion.h"
#include "core/exec/cudnn_conv.h"
#include "core/exec/direct_calls.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"
#include "tests/unit/compile/cuda_test_support.h"
#include "tests/unit/codegen/cuda_cases.h"

#include <QTemporaryDir>
#include <QtTest>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>
#if defined(FXSCOPE_TORCH_CUDA)
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <algorithm>
#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs;

class TestCudaRun : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

    // The region's inputs from an eager run of the whole graph on cuda:0.
    static exec::RunReport eagerOnGpu(const test::CudaRegion& c)
    {
        exec::RunOptions ro;
        ro.device = exec::DevicePref::Cuda;
        ro.keep = {"x", "y"};
        ro.perNodeTiming = false;
        auto run = exec::Interpreter::run(*c.graph, ro);
        if (!run || !run->ok) {
            qFatal("eager run on the GPU failed");
        }
        return std::move(*run);
    }

    compile::CompileOptions options(bool buildOnly)
    {
        compile::CompileOptions o = test::compileOptions(m_store.get(), 5);
        o.device = compile::TargetDevice::Cuda;
        o.buildOnly = buildOnly;
        return o;
    }

    // The 1M-element f32 chain as one region, its whole graph run compiled next to eager.
    Result<compile::CompiledGraphReport> runChainCompiled(bool cudaGraph, bool kernels = false)
    {
        const test::CudaRegion c = test::cudaChain("f32", 1 << 20);
        partition::Region region;
        region.id = "r0";
        region.nodes = c.nodes;
        compile::GraphCompileOptions o;
        o.compile = options(false);
        o.cudaGraph = cudaGraph;
        o.kernelTime = kernels;
        return compile::runCompiledGraph(*c.graph, {region}, o);
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!compile::cudaRunnable()) {
            QSKIP("no GPU here (or a LibTorch without CUDA): CUDA regions are only built, in "
                  "tst_cuda_build");
        }
        QVERIFY(m_dir.isValid());
        m_store = test::openStore(m_dir.path().toStdString());
        QVERIFY(m_store);
    }

    void compilesVerifiesAndHits()
    {
        const test::CudaRegion c = test::cudaChain("f32", 1 << 20);
        const exec::RunReport run = eagerOnGpu(c);
        compile::RegionCompiler rc(options(false));
        const compile::RegionOutcome miss = rc.compileAndRun(*c.graph, {"r0", c.nodes, ""}, run.kept);
        QCOMPARE(compile::regionStateName(miss.state), std::string_view("miss"));
        QCOMPARE(miss.device, std::string("cuda:0"));
        QCOMPARE(miss.timing, std::string("cuda events median"));
        QVERIFY(miss.compiledMs > 0 && miss.eagerMs > 0);
        // Back to back: the GPU's time per run, launch latency hidden.
        QVERIFY(miss.compiledBackToBackMs > 0 && miss.eagerBackToBackMs > 0);
        QVERIFY(miss.compiledBackToBackMs < 2 * miss.compiledMs);
        QVERIFY(miss.maxAbsErr < 1e-4);
        QCOMPARE(miss.bytesMoved, std::int64_t(3) * 4 * (1 << 20));
        const compile::RegionOutcome hit = rc.compileAndRun(*c.graph, {"r0", c.nodes, ""}, run.kept);
        QCOMPARE(compile::regionStateName(hit.state), std::string_view("hit"));
        QVERIFY(hit.compileMs < 50); // lookup and module load
        // The verified hit reports the miss's timings, back to back included.
        QVERIFY(hit.timingsFromEntry);
        QCOMPARE(hit.compiledBackToBackMs, miss.compiledBackToBackMs);
    }

    // The whole graph with the region in place, timed without per-node syncs: GPU time between
    // events around the steps for both graphs, and wall times from the first step to the end
    // of the GPU's work (never shorter than the GPU's part).
    void wholeGraphIsTimedOnTheDevice()
    {
        auto report = runChainCompiled(false);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().toString().c_str());
        QCOMPARE(report->regionsUsed, 1);
        QVERIFY(report->deviceMs && *report->deviceMs > 0);
        QVERIFY(report->eagerDeviceMs && *report->eagerDeviceMs > 0);
        QVERIFY(report->compiled.totalMs >= *report->deviceMs * 0.9);
        QVERIFY(report->eager.totalMs >= *report->eagerDeviceMs * 0.9);
    }

    // The same graph captured as CUDA graphs and replayed: GPU and wall times of the replays,
    // and the host's part, the replay call, far below the GPU's time for this 1M-element chain.
    void wholeGraphIsTimedAsCudaGraphReplays()
    {
        auto report = runChainCompiled(true);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().toString().c_str());
        QVERIFY(report->cudaGraph);
        QCOMPARE(report->regionsUsed, 1);
        QVERIFY(report->deviceMs && *report->deviceMs > 0);
        QVERIFY(report->eagerDeviceMs && *report->eagerDeviceMs > 0);
        QVERIFY(report->hostMs && report->eagerHostMs);
        QVERIFY(report->compiled.totalMs >= *report->deviceMs * 0.9);
        QVERIFY(*report->hostMs < report->compiled.totalMs);
        QVERIFY(report->outputMaxAbsErr.size() == 1 && report->outputMaxAbsErr[0] &&
                *report->outputMaxAbsErr[0] < 1e-4);
    }

    // --kernel-time: the profiler's sum of the replays' GPU work; the chain's nine pointwise
    // ops are nine launches eager and fewer compiled, and the kernels take no longer than the
    // time between events around them.
    void kernelTimesComeFromTheProfiler()
    {
        auto report = runChainCompiled(true, true);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().toString().c_str());
        QVERIFY(report->kernelMs && report->eagerKernelMs);
        QVERIFY(*report->kernelMs > 0 && *report->kernelMs <= *report->deviceMs * 1.05);
        QVERIFY(*report->eagerKernelMs > 0);
        QCOMPARE(report->eagerKernelEvents, 9.0);
        QVERIFY(report->kernelEvents >= 1 && report->kernelEvents < 9);
    }

    // Column reductions (tests/unit/codegen/cuda_cases.h: one tile without a row split, the rows
    // split over blocks, bfloat16 with two kept dims, a layer norm backward's row and column
    // kernels) verified against eager on the GPU; compiled twice, so the split kernels' counters
    // are seen reset after the timed launches (a stale counter gives a wrong sum).
    void columnReductionsMatchEagerOnTheGpu_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("kernels");
        QTest::newRow("colsum") << QStringLiteral("colsum") << 1;
        QTest::newRow("colsplit") << QStringLiteral("colsplit") << 1;
        QTest::newRow("colrows") << QStringLiteral("colrows") << 1;
        QTest::newRow("colhalf") << QStringLiteral("colhalf") << 1;
        QTest::newRow("lnbackward") << QStringLiteral("lnbackward") << 2;
    }

    void columnReductionsMatchEagerOnTheGpu()
    {
        QFETCH(QString, name);
        QFETCH(int, kernels);
        const testing::CudaCase* found = nullptr;
        for (const auto& c : testing::cudaCases()) {
            found = name == QLatin1String(c.name) ? &c : found;
        }
        QVERIFY(found);
        auto parsed = io::parseGraphCode(found->code, "case.txt");
        QVERIFY(parsed.graph);
        const graph::Graph& g = *parsed.graph;
        std::vector<graph::NodeId> nodes;
        exec::RunOptions ro;
        ro.device = exec::DevicePref::Cuda;
        ro.perNodeTiming = false;
        for (const auto& n : g.nodes()) {
            if (n.op == graph::OpKind::CallFunction) {
                nodes.push_back(n.id);
            } else if (n.op == graph::OpKind::Placeholder) {
                ro.keep.push_back(n.name);
            }
        }
        auto run = exec::Interpreter::run(g, ro);
        QVERIFY(run && run->ok);
        compile::CompileOptions o = options(false);
        o.slower = [](double, double, double, double) { return false; }; // verdicts elsewhere
        for (const char* want : {"miss", "hit"}) {
            const compile::RegionOutcome out =
                compile::RegionCompiler(o).compileAndRun(g, {"r0", nodes, ""}, run->kept);
            QVERIFY2(compile::regionStateName(out.state) == std::string_view(want),
                     out.headline.c_str());
            QCOMPARE(out.kernels, kernels);
            // bfloat16 (colhalf): the kernel keeps the sum in float and rounds once, eager
            // rounds the sum and then the product; they may differ by a unit in the last place
            // of bfloat16 (2^-7 of the value) at the largest output, taken twice.
            double tolerance = 1e-2;
            for (const auto& h : out.outputs) {
                const at::Tensor t = exec::tensorOf(h);
                if (t.scalar_type() == at::kBFloat16) {
                    tolerance = std::max(tolerance, 2 * std::ldexp(1.0, -7) *
                                                        t.abs().max().item<double>());
                }
            }
            QVERIFY2(out.maxAbsErr < tolerance, (std::to_string(out.maxAbsErr) + " against " +
                                                 std::to_string(tolerance))
                                                    .c_str());
        }
    }

    // A region without inputs (a mask made of constants and arange, as LLaMA's forward builds
    // one per layer) runs on the GPU the graph's values are on: before, it was placed on the
    // CPU, its CUDA code could not load and it fell back (fallback_load_failed).
    void regionWithoutInputsRunsOnTheGpu()
    {
        const std::string code =
            "def forward(self, x: \"f32[4, 8][8, 1]cuda:0\"):\n"
            "    lo: \"f32[][]cuda:0\" = torch.ops.aten.scalar_tensor.default(-inf, dtype = "
            "torch.float32, device = device(type='cuda', index=0))\n"
            "    hi: \"f32[][]cuda:0\" = torch.ops.aten.scalar_tensor.default(0.0, dtype = "
            "torch.float32, device = device(type='cuda', index=0))\n"
            "    arange: \"i64[8][1]cuda:0\" = torch.ops.aten.arange.default(8, device = "
            "device(type='cuda', index=0), pin_memory = False)\n"
            "    le: \"b8[8][1]cuda:0\" = torch.ops.aten.le.Scalar(arange, 3)\n"
            "    where: \"f32[8][1]cuda:0\" = torch.ops.aten.where.self(le, hi, lo)\n"
            "    add: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.add.Tensor(x, where)\n"
            "    return (add,)\n";
        const graph::GraphPtr g = io::parseGraphCode(code, "mask_cuda.txt").graph;
        QVERIFY(g);
        partition::Region region;
        region.id = "r0";
        for (const char* name : {"lo", "hi", "arange", "le", "where"}) {
            region.nodes.push_back(*g->find(name));
        }
        compile::GraphCompileOptions o;
        o.compile = options(false);
        auto report = compile::runCompiledGraph(*g, {region}, o);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().toString().c_str());
        QCOMPARE(report->regions.size(), std::size_t(1));
        QVERIFY2(report->regions[0].loaded, report->regions[0].headline.c_str());
        QCOMPARE(report->regions[0].device, std::string("cuda:0"));
        QCOMPARE(report->regionsUsed, 1);
        QVERIFY(report->outputMaxAbsErr.size() == 1 && report->outputMaxAbsErr[0] &&
                *report->outputMaxAbsErr[0] == 0);
    }

    // RunOptions::directMatmuls: row-major, column-major (a weight's t()), a column block of a
    // wider matrix, a transposed left operand and a single row, each against LibTorch's mm;
    // float64, a broadcast (stride 0) operand, an empty product and operands on the autograd
    // graph are declined (undefined) and counted nowhere.
    void directProductsMatchLibTorchsMm()
    {
        const auto cuda = at::TensorOptions().device(at::kCUDA, 0);
        const at::Tensor a = at::randn({64, 48}, cuda);
        const at::Tensor b = at::randn({48, 80}, cuda);
        const at::Tensor w = at::randn({80, 48}, cuda);
        const at::Tensor wide = at::randn({64, 100}, cuda);
        const at::Tensor left = at::randn({48, 64}, cuda);
        const std::vector<std::pair<at::Tensor, at::Tensor>> cases = {
            {a, b}, {a, w.t()}, {wide.narrow(1, 10, 48), b}, {left.t(), b}, {a.narrow(0, 3, 1), b},
            {a, w.t().narrow(1, 8, 33)}};
        c10::InferenceMode inference;
        for (const auto& [x, y] : cases) {
            const long before = exec::detail::directMatmulCount();
            const at::Tensor mine = exec::detail::directMatmul(x, y);
            QVERIFY(mine.defined());
            QCOMPARE(exec::detail::directMatmulCount(), before + 1);
            QVERIFY(mine.is_contiguous());
            const at::Tensor theirs = at::mm(x, y);
            QCOMPARE(mine.sizes(), theirs.sizes());
            QVERIFY(at::allclose(mine, theirs, 1e-5, 1e-5));
        }
        const long before = exec::detail::directMatmulCount();
        QVERIFY(!exec::detail::directMatmul(a.to(at::kDouble), b.to(at::kDouble)).defined());
        QVERIFY(!exec::detail::directMatmul(a, at::randn({48, 1}, cuda).expand({48, 80}))
                     .defined());
        QVERIFY(!exec::detail::directMatmul(a.narrow(1, 0, 0), b.narrow(0, 0, 0)).defined());
        QCOMPARE(exec::detail::directMatmulCount(), before);
        {
            c10::InferenceMode normal(false);
            c10::AutoGradMode grad(true);
            const at::Tensor leaf = at::randn({48, 80}, cuda).requires_grad_(true);
            QVERIFY(!exec::detail::directMatmul(a, leaf).defined());
            QVERIFY(exec::detail::matmul(a, leaf, true).requires_grad()); // mm's, on the graph
        }
        QCOMPARE(exec::detail::directMatmulCount(), before);
    }

    // directBatchedMatmul: one cublasSgemmBatched call for products of one shape and layout
    // (a gradient's t() times a row-major activation, as a training step's weight gradients),
    // each against LibTorch's mm, twice (the second call's operands elsewhere); declined
    // (empty, counted nowhere) for products of two shapes, of two layouts and in float64; a
    // call captured in a CUDA graph multiplies what its operands hold at each replay.
    void directBatchedProductsMatchLibTorchsMm()
    {
        const auto cuda = at::TensorOptions().device(at::kCUDA, 0);
        c10::InferenceMode inference;
        for (int call = 0; call < 2; ++call) {
            std::vector<at::Tensor> a;
            std::vector<at::Tensor> b;
            for (int i = 0; i < 5; ++i) {
                a.push_back(at::randn({48, 64}, cuda).t());
                b.push_back(at::randn({48, 80}, cuda));
            }
            const long before = exec::detail::directBatchedCount();
            const std::vector<at::Tensor> mine = exec::detail::directBatchedMatmul(a, b);
            QCOMPARE(mine.size(), std::size_t(5));
            QCOMPARE(exec::detail::directBatchedCount(), before + 1);
            for (std::size_t i = 0; i < 5; ++i) {
                QVERIFY(mine[i].is_contiguous());
                QVERIFY(at::allclose(mine[i], at::mm(a[i], b[i]), 1e-5, 1e-5));
            }
        }
        const at::Tensor x = at::randn({64, 48}, cuda);
        const at::Tensor y = at::randn({48, 80}, cuda);
        const long before = exec::detail::directBatchedCount();
        QVERIFY(exec::detail::directBatchedMatmul({x, x.narrow(0, 0, 32)}, {y, y}).empty());
        QVERIFY(exec::detail::directBatchedMatmul({x, x.t().contiguous().t()}, {y, y}).empty());
        QVERIFY(exec::detail::directBatchedMatmul({x.to(at::kDouble), x.to(at::kDouble)},
                                                  {y.to(at::kDouble), y.to(at::kDouble)})
                    .empty());
        QCOMPARE(exec::detail::directBatchedCount(), before);
#if defined(FXSCOPE_TORCH_CUDA)
        // Captured in a CUDA graph: each replay writes the addresses again and multiplies what
        // the operands hold then.
        std::vector<at::Tensor> a{x.clone(), x.clone() * 2};
        std::vector<at::Tensor> b{y.clone(), y.clone()};
        std::vector<at::Tensor> captured;
        at::cuda::CUDAGraph graph;
        {
            c10::cuda::CUDAStreamGuard guard(c10::cuda::getStreamFromPool());
            exec::detail::directBatchedMatmul(a, b); // warm-up on the capturing stream
            graph.capture_begin();
            captured = exec::detail::directBatchedMatmul(a, b);
            graph.capture_end();
        }
        QCOMPARE(captured.size(), std::size_t(2));
        for (int replay = 0; replay < 2; ++replay) {
            a[0].copy_(at::randn({64, 48}, cuda)); // in place: the captured addresses hold
            b[1].copy_(at::randn({48, 80}, cuda));
            graph.replay();
            c10::cuda::device_synchronize();
            QVERIFY(at::allclose(captured[0], at::mm(a[0], b[0]), 1e-5, 1e-5));
            QVERIFY(at::allclose(captured[1], at::mm(a[1], b[1]), 1e-5, 1e-5));
        }
#endif
    }

    // A backward-like chain whose three weight gradients only the output reads (through t;
    // test::layeredProducts): the compiled run makes them in one batched call (one group,
    // "batched"), with and without CUDA graphs (captured as that call), the outputs as eager's.
    void compiledRunsBatchTheWeightGradients()
    {
        const graph::GraphPtr g = test::layeredProducts(3, 64, 48, "cuda:0");
        QVERIFY(g);
        for (bool cudaGraph : {false, true}) {
            compile::GraphCompileOptions o;
            o.compile = options(false);
            o.cudaGraph = cudaGraph;
            auto report = compile::runCompiledGraph(*g, {}, o);
            QVERIFY2(report.ok(), report.ok() ? "" : report.error().toString().c_str());
            QCOMPARE(report->matmulGroups.size(), std::size_t(1));
            const auto& grp = report->matmulGroups[0];
            QCOMPARE(grp.shared, 3);
            QCOMPARE(grp.nodes, (std::vector<std::string>{"mm_w0", "mm_w1", "mm_w2"}));
            QVERIFY(grp.fusedRuns >= 1);
            QCOMPARE(grp.separateRuns, 0L); // captured as one call too
            QCOMPARE(report->outputMaxAbsErr.size(), std::size_t(4));
            for (const auto& e : report->outputMaxAbsErr) {
                QVERIFY(e && *e < 1e-4);
            }
        }
    }

    // directAddmm: cuBLASLt with the bias in its epilogue, against LibTorch's addmm for a
    // weight's t() (column-major), a row-major right operand and a single row; a second call of
    // a shape reuses its set-up and agrees. A bias of the wrong length, a float64 one, a strided
    // bias and a bias on the autograd graph are declined and counted nowhere.
    void directAddmmMatchesLibTorchsAddmm()
    {
        const auto cuda = at::TensorOptions().device(at::kCUDA, 0);
        const at::Tensor a = at::randn({64, 48}, cuda);
        const at::Tensor w = at::randn({80, 48}, cuda);
        const at::Tensor b = at::randn({48, 80}, cuda);
        const at::Tensor bias = at::randn({80}, cuda);
        c10::InferenceMode inference;
        const std::vector<std::pair<at::Tensor, at::Tensor>> cases = {
            {a, w.t()}, {a, b}, {a.narrow(0, 5, 1), w.t()}, {a, w.t()}};
        for (const auto& [x, y] : cases) {
            const long before = exec::detail::directAddmmCount();
            const at::Tensor mine = exec::detail::directAddmm(bias, x, y);
            QVERIFY(mine.defined());
            QCOMPARE(exec::detail::directAddmmCount(), before + 1);
            const at::Tensor theirs = at::addmm(bias, x, y);
            QCOMPARE(mine.sizes(), theirs.sizes());
            QVERIFY(at::allclose(mine, theirs, 1e-5, 1e-5));
        }
        const long before = exec::detail::directAddmmCount();
        QVERIFY(!exec::detail::directAddmm(at::randn({79}, cuda), a, b).defined());
        QVERIFY(!exec::detail::directAddmm(bias.to(at::kDouble), a, b).defined());
        QVERIFY(!exec::detail::directAddmm(at::randn({160}, cuda).slice(0, 0, 160, 2), a, b)
                     .defined());
        {
            c10::InferenceMode normal(false);
            c10::AutoGradMode grad(true);
            const at::Tensor leaf = at::randn({80}, cuda).requires_grad_(true);
            QVERIFY(!exec::detail::directAddmm(leaf, a, b).defined());
        }
        QCOMPARE(exec::detail::directAddmmCount(), before);
    }

    // A convolution nothing fuses with (3 input channels, as ResNet's stem) runs through cuDNN's
    // plan for the convolution alone (cudnnFusedConv without scale and shift): within TF32's
    // rounding of LibTorch's, laid out channels_last, and a second call agrees with the first.
    void convolutionAloneRunsThroughCudnnsPlan()
    {
        if (!exec::detail::cudnnFusedConvAvailable()) {
            QSKIP("cuDNN's backend API is not in this process");
        }
        const auto cuda = at::TensorOptions().device(at::kCUDA, 0);
        const auto nhwc = at::MemoryFormat::ChannelsLast;
        const at::Tensor x = at::randn({2, 3, 32, 32}, cuda).contiguous(nhwc);
        const at::Tensor w = at::randn({16, 3, 7, 7}, cuda).contiguous(nhwc);
        exec::detail::FusedConvParams p;
        p.stride = {2, 2};
        p.padding = {3, 3};
        c10::InferenceMode inference;
        const long before = exec::detail::cudnnFusedConvCount();
        const at::Tensor mine = exec::detail::cudnnFusedConv(x, w, {}, {}, {}, p);
        QVERIFY(mine.defined());
        QVERIFY(mine.is_contiguous(nhwc));
        const at::Tensor theirs = at::convolution(x, w, {}, {2, 2}, {3, 3}, {1, 1}, false,
                                                  {0, 0}, 1);
        QCOMPARE(mine.sizes(), theirs.sizes());
        QVERIFY(at::allclose(mine, theirs, 2e-2, 2e-2));
        QVERIFY(at::allclose(exec::detail::cudnnFusedConv(x, w, {}, {}, {}, p), mine, 1e-6, 1e-6));
        QCOMPARE(exec::detail::cudnnFusedConvCount(), before + 2);
        // One of scale and shift without the other is declined.
        QVERIFY(!exec::detail::cudnnFusedConv(x, w, at::ones({16}, cuda), {}, {}, p).defined());
    }

    // The compiled run's products call cuBLAS directly (two a run); the eager run's and those of
    // a run with the option off do not, and the outputs agree.
    void compiledRunsCallCublasDirectly()
    {
        const std::string code =
            "def forward(self, x: \"f32[64, 48][48, 1]cuda:0\", w: \"f32[80, 48][48, 1]cuda:0\"):\n"
            "    t: \"f32[48, 80][1, 48]cuda:0\" = torch.ops.aten.t.default(w)\n"
            "    mm: \"f32[64, 80][80, 1]cuda:0\" = torch.ops.aten.mm.default(x, t)\n"
            "    relu: \"f32[64, 80][80, 1]cuda:0\" = torch.ops.aten.relu.default(mm)\n"
            "    t_1: \"f32[80, 64][1, 80]cuda:0\" = torch.ops.aten.t.default(relu)\n"
            "    mm_1: \"f32[80, 48][48, 1]cuda:0\" = torch.ops.aten.mm.default(t_1, x)\n"
            "    return (mm_1,)\n";
        const graph::GraphPtr g = io::parseGraphCode(code, "mm_cuda.txt").graph;
        QVERIFY(g);
        partition::Region region;
        region.id = "r0";
        region.nodes.push_back(*g->find("relu"));
        partition::computeRegionStats(*g, region); // its input mm, its output relu
        for (bool direct : {true, false}) {
            compile::GraphCompileOptions o;
            o.compile = options(false);
            o.directMatmuls = direct;
            o.compile.slower = [](double, double, double, double) { return false; }; // kept
            auto report = compile::runCompiledGraph(*g, {region}, o);
            QVERIFY2(report.ok(), report.ok() ? "" : report.error().toString().c_str());
            QVERIFY2(report->regionsUsed == 1,
                     report->regions.empty() ? "no region" : report->regions[0].headline.c_str());
            QCOMPARE(report->directMatmuls, direct ? 2L : 0L);
            QVERIFY(report->outputMaxAbsErr.size() == 1 && report->outputMaxAbsErr[0] &&
                    *report->outputMaxAbsErr[0] < 1e-4);
        }
    }

    // A convolution, its batch norm, a residual add and a relu: one step of the compiled run,
    // made by cuDNN as one graph where its backend API is in the process (conv_fusion.h), the
    // output within TF32's rounding of the eager run's (LibTorch's convolution rounds so too).
    // Off: no step, the nodes run as LibTorch's operators.
    void convolutionEpiloguesRunAsOneCudnnGraph()
    {
        const std::string code =
            "def forward(self, x: \"f32[2, 8, 10, 10][800, 100, 10, 1]cuda:0\", "
            "w: \"f32[16, 8, 3, 3][72, 9, 3, 1]cuda:0\", g: \"f32[16][1]cuda:0\", "
            "b: \"f32[16][1]cuda:0\", m: \"f32[16][1]cuda:0\", v: \"f32[16][1]cuda:0\", "
            "r: \"f32[2, 16, 10, 10][1600, 100, 10, 1]cuda:0\"):\n"
            "    convolution: \"f32[2, 16, 10, 10][1600, 100, 10, 1]cuda:0\" = "
            "torch.ops.aten.convolution.default(x, w, None, [1, 1], [1, 1], [1, 1], False, "
            "[0, 0], 1)\n"
            "    bn = torch.ops.aten._native_batch_norm_legit_no_training.default(convolution, g, "
            "b, m, v, 0.1, 1e-05)\n"
            "    getitem: \"f32[2, 16, 10, 10][1600, 100, 10, 1]cuda:0\" = bn[0]\n"
            "    add: \"f32[2, 16, 10, 10][1600, 100, 10, 1]cuda:0\" = "
            "torch.ops.aten.add.Tensor(getitem, r)\n"
            "    relu: \"f32[2, 16, 10, 10][1600, 100, 10, 1]cuda:0\" = "
            "torch.ops.aten.relu.default(add)\n"
            "    return (relu,)\n";
        const graph::GraphPtr graph = io::parseGraphCode(code, "conv_cuda.txt").graph;
        QVERIFY(graph);
        QCOMPARE(compile::findConvEpilogues(*graph, {}).size(), std::size_t(1));
        const bool cudnn = exec::detail::cudnnFusedConvAvailable();
        for (auto mode : {compile::ConvFusion::Always, compile::ConvFusion::Off}) {
            compile::GraphCompileOptions o;
            o.compile = options(false);
            o.fuseConvolutions = mode;
            auto report = compile::runCompiledGraph(*graph, {}, o);
            QVERIFY2(report.ok(), report.ok() ? "" : report.error().toString().c_str());
            const bool on = mode == compile::ConvFusion::Always;
            QCOMPARE(report->convEpilogues, on ? 1 : 0);
            QCOMPARE(report->cudnnConvs, on && cudnn ? 1L : 0L);
            QVERIFY(report->outputMaxAbsErr.size() == 1 && report->outputMaxAbsErr[0] &&
                    *report->outputMaxAbsErr[0] < 2e-2);
        }
    }

    // Two products of x by two weights' t(): one group whose weights are kept side by side. A
    // CUDA graph captured after a warm-up run reads the kept copy; after w1 *= 2 in place, the
    // substitutes' beforeReplay joins the weights again into that copy, and the replay gives
    // x @ (2 w1)^T. Without it the replay would read the old weights.
    void keptWeightsFollowInPlaceChangesAcrossReplays()
    {
#if defined(FXSCOPE_TORCH_CUDA)
        const std::string code =
            "def forward(self, x: \"f32[64, 48][48, 1]cuda:0\", w1: \"f32[32, 48][48, 1]cuda:0\", "
            "w2: \"f32[16, 48][48, 1]cuda:0\"):\n"
            "    t: \"f32[48, 32][1, 48]cuda:0\" = torch.ops.aten.t.default(w1)\n"
            "    mm: \"f32[64, 32][32, 1]cuda:0\" = torch.ops.aten.mm.default(x, t)\n"
            "    t_1: \"f32[48, 16][1, 48]cuda:0\" = torch.ops.aten.t.default(w2)\n"
            "    mm_1: \"f32[64, 16][16, 1]cuda:0\" = torch.ops.aten.mm.default(x, t_1)\n"
            "    return (mm, mm_1)\n";
        const graph::GraphPtr g = io::parseGraphCode(code, "group_cuda.txt").graph;
        QVERIFY(g);
        const auto cuda = at::TensorOptions().device(at::kCUDA, 0);
        const at::Tensor x = at::randn({64, 48}, cuda);
        const at::Tensor w1 = at::randn({32, 48}, cuda);
        const at::Tensor w2 = at::randn({16, 48}, cuda);
        auto store = std::make_shared<exec::ValueStore>();
        store->set("x", exec::makeHandle(x));
        store->set("w1", exec::makeHandle(w1));
        store->set("w2", exec::makeHandle(w2));
        exec::RunOptions ro;
        ro.device = exec::DevicePref::Cuda;
        ro.inputs = store;
        ro.perNodeTiming = false;
        ro.summarizeOutputs = false;
        auto fusion = compile::fuseMatmulsFor(*g, {}, ro, *store);
        QVERIFY2(fusion.ok(), fusion.ok() ? "" : fusion.error().toString().c_str());
        QCOMPARE(fusion->groups.size(), std::size_t(1));
        ro.substitutes = fusion->substitutes;
        c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, 0);
        c10::cuda::CUDAStreamGuard onSide(side);
        auto warm = exec::Interpreter::run(*g, ro); // joins and keeps the weights on `side`
        QVERIFY(warm.ok() && warm->ok);
        side.synchronize();
        at::cuda::CUDAGraph graph;
        ro.onSteps = [&](bool first) {
            if (first) {
                graph.capture_begin();
            } else {
                graph.capture_end();
            }
        };
        auto captured = exec::Interpreter::run(*g, ro);
        QVERIFY(captured.ok() && captured->ok);
        const auto output = [&](int i) {
            return exec::tensorOf(*captured->kept.find("output." + std::to_string(i)));
        };
        graph.replay();
        side.synchronize();
        QVERIFY(at::allclose(output(0), at::mm(x, w1.t()), 1e-5, 1e-5));
        w1.mul_(2);
        for (const auto& sub : ro.substitutes) {
            if (sub.beforeReplay) {
                QVERIFY(bool(sub.beforeReplay()));
            }
        }
        graph.replay();
        side.synchronize();
        const auto off = [&](const at::Tensor& a, const at::Tensor& b) {
            return std::to_string((a - b).abs().max().item<double>());
        };
        QVERIFY2(at::allclose(output(0), at::mm(x, w1.t()), 1e-5, 1e-5),
                 ("off the new product by " + off(output(0), at::mm(x, w1.t())) +
                  ", the old one by " + off(output(0), at::mm(x, w1.t()) / 2))
                     .c_str());
        QVERIFY(at::allclose(output(1), at::mm(x, w2.t()), 1e-5, 1e-5));
#else
        QSKIP("CUDA graphs need a LibTorch with CUDA");
#endif
    }

    void firstRunVerifiesABuildOnlyEntry()
    {
        const test::CudaRegion c = test::cudaChain("bf16", 5000);
        const compile::RegionOutcome built =
            compile::RegionCompiler(options(true)).compileAndRun(*c.graph, {"r0", c.nodes, ""}, {});
        QCOMPARE(compile::regionStateName(built.state), std::string_view("built"));
        const exec::RunReport run = eagerOnGpu(c);
        const compile::RegionOutcome hit =
            compile::RegionCompiler(options(false)).compileAndRun(*c.graph, {"r0", c.nodes, ""}, run.kept);
        QCOMPARE(compile::regionStateName(hit.state), std::string_view("hit"));
        QCOMPARE(hit.key, built.key);
        auto entry = m_store->info(hit.key);
        QVERIFY(entry && entry->has_value());
        QCOMPARE(int((*entry)->status), int(cache::EntryStatus::Verified));
    }
};

QTEST_GUILESS_MAIN(TestCudaRun)
#include "tst_cuda_run.moc"

FXSCOPE_TEST_END
