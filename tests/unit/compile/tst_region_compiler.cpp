// Region compiler end to end: lower, print, build with g++, load, verify against the eager
// interpreter, cache hit/miss with explanations, fallbacks (unsupported op, failed build,
// timeout, bad artifact), NaN/Inf agreement with eager, and the files it leaves: none outside
// the store, which stays within its byte cap.
#include "core/exec/interpreter.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

using test::meta;
using test::ref;

struct Case {
    GraphPtr graph;
    std::vector<NodeId> region;
    std::vector<std::string> keep; // region inputs, by name
};

// sigmoid(exp(-relu(sin(x) * y + 1) * 0.5) + tanh(y)) * x, the benchmark's chain.
Case chain(std::vector<std::int64_t> shape, DType t = DType::Float32, const char* fn = "sin")
{
    GraphBuilder b;
    const NodeId x = b.placeholder("x", meta(shape, t));
    const NodeId y = b.placeholder("y", meta(shape, t));
    const std::string target = std::string("aten::") + fn + ".default";
    const NodeId s = b.call(fn, target, {ref(x)}, {}, meta(shape, t));
    const NodeId m = b.call("mul", "aten::mul.Tensor", {ref(s), ref(y)}, {}, meta(shape, t));
    const NodeId a = b.call("add", "aten::add.Tensor", {ref(m), Argument::integer(1)}, {}, meta(shape, t));
    const NodeId r = b.call("relu", "aten::relu.default", {ref(a)}, {}, meta(shape, t));
    const NodeId n = b.call("neg", "aten::neg.default", {ref(r)}, {}, meta(shape, t));
    const NodeId h = b.call("mul_1", "aten::mul.Tensor", {ref(n), Argument::real(0.5)}, {}, meta(shape, t));
    const NodeId e = b.call("exp", "aten::exp.default", {ref(h)}, {}, meta(shape, t));
    const NodeId th = b.call("tanh", "aten::tanh.default", {ref(y)}, {}, meta(shape, t));
    const NodeId a1 = b.call("add_1", "aten::add.Tensor", {ref(e), ref(th)}, {}, meta(shape, t));
    const NodeId sg = b.call("sigmoid", "aten::sigmoid.default", {ref(a1)}, {}, meta(shape, t));
    const NodeId out = b.call("mul_2", "aten::mul.Tensor", {ref(sg), ref(x)}, {}, meta(shape, t));
    b.output({ref(out)});
    return {*b.build(), {s, m, a, r, n, h, e, th, a1, sg, out}, {"x", "y"}};
}

// layer_norm(softmax(x, -1) + x, [C], w, b) with mean and rstd also returned.
Case softmaxLayerNorm(std::int64_t rows, std::int64_t cols, DType t = DType::Float32)
{
    GraphBuilder b;
    const NodeId x = b.placeholder("x", meta({rows, cols}, t));
    const NodeId w = b.placeholder("w", meta({cols}, t));
    const NodeId bias = b.placeholder("b", meta({cols}, t));
    const NodeId sm = b.call("_softmax", "aten::_softmax.default",
                             {ref(x), Argument::integer(-1), Argument::boolean(false)}, {},
                             meta({rows, cols}, t));
    const NodeId add =
        b.call("add", "aten::add.Tensor", {ref(sm), ref(x)}, {}, meta({rows, cols}, t));
    const NodeId ln = b.call("native_layer_norm", "aten::native_layer_norm.default",
                             {ref(add), Argument::list({Argument::integer(cols)}), ref(w), ref(bias),
                              Argument::real(1e-5)});
    const NodeId o = b.getitem("getitem", ln, 0, meta({rows, cols}, t));
    const NodeId mean = b.getitem("getitem_1", ln, 1, meta({rows, 1}, t));
    const NodeId rstd = b.getitem("getitem_2", ln, 2, meta({rows, 1}, t));
    b.output({ref(o), ref(mean), ref(rstd)});
    return {*b.build(), {sm, add, ln, o, mean, rstd}, {"x", "w", "b"}};
}

exec::RunReport eager(const Case& c, std::uint64_t seed = 1)
{
    exec::RunOptions o;
    o.seed = seed;
    o.keep = c.keep;
    o.perNodeTiming = false;
    auto r = exec::Interpreter::run(*c.graph, o);
    if (!r || !r->ok) {
        qFatal("eager run failed: %s", r ? "unsupported" : r.error().toString().c_str());
    }
    return *r;
}

// Bytes of the regular files below dir (what the cache occupies on disk).
std::int64_t treeBytes(const QString& dir)
{
    std::int64_t n = 0;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        n += QFileInfo(it.next()).size();
    }
    return n;
}

// Largest |a - b| over finite values, and whether NaNs/infs sit at the same places.
double maxDiff(const exec::TensorHandle& a, const exec::TensorHandle& b, bool& sameSpecials)
{
    const auto x = a.toDoubles();
    const auto y = b.toDoubles();
    double m = 0;
    sameSpecials = x.size() == y.size();
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (std::isfinite(x[i]) && std::isfinite(y[i])) {
            m = std::max(m, std::abs(x[i] - y[i]));
        } else if (!(std::isnan(x[i]) && std::isnan(y[i])) && x[i] != y[i]) {
            sameSpecials = false;
        }
    }
    return m;
}

} // namespace

class TestRegionCompiler : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

    compile::CompileOptions options() { return test::compileOptions(m_store.get(), 2); }

    compile::RegionOutcome compileCase(const Case& c, const exec::RunReport& run,
                                       compile::CompileOptions o)
    {
        compile::RegionCompiler rc(std::move(o));
        return rc.compileAndRun(*c.graph, {"r0", c.region, ""}, run.kept);
    }

    std::string script(const char* name, const char* body)
    {
        const QString path = m_dir.path() + "/" + name;
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(QByteArray("#!/bin/sh\ncase \"$1\" in -dumpfullversion) echo 99; exit 0;; "
                           "-march=native) exit 1;; esac\n") + body);
        f.close();
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        return path.toStdString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_store = test::openStore(m_dir.path().toStdString());
        QVERIFY(m_store);
    }

    void chainMissThenHit()
    {
        const Case c = chain({64, 256});
        const auto run = eager(c);
        const auto first = compileCase(c, run, options());
        QVERIFY2(first.state == compile::RegionState::Miss, first.headline.c_str());
        QCOMPARE(first.reason, cache::Reason::MissCold);
        QCOMPARE(first.headline, std::string("miss: cold (no cache entry to compare with)"));
        QCOMPARE(first.key.size(), std::size_t(64));
        QVERIFY(first.compileMs > 0);
        QVERIFY(first.source.find("_ZGVeN16v_expf") != std::string::npos ||
                first.source.find("float expf(float);") != std::string::npos);
        QCOMPARE(first.outputs.size(), std::size_t(1));
        bool same = false;
        // The whole graph's eager output, computed independently of the region compiler.
        QVERIFY(maxDiff(first.outputs[0], *run.kept.find("output.0"), same) < 1e-5);
        QVERIFY(same);
        const auto second = compileCase(c, run, options());
        QCOMPARE(second.state, compile::RegionState::Hit);
        QCOMPARE(second.reason, cache::Reason::Hit);
        QCOMPARE(second.key, first.key);
        QVERIFY(second.headline.rfind("hit: entry " + first.key.substr(0, 12), 0) == 0);
        QVERIFY(maxDiff(second.outputs[0], *run.kept.find("output.0"), same) < 1e-5);
    }

    void missNamesTheInputDtypeChange()
    {
        const Case c = chain({64, 256}, DType::BFloat16); // LibTorch 1.13 has no CPU sin for f16
        const auto out = compileCase(c, eager(c), options());
        QCOMPARE(out.state, compile::RegionState::Miss);
        QCOMPARE(out.reason, cache::Reason::MissInputDtype);
        QCOMPARE(out.headline, std::string("miss: input 0 dtype float32 → bfloat16 (+1 more)"));
    }

    void softmaxLayerNormVerifies_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("float32") << int(DType::Float32) << 1e-4;
        QTest::newRow("float64") << int(DType::Float64) << 1e-12;
    }

    void softmaxLayerNormVerifies()
    {
        QFETCH(int, dtype);
        QFETCH(double, tolerance);
        const Case c = softmaxLayerNorm(48, 128, DType(dtype));
        const auto run = eager(c);
        const auto out = compileCase(c, run, options());
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.outputs.size(), std::size_t(3));
        bool same = false;
        for (int i = 0; i < 3; ++i) {
            const double d = maxDiff(out.outputs[std::size_t(i)],
                                     *run.kept.find("output." + std::to_string(i)), same);
            QVERIFY2(d < tolerance, std::to_string(d).c_str());
            QCOMPARE(int(out.outputs[std::size_t(i)].dtype()), dtype);
        }
        QCOMPARE(out.outputs[1].sizes(), (std::vector<std::int64_t>{48, 1}));
    }

    void doubleChainComputesInDouble()
    {
        // The chain in float64: double kernels (double exp, no float math), the result within
        // double rounding of eager's, and a miss naming the dtype change against an entry of
        // the same chain (float32 or bfloat16, whichever was hit last).
        const Case c = chain({64, 256}, DType::Float64);
        const auto run = eager(c);
        const auto out = compileCase(c, run, options());
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.reason, cache::Reason::MissInputDtype);
        QVERIFY2(out.headline.rfind("miss: input 0 dtype ", 0) == 0 &&
                     out.headline.ends_with(" → float64 (+1 more)"),
                 out.headline.c_str());
        QVERIFY(out.source.find("double exp(double);") != std::string::npos);
        QVERIFY(out.source.find("expf(") == std::string::npos);
        bool same = false;
        const double d = maxDiff(out.outputs.at(0), *run.kept.find("output.0"), same);
        QVERIFY2(d < 1e-12, std::to_string(d).c_str());
        QVERIFY(same);
        QCOMPARE(out.outputs[0].dtype(), DType::Float64);
    }

    void nanAndInfAgreeWithEager()
    {
        // log(x - 1) is NaN where x < 1; x / 0 is +-inf. The region sees both.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({16, 64}));
        const NodeId sh = b.call("sub", "aten::sub.Tensor", {ref(x), Argument::real(1.0)}, {},
                                 meta({16, 64}));
        const NodeId lg = b.call("log", "aten::log.default", {ref(sh)}, {}, meta({16, 64}));
        const NodeId inf = b.call("div", "aten::div.Tensor", {ref(x), Argument::real(0.0)}, {},
                                  meta({16, 64}));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(lg)}, {}, meta({16, 64}));
        const NodeId t = b.call("tanh", "aten::tanh.default", {ref(inf)}, {}, meta({16, 64}));
        const NodeId s = b.call("add", "aten::add.Tensor", {ref(e), ref(inf)}, {}, meta({16, 64}));
        const NodeId mx = b.call("amax", "aten::amax.default",
                                 {ref(s), Argument::list({Argument::integer(-1)}), Argument::boolean(true)},
                                 {}, meta({16, 1}));
        const NodeId w = b.call("where", "aten::where.self",
                                {ref(b.call("isnan", "aten::isnan.default", {ref(lg)}, {},
                                            meta({16, 64}, DType::Bool))),
                                 ref(t), ref(mx)},
                                {}, meta({16, 64}));
        b.output({ref(w), ref(mx)});
        const Case c{*b.build(), {e, t, s, mx, w - 1, w}, {"log", "div"}};
        const auto run = eager(c, 3);
        const auto out = compileCase(c, run, options());
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        // Region outputs come in graph order (amax first); the graph returns (where, amax).
        QCOMPARE(out.outputNames, (std::vector<std::string>{"amax", "where"}));
        bool same = false;
        QVERIFY(maxDiff(out.outputs[1], *run.kept.find("output.0"), same) < 1e-5);
        QVERIFY(same);
        QVERIFY(maxDiff(out.outputs[0], *run.kept.find("output.1"), same) < 1e-5);
        QVERIFY(same);
        // The inputs really hold NaN and inf.
        const auto lv = run.kept.find("log")->toDoubles();
        QVERIFY(std::any_of(lv.begin(), lv.end(), [](double v) { return std::isnan(v); }));
    }

    void integerAndBoolRegions()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({8, 32}, DType::Int64));
        const NodeId y = b.placeholder("y", meta({32}, DType::BFloat16));
        const NodeId gt = b.call("gt", "aten::gt.Scalar", {ref(x), Argument::integer(3)}, {},
                                 meta({8, 32}, DType::Bool));
        const NodeId m = b.call("mul", "aten::mul.Tensor", {ref(x), ref(x)}, {}, meta({8, 32}, DType::Int64));
        const NodeId w = b.call("where", "aten::where.self", {ref(gt), ref(m), Argument::integer(-1)},
                                {}, meta({8, 32}, DType::Int64));
        const NodeId f = b.call("mul_1", "aten::mul.Tensor", {ref(w), ref(y)}, {},
                                meta({8, 32}, DType::BFloat16));
        const NodeId s = b.call("sum", "aten::sum.dim_IntList",
                                {ref(w), Argument::list({Argument::integer(1)})}, {},
                                meta({8}, DType::Int64));
        b.output({ref(gt), ref(f), ref(s)});
        const Case c{*b.build(), {gt, m, w, f, s}, {"x", "y"}};
        const auto run = eager(c);
        const auto out = compileCase(c, run, options());
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        bool same = false;
        QCOMPARE(maxDiff(out.outputs[0], *run.kept.find("output.0"), same), 0.0);
        QVERIFY(maxDiff(out.outputs[1], *run.kept.find("output.1"), same) < 2.0); // bf16 ulp at 128 is 1
        QCOMPARE(maxDiff(out.outputs[2], *run.kept.find("output.2"), same), 0.0);
        QCOMPARE(out.outputs[2].sizes(), std::vector<std::int64_t>{8});
    }

    void halfAndViewsVerify()
    {
        // f16 arithmetic with a transposed, sliced and broadcast input, stored as f16 and f32.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({16, 12}, DType::Float16));
        const NodeId y = b.placeholder("y", meta({8}, DType::Float16));
        const NodeId t = b.call("permute", "aten::permute.default",
                                {ref(x), Argument::list({Argument::integer(1), Argument::integer(0)})},
                                {}, meta({12, 16}, DType::Float16));
        const NodeId s = b.call("slice", "aten::slice.Tensor",
                                {ref(t), Argument::integer(1), Argument::integer(1),
                                 Argument::integer(16), Argument::integer(2)},
                                {}, meta({12, 8}, DType::Float16));
        const NodeId m = b.call("mul", "aten::mul.Tensor", {ref(s), ref(y)}, {}, meta({12, 8}, DType::Float16));
        const NodeId a = b.call("add", "aten::add.Tensor", {ref(m), Argument::real(1.5)}, {},
                                meta({12, 8}, DType::Float16));
        const NodeId u = b.call("unsqueeze", "aten::unsqueeze.default", {ref(a), Argument::integer(0)},
                                {}, meta({1, 12, 8}, DType::Float16));
        const NodeId f = b.call("_to_copy", "aten::_to_copy.default", {ref(u)},
                                {{"dtype", Argument::ofDtype(DType::Float32)}}, meta({1, 12, 8}));
        b.output({ref(a), ref(f)});
        const Case c{*b.build(), {t, s, m, a, u, f}, {"x", "y"}};
        const auto run = eager(c);
        const auto out = compileCase(c, run, options());
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.outputNames, (std::vector<std::string>{"add", "_to_copy"}));
        bool same = false;
        QVERIFY(maxDiff(out.outputs[0], *run.kept.find("output.0"), same) < 1e-2);
        QVERIFY(maxDiff(out.outputs[1], *run.kept.find("output.1"), same) < 1e-2);
        QCOMPARE(out.outputs[1].sizes(), (std::vector<std::int64_t>{1, 12, 8}));
        QCOMPARE(out.outputs[1].dtype(), DType::Float32);
    }

    void externMmInsideARegion()
    {
        // relu(mm(x, w) + b): mm stays a LibTorch call, add+relu become one kernel.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({8, 16}));
        const NodeId w = b.placeholder("w", meta({16, 12}));
        const NodeId bias = b.placeholder("b", meta({12}));
        const NodeId mm = b.call("mm", "aten::mm.default", {ref(x), ref(w)}, {}, meta({8, 12}));
        const NodeId add = b.call("add", "aten::add.Tensor", {ref(mm), ref(bias)}, {}, meta({8, 12}));
        const NodeId r = b.call("relu", "aten::relu.default", {ref(add)}, {}, meta({8, 12}));
        b.output({ref(r)});
        const Case c{*b.build(), {mm, add, r}, {"x", "w", "b"}};
        const auto run = eager(c);
        const auto out = compileCase(c, run, options());
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.externNodes, 1);
        // Nodes by canonical position (the schedule's v1 v2 below), never by name; the kernel by
        // what it computes: pointwise add and relu over 8 x 12 elements.
        const std::string kernel = "fx0_pw_add_relu_96";
        QVERIFY(out.source.find("// " + kernel + ": covers FX nodes v1, v2\n") !=
                std::string::npos);
        // The node named "relu" is not in it: the word occurs only in the kernel's name (the
        // primitive's, fxscope's own table).
        const auto count = [&](const std::string& w) {
            int n = 0;
            for (auto p = out.source.find(w); p != std::string::npos;
                 p = out.source.find(w, p + 1)) {
                ++n;
            }
            return n;
        };
        QCOMPARE(count("relu"), count(kernel));
        QVERIFY(out.source.find("fxs_region_entry_1") == std::string::npos); // one kernel
        QVERIFY(out.transcript.find("schedule: ext v0;gen v1 v2") != std::string::npos);
        // Reference computed here, in double, from the inputs.
        const auto xs = run.kept.find("x")->toDoubles();
        const auto ws = run.kept.find("w")->toDoubles();
        const auto bs = run.kept.find("b")->toDoubles();
        const auto got = out.outputs.at(0).toDoubles();
        QCOMPARE(got.size(), std::size_t(8 * 12));
        double worst = 0;
        for (int i = 0; i < 8; ++i) {
            for (int j = 0; j < 12; ++j) {
                double acc = bs[std::size_t(j)];
                for (int k = 0; k < 16; ++k) {
                    acc += xs[std::size_t(i * 16 + k)] * ws[std::size_t(k * 12 + j)];
                }
                worst = std::max(worst, std::abs(got[std::size_t(i * 12 + j)] - std::max(acc, 0.0)));
            }
        }
        QVERIFY2(worst < 1e-4, std::to_string(worst).c_str());
        const auto again = compileCase(c, run, options());
        QCOMPARE(again.state, compile::RegionState::Hit);
        QCOMPARE(again.key, out.key);
    }

    void kernelsAroundAnExternShareOneArtifact()
    {
        // tanh(mm(exp(x), w)) + 1: a kernel, mm, a kernel; two entries in one shared object.
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({6, 10}));
        const NodeId w = b.placeholder("w", meta({10, 4}));
        const NodeId e = b.call("exp", "aten::exp.default", {ref(x)}, {}, meta({6, 10}));
        const NodeId mm = b.call("mm", "aten::mm.default", {ref(e), ref(w)}, {}, meta({6, 4}));
        const NodeId t = b.call("tanh", "aten::tanh.default", {ref(mm)}, {}, meta({6, 4}));
        const NodeId a = b.call("add", "aten::add.Tensor", {ref(t), Argument::integer(1)}, {},
                                meta({6, 4}));
        b.output({ref(a)});
        const Case c{*b.build(), {e, mm, t, a}, {"x", "w"}};
        const auto run = eager(c);
        const auto out = compileCase(c, run, options());
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.externNodes, 1);
        QVERIFY(out.source.find("fxs_region_entry_1(") != std::string::npos);
        QVERIFY(out.source.find("fxs_region_entry_2") == std::string::npos);
        bool same = false;
        QVERIFY(maxDiff(out.outputs.at(0), *run.kept.find("output.0"), same) < 1e-5);
        QVERIFY(same);
        // Hand check of one element: tanh(sum_k exp(x[0,k]) * w[k,0]) + 1.
        const auto xs = run.kept.find("x")->toDoubles();
        const auto ws = run.kept.find("w")->toDoubles();
        double acc = 0;
        for (int k = 0; k < 10; ++k) {
            acc += std::exp(xs[std::size_t(k)]) * ws[std::size_t(k * 4)];
        }
        QVERIFY(std::abs(out.outputs.at(0).toDoubles()[0] - (std::tanh(acc) + 1)) < 1e-4);
    }

    void regionOfExternsOnlyFallsBack()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({8, 8}));
        const NodeId mm = b.call("mm", "aten::mm.default", {ref(x), ref(x)}, {}, meta({8, 8}));
        b.output({ref(mm)});
        const Case c{*b.build(), {mm}, {"x"}};
        const auto out = compileCase(c, eager(c), options());
        QCOMPARE(out.state, compile::RegionState::Fallback);
        QCOMPARE(out.reason, cache::Reason::FallbackUnsupportedOp);
        QVERIFY2(out.headline.find("aten::mm.default") != std::string::npos, out.headline.c_str());
        QVERIFY(out.headline.find("r0:mm") != std::string::npos);
        QCOMPARE(out.outputs.size(), std::size_t(1)); // eager results: the run goes on
        QVERIFY(out.eagerMs > 0);
        QCOMPARE(out.compiledMs, out.eagerMs);
    }

    void cacheDirectoryStaysWithinItsCap()
    {
        // Six distinct regions through a store capped at about two entries, each compiled
        // twice (a miss, then a hit that materializes the shared object). Measured between
        // runs with the store closed, as between two fxscope-cli processes.
        QTemporaryDir dir;
        const QString cacheDir = dir.path() + "/capped";
        cache::StoreOptions so;
        so.path = cacheDir.toStdString() + "/cache.db";
        (void)cache::CacheStore::open(so);
        const std::int64_t empty = treeBytes(cacheDir);
        std::int64_t entry = 0; // the largest entry seen: blob plus materialized shared object
        std::int64_t cap = 0;
        int i = 0;
        for (const char* fn : {"sin", "cos", "abs", "erf", "atan", "sinh"}) {
            so.maxBytes = cap > 0 ? cap : (std::int64_t(1) << 40);
            auto store = cache::CacheStore::open(so);
            QVERIFY2(store, store ? "" : store.error().toString().c_str());
            const Case c = chain({8, 16}, DType::Float32, fn);
            const auto run = eager(c);
            const auto miss = compileCase(c, run, test::compileOptions(store->get(), 1));
            QVERIFY2(miss.state == compile::RegionState::Miss, miss.headline.c_str());
            const auto hit = compileCase(c, run, test::compileOptions(store->get(), 1));
            QVERIFY2(hit.state == compile::RegionState::Hit, hit.headline.c_str());
            const auto info = (*store)->info(miss.key);
            if (info.ok() && info->has_value()) {
                entry = std::max(entry, (*info)->blobBytes + (*info)->soBytes);
            }
            store->reset();
            if (i++ == 0) {
                cap = empty + 2 * entry + entry / 2;
            }
            const std::int64_t onDisk = treeBytes(cacheDir);
            QVERIFY2(onDisk <= cap + entry + 8192, // a page or two of slack for the b-trees
                     (std::to_string(onDisk) + " bytes, cap " + std::to_string(cap)).c_str());
            QCOMPARE(QDir(cacheDir).entryList({"build-*"}, QDir::Dirs).size(), 0);
        }
        auto store = cache::CacheStore::open(so);
        QVERIFY2(store, store ? "" : store.error().toString().c_str());
        const auto entries = (*store)->list();
        QVERIFY2(entries, entries ? "" : entries.error().toString().c_str());
        QVERIFY(entries->size() >= 2 && entries->size() <= 3);
    }

    void withoutAStoreNothingIsLeftBehind()
    {
        QTemporaryDir tmp;
        const QByteArray old = qgetenv("TMPDIR");
        qputenv("TMPDIR", tmp.path().toUtf8());
        const Case c = chain({8, 16}, DType::Float32, "cos");
        const auto out = compileCase(c, eager(c), test::compileOptions(nullptr, 1));
        old.isNull() ? qunsetenv("TMPDIR") : qputenv("TMPDIR", old);
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).size(), 0);
    }

    void unsupportedDtypeNamesTheDtype()
    {
        // A region whose one node reads an int32 input the code generator does not take: the
        // headline names the dtype (the cause), not that a kernel could not read the input
        // (the symptom).
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({4, 8}, DType::Int32));
        const NodeId f = b.call("_to_copy", "aten::_to_copy.default", {ref(x)},
                                {{"dtype", Argument::ofDtype(DType::Float32)}}, meta({4, 8}));
        b.output({ref(f)});
        const Case c{*b.build(), {f}, {"x"}};
        const auto out = compileCase(c, eager(c), options());
        QCOMPARE(out.state, compile::RegionState::Fallback);
        QCOMPARE(out.reason, cache::Reason::FallbackUnsupportedDtype);
        QVERIFY2(out.headline.find("input x is int32, which the code generator does not support") !=
                     std::string::npos,
                 out.headline.c_str());
        QVERIFY(out.headline.find("not a kernel tensor") == std::string::npos);
    }

    void statisticsCountReasonsByNumber()
    {
        // Every compile above counted its reason in the store.
        auto stats = m_store->stats();
        QVERIFY(stats.ok());
        std::map<int, std::int64_t> byCode(stats->begin(), stats->end());
        QVERIFY(byCode[int(cache::Reason::MissCold)] >= 1);
        QVERIFY(byCode[int(cache::Reason::Hit)] >= 1);
        QVERIFY(byCode[int(cache::Reason::FallbackUnsupportedOp)] >= 1);
    }

    void failedBuildReportsAndFallsBack()
    {
        const Case c = chain({8, 16}, DType::Float32, "cos");
        auto o = options();
        o.compiler.path = script("badcc", "echo 'error: boom' >&2\nexit 3\n");
        const auto out = compileCase(c, eager(c), o);
        QCOMPARE(out.state, compile::RegionState::Fallback);
        QCOMPARE(out.reason, cache::Reason::FallbackBuildFailed);
        QVERIFY2(out.headline.find("host compiler failed (exit 3)") != std::string::npos,
                 out.headline.c_str());
        QVERIFY(out.buildCommand.find("badcc") != std::string::npos);
        QVERIFY(out.buildCommand.find("-O3") != std::string::npos);
        QVERIFY(out.buildDiagnostics.find("error: boom") != std::string::npos);
        QCOMPARE(out.outputs.size(), std::size_t(1));
        // Nothing was stored for it.
        QVERIFY(!m_store->info(out.key)->has_value());
    }

    void compilerTimeoutFallsBack()
    {
        const Case c = chain({8, 16}, DType::Float32, "cos");
        auto o = options();
        o.compiler.path = script("slowcc", "sleep 20\n");
        o.compiler.timeoutMs = 300;
        QElapsedTimer t;
        t.start();
        const auto out = compileCase(c, eager(c), o);
        QVERIFY(t.elapsed() < 10000);
        QCOMPARE(out.state, compile::RegionState::Fallback);
        QCOMPARE(out.reason, cache::Reason::FallbackCompilerTimeout);
        QVERIFY2(out.headline.find("timed out") != std::string::npos, out.headline.c_str());
    }

    void mismatchingArtifactIsMarkedBadAndNeverUsed()
    {
        // Put cos's shared object under sin's key: the row is well-formed, the code is wrong.
        const Case s = chain({8, 16}, DType::Float32, "sin");
        const Case k = chain({8, 16}, DType::Float32, "cos");
        const auto sinRun = eager(s);
        const auto a = compileCase(s, sinRun, options());
        const auto b = compileCase(k, eager(k), options());
        QCOMPARE(a.state, compile::RegionState::Miss);
        QCOMPARE(b.state, compile::RegionState::Miss);
        auto wrong = m_store->lookup(b.key, false);
        auto right = m_store->lookup(a.key, false);
        QVERIFY(wrong.ok() && wrong->entry && right.ok() && right->entry);
        QVERIFY(m_store->remove(a.key).ok());
        QVERIFY(*m_store->insert(right->entry->info, wrong->entry->artifact));
        const auto c = compileCase(s, sinRun, options());
        QCOMPARE(c.state, compile::RegionState::Fallback);
        QCOMPARE(c.reason, cache::Reason::FallbackVerifyFailed);
        QVERIFY2(c.headline.find("verification against eager failed") != std::string::npos,
                 c.headline.c_str());
        QCOMPARE(int((*m_store->info(a.key))->status), int(cache::EntryStatus::Bad));
        QCOMPARE((*m_store->info(a.key))->statusCode, cache::Reason::FallbackVerifyFailed);
        const auto d = compileCase(s, sinRun, options());
        QCOMPARE(d.state, compile::RegionState::Fallback);
        QCOMPARE(d.reason, cache::Reason::FallbackKnownBad);
        QVERIFY2(d.headline.find("never used") != std::string::npos, d.headline.c_str());
        // Eager results still come back.
        bool same = false;
        QCOMPARE(maxDiff(d.outputs[0], *sinRun.kept.find("output.0"), same), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestRegionCompiler)
#include "tst_region_compiler.moc"

FXSCOPE_TEST_END
