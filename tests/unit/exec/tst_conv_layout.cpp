// The engine's kernel choices for compiled runs (interpreter.h). ConvLayout::ChannelsLast: a 2-D
// convolution runs on channels_last input and weight, so its output (and the relu after it) are
// channels_last; the values equal the recorded layout's run; transposed convolutions and 1-D
// ones keep their layout. chooseAddmm: addmm with a 1-D bias runs as addmm or as mm + bias add,
// timed once per operand shape, with the same values either way.
#include "exec_test_util.h"
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::exec;
using namespace fxs::exec::test;

namespace {

// conv (3x3, bias) -> relu -> transposed conv, and a 1-D convolution beside them.
constexpr const char* kGraph = R"(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 8, 8][192, 64, 8, 1]cpu", w: "f32[4, 3, 3, 3][27, 9, 3, 1]cpu", b: "f32[4][1]cpu", wt: "f32[4, 2, 2, 2][8, 4, 2, 1]cpu", s: "f32[2, 3, 16][48, 16, 1]cpu", w1: "f32[5, 3, 3][9, 3, 1]cpu"):
        convolution: "f32[2, 4, 8, 8][256, 64, 8, 1]cpu" = torch.ops.aten.convolution.default(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
        relu: "f32[2, 4, 8, 8][256, 64, 8, 1]cpu" = torch.ops.aten.relu.default(convolution)
        up: "f32[2, 2, 16, 16][512, 256, 16, 1]cpu" = torch.ops.aten.convolution.default(relu, wt, None, [2, 2], [0, 0], [1, 1], True, [0, 0], 1)
        line: "f32[2, 5, 14][70, 14, 1]cpu" = torch.ops.aten.convolution.default(s, w1, None, [1], [0], [1], False, [0], 1)
        return (relu, up, line)
)";

graph::GraphPtr parsed()
{
    auto r = io::parseGraphCode(kGraph, "conv_layout.py");
    return r.diagnostics.errorCount() == 0 ? r.graph : nullptr;
}

RunReport runWith(const graph::Graph& g, ConvLayout layout)
{
    RunOptions o;
    o.device = DevicePref::Cpu;
    o.seed = 7;
    o.convLayout = layout;
    o.keep = {"convolution", "relu", "up", "line"};
    auto r = Interpreter::run(g, o);
    if (!r.ok()) {
        qWarning("%s", r.error().toString().c_str());
        return {};
    }
    return *r;
}

at::Tensor kept(const RunReport& r, const char* name)
{
    const TensorHandle* h = r.kept.find(name);
    return h ? tensorOf(*h) : at::Tensor();
}

// The graph's inputs given in memory, as a caller's weights are (normal tensors, seeded).
struct GivenInputs {
    at::Tensor x, w, b, wt, s, w1;
    std::shared_ptr<ValueStore> store;
};

GivenInputs givenInputs()
{
    at::manual_seed(11);
    GivenInputs in{at::randn({2, 3, 8, 8}), at::randn({4, 3, 3, 3}), at::randn({4}),
                   at::randn({4, 2, 2, 2}), at::randn({2, 3, 16}), at::randn({5, 3, 3}), {}};
    in.store = storeOf({{"x", in.x}, {"w", in.w}, {"b", in.b}, {"wt", in.wt}, {"s", in.s},
                        {"w1", in.w1}});
    return in;
}

RunReport runOn(const graph::Graph& g, const GivenInputs& in, ConvLayout layout,
                std::shared_ptr<ConvWeightCache> weights = nullptr, int repeat = 1)
{
    RunOptions o;
    o.device = DevicePref::Cpu;
    o.inputs = in.store;
    o.repeat = repeat;
    o.convLayout = layout;
    o.convWeights = std::move(weights);
    o.keep = {"relu", "up"};
    auto r = Interpreter::run(g, o);
    if (!r.ok()) {
        qWarning("%s", r.error().toString().c_str());
        return {};
    }
    return *r;
}

bool noted(const RunReport& r, const std::string& text)
{
    for (const auto& n : r.notes) {
        if (n.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

constexpr const char* kAddmm = R"(class GraphModule(torch.nn.Module):
    def forward(self, b: "f32[16][1]cpu", x: "f32[8, 32][32, 1]cpu", w: "f32[32, 16][16, 1]cpu", c: "f32[16, 8][1, 16]cpu"):
        addmm: "f32[8, 16][16, 1]cpu" = torch.ops.aten.addmm.default(b, x, w)
        addmm_1: "f32[8, 16][16, 1]cpu" = torch.ops.aten.addmm.default(b, x, w, beta = 2)
        addmm_2: "f32[16, 16][16, 1]cpu" = torch.ops.aten.addmm.default(b, c, addmm)
        return (addmm, addmm_1, addmm_2)
)";

} // namespace

class TestConvLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void channelsLastConvolutionKeepsValues()
    {
        auto g = parsed();
        QVERIFY(g);
        const RunReport recorded = runWith(*g, ConvLayout::Recorded);
        const RunReport nhwc = runWith(*g, ConvLayout::ChannelsLast);
        QVERIFY(recorded.ok);
        QVERIFY(nhwc.ok);
        for (const char* name : {"convolution", "relu", "up", "line"}) {
            QVERIFY2(close(kept(recorded, name), kept(nhwc, name), 1e-5), name);
        }
        // Recorded: NCHW as the graph says.
        QVERIFY(kept(recorded, "convolution").is_contiguous());
        QVERIFY(kept(recorded, "relu").is_contiguous());
        // Channels-last: the convolution's output is NHWC, and relu keeps it.
        const at::Tensor c = kept(nhwc, "convolution");
        QVERIFY(!c.is_contiguous());
        QVERIFY(c.is_contiguous(at::MemoryFormat::ChannelsLast));
        QCOMPARE(c.strides().vec(), (std::vector<std::int64_t>{256, 1, 32, 4}));
        QVERIFY(kept(nhwc, "relu").is_contiguous(at::MemoryFormat::ChannelsLast));
    }

    void otherConvolutionsKeepTheirLayout()
    {
        auto g = parsed();
        QVERIFY(g);
        const RunReport nhwc = runWith(*g, ConvLayout::ChannelsLast);
        QVERIFY(nhwc.ok);
        // 1-D: no channels_last form; runs as recorded.
        QVERIFY(kept(nhwc, "line").is_contiguous());
        QCOMPARE(kept(nhwc, "line").sizes().vec(), (std::vector<std::int64_t>{2, 5, 14}));
        // Transposed: its input (relu) is NHWC, its weight is not made so; the values match the
        // recorded run (first test), whatever layout LibTorch picks for it.
        QCOMPARE(kept(nhwc, "up").sizes().vec(), (std::vector<std::int64_t>{2, 2, 16, 16}));
    }

    // ConvWeightCache: the 4-D weight w is converted once; a second run of the same graph on
    // the same tensors reuses the copy (the transposed and 1-D convolutions convert nothing),
    // with the recorded layout's values.
    void secondRunReusesConvertedWeight()
    {
        auto g = parsed();
        QVERIFY(g);
        const GivenInputs in = givenInputs();
        const RunReport recorded = runOn(*g, in, ConvLayout::Recorded);
        auto cache = std::make_shared<ConvWeightCache>();
        const RunReport first = runOn(*g, in, ConvLayout::ChannelsLast, cache);
        const RunReport second = runOn(*g, in, ConvLayout::ChannelsLast, cache);
        QVERIFY(recorded.ok && first.ok && second.ok);
        QCOMPARE(first.convWeightsConverted, 1);
        QCOMPARE(first.convWeightsReused, 0);
        QCOMPARE(second.convWeightsConverted, 0);
        QCOMPARE(second.convWeightsReused, 1);
        QCOMPARE(int(cache->size()), 1);
        QVERIFY(noted(second, "0 converted to channels_last, 1 reused"));
        QVERIFY(kept(second, "relu").is_contiguous(at::MemoryFormat::ChannelsLast));
        for (const char* name : {"relu", "up"}) {
            QVERIFY2(close(kept(recorded, name), kept(first, name), 1e-5), name);
            QVERIFY2(close(kept(recorded, name), kept(second, name), 1e-5), name);
        }
        // Recorded layout: nothing converted, nothing noted.
        QCOMPARE(recorded.convWeightsConverted + recorded.convWeightsReused, 0);
        QVERIFY(!noted(recorded, "convolution weights"));
    }

    // A weight changed in place between runs (an optimizer step) has a new version: the next
    // run converts it again and computes with the new values, not the kept copy's.
    void inPlaceChangeConvertsAgain()
    {
        auto g = parsed();
        QVERIFY(g);
        const GivenInputs in = givenInputs();
        auto cache = std::make_shared<ConvWeightCache>();
        const RunReport before = runOn(*g, in, ConvLayout::ChannelsLast, cache);
        QVERIFY(before.ok);
        in.w.mul_(-1.5);
        const RunReport after = runOn(*g, in, ConvLayout::ChannelsLast, cache);
        const RunReport recorded = runOn(*g, in, ConvLayout::Recorded);
        QVERIFY(after.ok && recorded.ok);
        QCOMPARE(after.convWeightsConverted, 1);
        QCOMPARE(after.convWeightsReused, 0);
        QVERIFY(!close(kept(before, "relu"), kept(recorded, "relu"), 1e-3)); // w mattered
        QVERIFY(close(kept(after, "relu"), kept(recorded, "relu"), 1e-5));
        // copy_ from another tensor likewise.
        in.w.copy_(at::randn({4, 3, 3, 3}));
        const RunReport copied = runOn(*g, in, ConvLayout::ChannelsLast, cache);
        QCOMPARE(copied.convWeightsConverted, 1);
        QVERIFY(close(kept(copied, "relu"), kept(runOn(*g, in, ConvLayout::Recorded), "relu")));
    }

    // Before a CUDA graph replay (which cannot convert anything): a changed weight's copy is
    // converted again in place, after which runs reuse it with the new values.
    void refreshConvertsChangedCopiesInPlace()
    {
        auto g = parsed();
        QVERIFY(g);
        const GivenInputs in = givenInputs();
        auto cache = std::make_shared<ConvWeightCache>();
        QVERIFY(runOn(*g, in, ConvLayout::ChannelsLast, cache).ok);
        auto none = cache->refreshChanged();
        QVERIFY(none && *none == 0);
        in.w.add_(0.75);
        auto one = cache->refreshChanged();
        QVERIFY(one && *one == 1);
        QCOMPARE(cache->total().refreshed, 1);
        const RunReport after = runOn(*g, in, ConvLayout::ChannelsLast, cache);
        QCOMPARE(after.convWeightsConverted, 0);
        QCOMPARE(after.convWeightsReused, 1);
        QVERIFY(close(kept(after, "relu"), kept(runOn(*g, in, ConvLayout::Recorded), "relu")));
        auto again = cache->refreshChanged();
        QVERIFY(again && *again == 0);
    }

    // Bounded: a run keeps only the weights it used (other tensors: the earlier ones dropped).
    void cacheHoldsOneRunsWeights()
    {
        auto g = parsed();
        QVERIFY(g);
        auto cache = std::make_shared<ConvWeightCache>();
        for (int i = 0; i < 3; ++i) {
            const GivenInputs in = givenInputs(); // new tensors each time
            QCOMPARE(runOn(*g, in, ConvLayout::ChannelsLast, cache).convWeightsConverted, 1);
            QCOMPARE(int(cache->size()), 1);
        }
        QCOMPARE(cache->total().converted, 3);
        QCOMPARE(cache->total().reused, 0);
    }

    // Without a cache given, a call keeps its own for its repeats; synthesised inputs are normal
    // tensors with version counters (inference tensors have none and would convert each run).
    void repeatsReuseOwnCache()
    {
        auto g = parsed();
        QVERIFY(g);
        RunOptions o;
        o.device = DevicePref::Cpu;
        o.seed = 7;
        o.repeat = 3; // and a warm-up
        o.convLayout = ConvLayout::ChannelsLast;
        auto r = Interpreter::run(*g, o);
        QVERIFY(r && r->ok);
        QCOMPARE(r->convWeightsConverted, 1);
        QCOMPARE(r->convWeightsReused, 3);
    }

    // Each addmm gives addmm's values whichever way it ran (beta = 2 always as addmm); the run
    // notes how many operand shapes were timed.
    void addmmChoiceKeepsValues()
    {
        auto r = io::parseGraphCode(kAddmm, "addmm_choice.py");
        QVERIFY(r.diagnostics.errorCount() == 0 && r.graph);
        RunOptions o;
        o.device = DevicePref::Cpu;
        o.seed = 3;
        o.keep = {"b", "x", "w", "c", "addmm", "addmm_1", "addmm_2"};
        auto plain = Interpreter::run(*r.graph, o);
        o.chooseAddmm = true;
        auto chosen = Interpreter::run(*r.graph, o);
        QVERIFY(plain.ok() && plain->ok && chosen.ok() && chosen->ok);
        for (const char* name : {"addmm", "addmm_1", "addmm_2"}) {
            QVERIFY2(close(kept(*plain, name), kept(*chosen, name), 1e-5), name);
        }
        const at::Tensor b = kept(*chosen, "b");
        const at::Tensor x = kept(*chosen, "x");
        const at::Tensor w = kept(*chosen, "w");
        QVERIFY(close(kept(*chosen, "addmm_1"), at::addmm(b, x, w, 2), 1e-5));
        bool noted = false;
        for (const auto& n : chosen->notes) {
            noted = noted || n.rfind("addmm: ", 0) == 0;
        }
        QVERIFY(noted);
        for (const auto& n : plain->notes) {
            QVERIFY(n.rfind("addmm: ", 0) != 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestConvLayout)
#include "tst_conv_layout.moc"

FXSCOPE_TEST_END
