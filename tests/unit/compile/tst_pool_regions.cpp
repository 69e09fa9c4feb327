// Max pooling in generated kernels (issue 27, ResNet-18's stem; core/codegen/pool_ops.cpp),
// against eager on the CPU: a pool of a region input (NCHW and channels_last, odd sizes, uneven
// kernels and strides, 3-D, f64) whose every value is negative, so a padding read as 0 instead
// of -inf shows at every border, and with NaNs (eager's pool propagates them); the stem's
// [batch norm, relu, max pool] as one kernel, and [batch norm, max pool] (negative values
// through the computed path's padding); the pool refused where its producers also leave the
// kernel (two kernels, same values); dilation, ceil_mode and a read of the indices refused as
// Shape; the CUDA source of both kinds built with NVRTC (no GPU needed).
#include "core/codegen/lowering.h"
#include "core/cuda/nvrtc.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <ATen/ATen.h>
#include <QTemporaryDir>
#include <QtTest>

#include <cctype>
#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

using Dims = std::vector<std::int64_t>;

std::string dims(const Dims& d)
{
    std::string s = "[";
    for (std::size_t i = 0; i < d.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(d[i]);
    }
    return s + "]";
}

Dims contiguous(const Dims& sizes)
{
    Dims s(sizes.size(), 1);
    for (std::size_t i = sizes.size(); i-- > 1;) {
        s[i - 1] = s[i] * sizes[i];
    }
    return s;
}

Dims channelsLast(const Dims& n) // [N, C, H, W]
{
    return {n[1] * n[2] * n[3], 1, n[3] * n[1], n[1]};
}

struct PoolCase {
    Dims x;
    bool cl = false;           // channels_last input (and output)
    std::string args;          // after the input: "[3, 3], [2, 2], [1, 1]"
    Dims out;
    std::string producer;      // "" (a region input), "bn" or "bn_relu"
    bool withIndices = true;   // max_pool2d_with_indices, else max_pool2d
    bool producerOut = false;  // the value before the pool is also returned
    std::string dtype = "f32";
};

std::string meta(const PoolCase& c, const Dims& sizes)
{
    const Dims st = c.cl && sizes.size() == 4 ? channelsLast(sizes) : contiguous(sizes);
    return "\"" + c.dtype + dims(sizes) + dims(st) + "cpu\"";
}

// The graph: x (and the batch norm's per-channel vectors) -> [bn -> [relu] ->] pool.
std::string graphText(const PoolCase& c)
{
    const std::int64_t ch = c.x.size() == 4 ? c.x[1] : c.x[0];
    const std::string vec = "\"" + c.dtype + "[" + std::to_string(ch) + "][1]cpu\"";
    std::string t = "class GraphModule(torch.nn.Module):\n    def forward(self, x: " +
                    meta(c, c.x) + ", w: " + vec + ", b: " + vec + ", mean: " + vec +
                    ", var: " + vec + "):\n";
    std::string in = "x";
    if (!c.producer.empty()) {
        t += "        bn = torch.ops.aten._native_batch_norm_legit_no_training.default(x, w, b, "
             "mean, var, 0.1, 1e-05)\n        getitem: " +
             meta(c, c.x) + " = bn[0]\n";
        in = "getitem";
    }
    if (c.producer == "bn_relu") {
        t += "        relu: " + meta(c, c.x) + " = torch.ops.aten.relu.default(getitem)\n";
        in = "relu";
    }
    if (c.withIndices) {
        t += "        pool = torch.ops.aten.max_pool2d_with_indices.default(" + in + ", " +
             c.args + ")\n        pooled: " + meta(c, c.out) + " = pool[0]\n";
    } else {
        t += "        pooled: " + meta(c, c.out) + " = torch.ops.aten.max_pool2d.default(" + in +
             ", " + c.args + ")\n";
    }
    t += "        mul: " + vec + " = torch.ops.aten.mul.Tensor(w, b)\n"; // keeps w and b inputs
    return t + "        return (pooled, mul" + (c.producerOut ? ", " + in : std::string()) +
           ")\n";
}

GraphPtr parse(const std::string& text)
{
    auto r = io::parseGraphCode(text, "pool.py");
    if (r.diagnostics.errorCount() != 0) {
        qWarning("%s", text.c_str());
    }
    return r.diagnostics.errorCount() == 0 ? r.graph : nullptr;
}

// The region: every call node but the mul that keeps w and b.
std::vector<NodeId> regionOf(const Graph& g)
{
    std::vector<NodeId> nodes;
    for (const auto& n : g.nodes()) {
        if (n.op == OpKind::CallFunction && n.name != "mul") {
            nodes.push_back(n.id);
        }
    }
    return nodes;
}

// Inputs: x all negative (so padding read as 0 would win every border window) with two NaNs,
// one in a corner window; var positive.
std::shared_ptr<exec::ValueStore> inputsOf(const PoolCase& c)
{
    const auto type = c.dtype == "f64" ? at::kDouble : at::kFloat;
    at::manual_seed(5);
    at::Tensor x = -(at::rand(c.x, type) + 0.25);
    at::Tensor flat = x.view({-1});
    flat[0] = NAN;
    flat[flat.numel() / 2 + 3] = NAN;
    if (c.cl) {
        x = x.contiguous(at::MemoryFormat::ChannelsLast);
    }
    const std::int64_t ch = c.x.size() == 4 ? c.x[1] : c.x[0];
    auto store = std::make_shared<exec::ValueStore>();
    store->set("x", exec::makeHandle(x));
    store->set("w", exec::makeHandle(at::randn({ch}, type)));
    store->set("b", exec::makeHandle(at::randn({ch}, type)));
    store->set("mean", exec::makeHandle(at::randn({ch}, type)));
    store->set("var", exec::makeHandle(at::rand({ch}, type) + 0.5));
    return store;
}

// Largest difference over finite values; infinity where NaN or infinite positions differ.
double maxDiff(const at::Tensor& a, const at::Tensor& b)
{
    if (!a.defined() || !b.defined() || a.sizes() != b.sizes()) {
        return INFINITY;
    }
    const at::Tensor x = a.to(at::kDouble).contiguous().view({-1});
    const at::Tensor y = b.to(at::kDouble).contiguous().view({-1});
    const auto* p = x.data_ptr<double>();
    const auto* q = y.data_ptr<double>();
    double m = 0;
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        if (std::isnan(p[i]) || std::isnan(q[i]) || std::isinf(p[i]) || std::isinf(q[i])) {
            m = (std::isnan(p[i]) && std::isnan(q[i])) || p[i] == q[i] ? m : INFINITY;
        } else {
            m = std::max(m, std::abs(p[i] - q[i]));
        }
    }
    return m;
}

// The bodies of the generated inner loops (`for (int64_t c = ...) { ... }`), each up to its
// closing brace.
std::vector<std::string> innerLoops(const std::string& source)
{
    std::vector<std::string> loops;
    for (std::size_t at = source.find("for (int64_t c = "); at != std::string::npos;
         at = source.find("for (int64_t c = ", at + 1)) {
        const std::size_t open = source.find('{', at);
        int depth = 0;
        std::size_t end = open;
        for (; end < source.size(); ++end) {
            depth += source[end] == '{' ? 1 : source[end] == '}' ? -1 : 0;
            if (depth == 0) {
                break;
            }
        }
        loops.push_back(source.substr(open, end - open));
    }
    return loops;
}

// The guarded loads of the printed C++ have no branch: no load is read conditionally
// (`cond ? in0[...] : fill`, which stops g++'s vectoriser: "control flow in loop"), and where
// every guard is on an outer dim (rowInvariant) each select is decided once per row (a g<load>
// flag computed before the loop), never by index arithmetic in the loop.
std::string guardedLoadProblem(const std::string& source, bool rowInvariant)
{
    const auto loops = innerLoops(source);
    if (loops.empty()) {
        return "no inner loop";
    }
    int selects = 0;
    for (const std::string& body : loops) {
        if (body.find("? in") != std::string::npos) {
            return "a conditional load in an inner loop:\n" + body;
        }
        // A guarded load's select: fxs_sel_f(<guard>, in<k>[...], <fill>).
        for (std::size_t at = body.find("fxs_sel"); at != std::string::npos;
             at = body.find("fxs_sel", at + 1)) {
            const std::size_t open = body.find('(', at);
            const std::size_t load = body.find(", ", open);
            if (body.compare(load, 4, ", in") != 0) {
                continue; // a where's select of computed values
            }
            ++selects;
            const std::string guard = body.substr(open + 1, load - open - 1);
            const bool rowFlag = guard.size() > 1 && guard[0] == 'g' &&
                                 guard.find_first_not_of("0123456789", 1) == std::string::npos;
            if (rowInvariant && !rowFlag) {
                return "a per-element guard (" + guard + ") on a row-invariant load:\n" + body;
            }
        }
    }
    return selects > 0 || !rowInvariant ? "" : "no guarded load printed through a select";
}

} // namespace

class TestPoolRegions : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_stores = 0;

    std::unique_ptr<cache::CacheStore> freshStore()
    {
        return test::openStore(m_dir.path().toStdString() + "/store" + std::to_string(m_stores++));
    }

    // Compiled on the CPU against the eager run of the same inputs.
    compile::RegionOutcome compileCase(const PoolCase& c, at::Tensor& eager)
    {
        const GraphPtr g = parse(graphText(c));
        if (!g) {
            return {};
        }
        exec::RunOptions ro;
        ro.inputs = inputsOf(c);
        ro.keep = {"x", "w", "b", "mean", "var"};
        ro.perNodeTiming = false;
        auto run = exec::Interpreter::run(*g, ro);
        if (!run || !run->ok) {
            qWarning("eager: %s", run ? "unsupported" : run.error().toString().c_str());
            return {};
        }
        eager = exec::tensorOf(*run->kept.find("output.0"));
        auto store = freshStore();
        compile::RegionCompiler rc(test::compileOptions(store.get(), 1));
        return rc.compileAndRun(*g, {"r0", regionOf(*g), ""}, run->kept);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void poolEqualsEager_data()
    {
        QTest::addColumn<int>("row");
        QTest::addColumn<int>("kernels");
        QTest::newRow("input NCHW 3x3/2 pad 1, odd sizes") << 0 << 1;
        QTest::newRow("input channels_last") << 1 << 1;
        QTest::newRow("input max_pool2d 2x2/2") << 2 << 1;
        QTest::newRow("input 3x2 kernel, stride [2, 1], padding [1, 0]") << 3 << 1;
        QTest::newRow("input 3-D f64, 3x3/1 pad 1") << 4 << 1;
        QTest::newRow("bn relu pool channels_last (the stem)") << 5 << 1;
        QTest::newRow("bn pool NCHW (negative values through padding)") << 6 << 1;
        QTest::newRow("relu also returned: the pool starts a kernel") << 7 << 2;
    }

    void poolEqualsEager()
    {
        QFETCH(int, row);
        QFETCH(int, kernels);
        const std::string a3 = "[3, 3], [2, 2], [1, 1]";
        const std::vector<PoolCase> cases = {
            {{2, 3, 7, 9}, false, a3, {2, 3, 4, 5}, ""},
            {{2, 3, 7, 9}, true, a3, {2, 3, 4, 5}, ""},
            {{2, 3, 8, 6}, false, "[2, 2], [2, 2]", {2, 3, 4, 3}, "", false},
            {{1, 2, 5, 7}, false, "[3, 2], [2, 1], [1, 0]", {1, 2, 3, 6}, ""},
            {{3, 6, 5}, false, "[3, 3], [1, 1], [1, 1]", {3, 6, 5}, "", true, false, "f64"},
            {{2, 8, 9, 11}, true, a3, {2, 8, 5, 6}, "bn_relu"},
            {{2, 4, 7, 7}, false, a3, {2, 4, 4, 4}, "bn"},
            {{2, 8, 9, 11}, true, a3, {2, 8, 5, 6}, "bn_relu", true, true},
        };
        const PoolCase& c = cases.at(std::size_t(row));
        at::Tensor eager;
        const compile::RegionOutcome out = compileCase(c, eager);
        QVERIFY2(out.state == compile::RegionState::Miss, out.headline.c_str());
        QCOMPARE(out.externNodes, 0);
        QCOMPARE(out.kernels, kernels);
        at::Tensor got; // the pool's output among the region's (relu's has other sizes)
        for (const auto& h : out.outputs) {
            got = exec::tensorOf(h).sizes().vec() == c.out ? exec::tensorOf(h) : got;
        }
        QVERIFY(got.defined());
        QCOMPARE(int(out.outputs.size()), c.producerOut ? 2 : 1);
        const double d = maxDiff(got, eager);
        QVERIFY2(d < 1e-6, std::to_string(d).c_str());
        QVERIFY(eager.isnan().any().item<bool>()); // the NaNs reached the output
        if (c.producer.empty() && row != 2) {
            // A region input's padding is the guarded load's fill (row 2 has no padding).
            QVERIFY2(out.source.find("(-__builtin_inf") != std::string::npos,
                     out.source.c_str());
        }
        if (c.cl) {
            QCOMPARE(got.strides().vec(), eager.strides().vec());
        }
        if (row != 2) { // row 2 has no padding: no guards
            // channels_last: the window's guards are on H and W, outer dims of [N, H, W, C].
            const std::string why = guardedLoadProblem(out.source, c.cl);
            QVERIFY2(why.empty(), why.c_str());
        }
    }

    // Refused with a Shape refusal naming why (the automatic proposal leaves them to LibTorch).
    void refusals_data()
    {
        QTest::addColumn<QString>("args");
        QTest::addColumn<bool>("readIndices");
        QTest::addColumn<QString>("why");
        QTest::newRow("dilation") << "[3, 3], [2, 2], [1, 1], [2, 2]" << false << "dilation";
        QTest::newRow("ceil_mode") << "[3, 3], [2, 2], [1, 1], [1, 1], True" << false
                                   << "ceil_mode";
        QTest::newRow("indices read") << "[3, 3], [2, 2], [1, 1]" << true << "item 1";
        QTest::newRow("padding over half the kernel") << "[2, 2], [2, 2], [2, 2]" << false
                                                      << "eager rejects";
    }

    void refusals()
    {
        QFETCH(QString, args);
        QFETCH(bool, readIndices);
        QFETCH(QString, why);
        const std::string text =
            std::string("class GraphModule(torch.nn.Module):\n"
                        "    def forward(self, x: \"f32[2, 3, 8, 8][192, 64, 8, 1]cpu\"):\n"
                        "        pool = torch.ops.aten.max_pool2d_with_indices.default(x, ") +
            args.toStdString() +
            ")\n        pooled: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\" = pool[0]\n" +
            (readIndices ? "        idx: \"i64[2, 3, 4, 4][48, 16, 4, 1]cpu\" = pool[1]\n"
                           "        return (pooled, idx)\n"
                         : "        return (pooled,)\n");
        const GraphPtr g = parse(text);
        QVERIFY(g);
        const auto r = codegen::nodeRefusal(*g, *g->find("pool"));
        QVERIFY(r.has_value());
        QCOMPARE(int(r->kind), int(codegen::RefusalKind::Shape));
        QVERIFY2(r->message.find(why.toStdString()) != std::string::npos, r->message.c_str());
        // Accepted with the default arguments and only the values read.
        const GraphPtr plain = parse(
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, x: \"f32[2, 3, 8, 8][192, 64, 8, 1]cpu\"):\n"
            "        pool = torch.ops.aten.max_pool2d_with_indices.default(x, [3, 3], [2, 2], "
            "[1, 1])\n        pooled: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\" = pool[0]\n"
            "        return (pooled,)\n");
        QVERIFY(plain);
        const auto ok = codegen::nodeRefusal(*plain, *plain->find("pool"));
        QVERIFY2(!ok, ok ? ok->message.c_str() : "");
    }

    // The CUDA sources (a region input's pool with its -inf fill, and the stem) build with NVRTC.
    void cudaSourcesBuild()
    {
        if (auto n = cuda::Nvrtc::get(); !n) {
            QSKIP(("no NVRTC on this machine: " + n.error().message).c_str());
        }
        for (const PoolCase& c : {PoolCase{{2, 3, 7, 9}, true, "[3, 3], [2, 2], [1, 1]",
                                           {2, 3, 4, 5}, ""},
                                  PoolCase{{16, 64, 112, 112}, true, "[3, 3], [2, 2], [1, 1]",
                                           {16, 64, 56, 56}, "bn_relu"}}) {
            const GraphPtr g = parse(graphText(c));
            QVERIFY(g);
            auto store = freshStore();
            compile::CompileOptions o = test::compileOptions(store.get(), 1);
            o.device = compile::TargetDevice::Cuda;
            o.buildOnly = true;
            o.cudaArch = 90;
            const auto r = compile::RegionCompiler(o).compileAndRun(*g, {"r0", regionOf(*g), ""},
                                                                    {});
            QVERIFY2(compile::regionStateName(r.state) == std::string_view("built"),
                     r.headline.c_str());
            QCOMPARE(r.kernels, 1);
            QCOMPARE(r.externNodes, 0);
            QVERIFY(r.source.find("__global__") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestPoolRegions)
#include "tst_pool_regions.moc"

FXSCOPE_TEST_END
