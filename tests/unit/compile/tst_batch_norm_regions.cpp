// Batch norm regions compiled on the CPU (issue 27, ResNet-18 inference): a region of inference
// batch norm + the residual add + relu is one generated kernel whose output equals eager's
// (f32 with weight and bias, f64 without); and tests/data/compile/bn_relu_add_cl.txt (written by
// hand: two annotated regions, bn + relu with the convolution after it as a LibTorch step, then
// bn + add + relu; every 4-d tensor channels_last) runs compiled with the generated outputs laid
// out as eager lays them out, so that the second region takes the first one's relu as it is
// (runLoaded copies an input whose strides differ from the ones its region was compiled for).
#include "core/compile/compiled_graph.h"
#include "core/compile/prepared_region.h"
#include "core/exec/interpreter.h"
#include "core/io/graph_code_parser.h"
#include "core/partition/partitioner.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

using Dims = std::vector<std::int64_t>;
using test::meta;
using test::ref;

struct Case {
    GraphPtr graph;
    std::vector<NodeId> region;
    std::vector<std::string> keep;
};

// relu(bn(x, w?, b?, mean, var, 0.1, eps)[0] + res) over [N, C, H, W].
Case bnAddRelu(bool affine, DType t, double eps)
{
    const Dims shape{2, 8, 5, 6};
    GraphBuilder b;
    const NodeId x = b.placeholder("x", meta(shape, t));
    const NodeId w = b.placeholder("w", meta({8}, t));
    const NodeId bias = b.placeholder("b", meta({8}, t));
    const NodeId mean = b.placeholder("mean", meta({8}, t));
    const NodeId var = b.placeholder("var", meta({8}, t));
    const NodeId res = b.placeholder("res", meta(shape, t));
    const NodeId bn = b.call("bn", "aten::_native_batch_norm_legit_no_training.default",
                             {ref(x), affine ? ref(w) : Argument::none(),
                              affine ? ref(bias) : Argument::none(), ref(mean), ref(var),
                              Argument::real(0.1), Argument::real(eps)});
    const NodeId item = b.getitem("getitem", bn, 0, meta(shape, t));
    const NodeId add = b.call("add", "aten::add.Tensor", {ref(item), ref(res)}, {}, meta(shape, t));
    const NodeId relu = b.call("relu", "aten::relu.default", {ref(add)}, {}, meta(shape, t));
    // w and b stay graph inputs either way (unused when not affine) so the eager run makes them.
    const NodeId keepW = b.call("mul", "aten::mul.Tensor", {ref(w), ref(bias)}, {}, meta({8}, t));
    b.output({ref(relu), ref(keepW)});
    std::vector<std::string> keep = {"x", "mean", "var", "res"};
    if (affine) {
        keep.insert(keep.begin() + 1, {"w", "b"});
    }
    return {*b.build(), {bn, item, add, relu}, keep};
}

double maxDiff(const exec::TensorHandle& a, const exec::TensorHandle& b)
{
    const auto x = a.toDoubles();
    const auto y = b.toDoubles();
    double m = x.size() == y.size() ? 0 : INFINITY;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        m = std::max(m, std::isfinite(x[i]) && std::isfinite(y[i]) ? std::abs(x[i] - y[i])
                                                                     : INFINITY);
    }
    return m;
}

// Random tensors with the sizes and strides a loaded region was compiled for (var positive).
std::vector<at::Tensor> inputsFor(const compile::LoadedRegion& r)
{
    std::vector<at::Tensor> in;
    for (std::size_t i = 0; i < r.inputSizes.size(); ++i) {
        at::Tensor t = at::empty_strided(r.inputSizes[i], r.inputStrides[i], at::kFloat);
        in.push_back(t.copy_(at::rand(r.inputSizes[i]) + 0.5));
    }
    return in;
}

} // namespace

class TestBatchNormRegions : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_stores = 0;

    std::unique_ptr<cache::CacheStore> freshStore()
    {
        return test::openStore(m_dir.path().toStdString() + "/store" + std::to_string(m_stores++));
    }

private Q_SLOTS:
    void bnAddReluIsOneKernelEqualToEager_data()
    {
        QTest::addColumn<bool>("affine");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<double>("eps");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("f32 affine") << true << int(DType::Float32) << 1e-5 << 1e-5;
        QTest::newRow("f64 no weight, no bias") << false << int(DType::Float64) << 1e-3 << 1e-12;
    }

    void bnAddReluIsOneKernelEqualToEager()
    {
        QFETCH(bool, affine);
        QFETCH(int, dtype);
        QFETCH(double, eps);
        QFETCH(double, tolerance);
        const Case c = bnAddRelu(affine, DType(dtype), eps);
        exec::RunOptions ro;
        ro.seed = 3;
        ro.keep = c.keep;
        ro.perNodeTiming = false;
        auto run = exec::Interpreter::run(*c.graph, ro);
        QVERIFY(run && run->ok);
        auto store = freshStore();
        QVERIFY(store);
        compile::RegionCompiler rc(test::compileOptions(store.get(), 2));
        const auto out = rc.compileAndRun(*c.graph, {"r0", c.region, ""}, run->kept);
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.kernels, 1);
        QCOMPARE(out.externNodes, 0);
        QCOMPARE(out.outputs.size(), std::size_t(1));
        // Against the whole graph's eager output, computed without the region compiler.
        const double d = maxDiff(out.outputs[0], *run->kept.find("output.0"));
        QVERIFY2(d < tolerance, std::to_string(d).c_str());
        // Not a relu of zeros: the batch norm really shifted and scaled the values.
        const auto v = out.outputs[0].toDoubles();
        QVERIFY(std::count_if(v.begin(), v.end(), [](double e) { return e > 0; }) > 10);
    }

    void channelsLastRegionsKeepTheirLayoutAndChainWithoutCopies()
    {
        const std::string path = FXSCOPE_TEST_DATA "/compile/bn_relu_add_cl.txt";
        auto text = readFile(path);
        QVERIFY(text.ok());
        auto graph = io::parseGraphCode(*text, path).graph;
        QVERIFY(graph);
        const auto regions = partition::partitionByAnnotation(*graph).regions;
        QCOMPARE(regions.size(), std::size_t(2));
        auto store = freshStore();
        QVERIFY(store);
        compile::GraphCompileOptions o;
        o.compile.store = store.get();
        o.compile.timingRepeats = 2;
        o.compile.slower = [](double, double, double, double) { return false; };
        o.run.repeat = 1;
        auto r = compile::runCompiledGraph(*graph, regions, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QVERIFY(r->eager.ok && r->compiled.ok);
        QCOMPARE(r->regionsUsed, 2);
        for (const auto& region : r->regions) {
            QVERIFY2(region.state == compile::RegionState::Miss, region.headline.c_str());
            QCOMPARE(region.kernels, 1);
            QVERIFY(region.loaded);
        }
        QVERIFY(r->outputMaxAbsErr.at(0).has_value());
        QVERIFY2(*r->outputMaxAbsErr[0] < 1e-5, std::to_string(*r->outputMaxAbsErr[0]).c_str());
        // r1 was compiled for relu (r0's output) as eager laid it out: channels_last.
        const compile::LoadedRegion& r0 = *r->regions[0].loaded;
        const compile::LoadedRegion& r1 = *r->regions[1].loaded;
        const auto& r1Inputs = r1.prepared->sig.inputs;
        const auto relu = std::find_if(r1Inputs.begin(), r1Inputs.end(),
                                       [&](NodeId id) { return graph->node(id).name == "relu"; });
        QVERIFY(relu != r1Inputs.end());
        const Dims channelsLast{36, 1, 12, 4};
        QCOMPARE(r1.inputStrides.at(std::size_t(relu - r1Inputs.begin())), channelsLast);
        // r0's compiled output has exactly those strides, so r1 reads it without a copy.
        const auto& r0Outputs = r0.prepared->sig.outputs;
        const auto made = std::find_if(r0Outputs.begin(), r0Outputs.end(),
                                       [&](NodeId id) { return graph->node(id).name == "relu"; });
        QVERIFY(made != r0Outputs.end());
        auto out = r0.prepared->runner->run(*r0.prepared->loadedCode, inputsFor(r0));
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().toString().c_str());
        QCOMPARE(out->size(), r0Outputs.size());
        const at::Tensor& reluOut = out->at(std::size_t(made - r0Outputs.begin()));
        QCOMPARE(reluOut.strides().vec(), channelsLast);
        QCOMPARE(reluOut.sizes().vec(), (Dims{2, 4, 3, 3}));
        // Its kernel iterates N, H, W, C: the cache key's schedule names the layout.
        QVERIFY2(r->regions[0].transcript.find("o0:[36,1,12,4]") != std::string::npos,
                 r->regions[0].transcript.c_str());
    }
};

QTEST_GUILESS_MAIN(TestBatchNormRegions)
#include "tst_batch_norm_regions.moc"

FXSCOPE_TEST_END
