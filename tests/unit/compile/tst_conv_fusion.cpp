// Convolutions with their epilogue as one step (issue 27; conv_fusion.h). The recorded ResNet-18
// inference graph (tests/data/fixtures/graphs/resnet18_infer.txt), read by hand: 20 convolutions,
// each read only by its batch norm, whose getitem 0 is its only user. The stem (convolution) reads
// the 3-channel image: not a step (channels a multiple of 4). The first convolution of each basic
// block (convolution_1: stride 1, padding 1) ends in a relu; the second of each block is added to
// the block's input (convolution_2: add(getitem_8, getitem_3), getitem_3 the max pool's output) and
// then relu'd; the downsampling convolutions (convolution_7, _12, _17: 1x1, stride 2, padding 0)
// end at their norm, their value the other operand of the block's add (add_2 = add(getitem_20,
// getitem_23)). 16 relus after the stem's, 8 adds.
#include "core/compile/compiled_graph.h"
#include "core/compile/conv_fusion.h"
#include "core/compile/conv_operands.h"
#include "core/io/graph_code_parser.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

const char* kResnet = FXSCOPE_TEST_DATA "/fixtures/graphs/resnet18_infer.txt";

std::string resnetText()
{
    auto text = readFile(kResnet);
    return text.ok() ? *text : std::string();
}

graph::GraphPtr parse(const std::string& text)
{
    return text.empty() ? nullptr : io::parseGraphCode(text, "resnet.txt").graph;
}

std::string nameOf(const graph::Graph& g, graph::NodeId id)
{
    return id == graph::kNoNode ? std::string("-") : g.node(id).name;
}

const compile::ConvEpilogue* withConv(const graph::Graph& g,
                                      const std::vector<compile::ConvEpilogue>& all,
                                      const std::string& conv)
{
    for (const auto& e : all) {
        if (g.node(e.conv).name == conv) {
            return &e;
        }
    }
    return nullptr;
}

// The text with the first occurrence of `from` replaced by `to`.
std::string replaced(std::string s, const std::string& from, const std::string& to)
{
    const auto at = s.find(from);
    if (at != std::string::npos) {
        s.replace(at, from.size(), to);
    }
    return s;
}

at::Tensor values(std::initializer_list<float> v)
{
    return at::tensor(std::vector<float>(v));
}

} // namespace

class TestConvFusion : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void findsResnetsEpilogues()
    {
        auto g = parse(resnetText());
        QVERIFY(g);
        const auto all = compile::findConvEpilogues(*g, {});
        QCOMPARE(all.size(), std::size_t(19));
        QVERIFY(!withConv(*g, all, "convolution")); // the stem: 3 input channels
        const auto count = [&](auto pred) { return std::count_if(all.begin(), all.end(), pred); };
        QCOMPARE(count([](const auto& e) { return e.relu != graph::kNoNode; }), 16);
        QCOMPARE(count([](const auto& e) { return e.add != graph::kNoNode; }), 8);
        QCOMPARE(count([](const auto& e) {
                     return e.add == graph::kNoNode && e.relu == graph::kNoNode;
                 }),
                 3);

        const auto* first = withConv(*g, all, "convolution_1");
        QVERIFY(first);
        QCOMPARE(first->id, std::string("conv0"));
        std::vector<std::string> nodes;
        for (auto id : first->nodes) {
            nodes.push_back(g->node(id).name);
        }
        QCOMPARE(nodes, (std::vector<std::string>{"convolution_1",
                                                  "_native_batch_norm_legit_no_training_1",
                                                  "getitem_5", "relu_1"}));
        QCOMPARE(first->stride, (std::array<std::int64_t, 2>{1, 1}));
        QCOMPARE(first->padding, (std::array<std::int64_t, 2>{1, 1}));
        QCOMPARE(first->eps, 1e-5);
        QCOMPARE(first->momentum, 0.1);

        const auto* second = withConv(*g, all, "convolution_2");
        QVERIFY(second);
        QCOMPARE(nameOf(*g, second->add), std::string("add"));
        QCOMPARE(nameOf(*g, second->residual), std::string("getitem_3"));
        QCOMPARE(nameOf(*g, second->last), std::string("relu_2"));

        // The block with a downsample: the add is the second convolution's, read once.
        const auto* left = withConv(*g, all, "convolution_6");
        const auto* down = withConv(*g, all, "convolution_7");
        QVERIFY(left && down);
        QCOMPARE(nameOf(*g, left->add), std::string("add_2"));
        QCOMPARE(nameOf(*g, left->residual), std::string("getitem_23"));
        QCOMPARE(nameOf(*g, down->last), std::string("getitem_23"));
        QCOMPARE(down->add, graph::kNoNode);
        QCOMPARE(down->stride, (std::array<std::int64_t, 2>{2, 2}));
        QCOMPARE(down->padding, (std::array<std::int64_t, 2>{0, 0}));

        // 19 norms, 19 getitems, 8 adds and 16 relus leave the regions' proposal; the stem's
        // norm and relu stay (they fuse with the max pool in a region).
        const auto names = compile::convEpilogueNodeNames(*g);
        QCOMPARE(names.size(), std::size_t(62));
        QVERIFY(std::find(names.begin(), names.end(), "convolution_1") == names.end());
        QVERIFY(std::find(names.begin(), names.end(), "relu") == names.end());
        QVERIFY(std::find(names.begin(), names.end(), "add_2") != names.end());
    }

    void declinesWhatOneStepCannotMake()
    {
        const std::string text = resnetText();
        QVERIFY(!text.empty());
        const std::string conv = "torch.ops.aten.convolution.default(getitem_3, arg6_1, None, "
                                 "[1, 1], [1, 1], [1, 1], False, [0, 0], 1)";
        QVERIFY(text.find(conv) != std::string::npos);
        const auto found = [](const std::string& t) {
            auto g = parse(t);
            return g && withConv(*g, compile::findConvEpilogues(*g, {}), "convolution_1");
        };
        QVERIFY(found(text));
        // A bias, two groups, a transposed convolution: not one of these steps.
        QVERIFY(!found(replaced(text, conv, replaced(conv, "None", "arg6_1"))));
        QVERIFY(!found(replaced(text, conv, replaced(conv, "[0, 0], 1)", "[0, 0], 2)"))));
        QVERIFY(!found(replaced(text, conv, replaced(conv, "False", "True"))));

        // An excluded relu (a region's) ends the chain at the norm's value.
        auto g = parse(text);
        QVERIFY(g);
        std::vector<bool> excluded(g->size(), false);
        excluded[*g->find("relu_1")] = true;
        const auto* e = withConv(*g, compile::findConvEpilogues(*g, excluded), "convolution_1");
        QVERIFY(e);
        QCOMPARE(nameOf(*g, e->last), std::string("getitem_5"));
        // An excluded norm: no step for that convolution.
        excluded[*g->find("_native_batch_norm_legit_no_training_1")] = true;
        QVERIFY(!withConv(*g, compile::findConvEpilogues(*g, excluded), "convolution_1"));
    }

    void compiledRunEqualsEagerWithTheSteps()
    {
        auto g = parse(resnetText());
        QVERIFY(g);
        auto store = test::openStore(m_dir.path().toStdString() + "/store");
        QVERIFY(store);
        for (auto mode : {compile::ConvFusion::Always, compile::ConvFusion::Auto}) {
            compile::GraphCompileOptions o;
            o.compile.store = store.get();
            o.fuseConvolutions = mode;
            auto r = compile::runCompiledGraph(*g, {}, o);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
            QVERIFY(r->compiled.ok);
            // Auto: only on CUDA. Always: every convolution a step, made by LibTorch's
            // operators here (no cuDNN on the CPU).
            const bool steps = mode == compile::ConvFusion::Always;
            QCOMPARE(r->convEpilogues, steps ? 19 : 0);
            QCOMPARE(r->cudnnConvs, 0L);
            const auto stepsRun = std::count_if(
                r->compiled.perNode.begin(), r->compiled.perNode.end(),
                [](const auto& n) { return n.target == compile::kConvEpilogueTarget; });
            QCOMPARE(stepsRun, steps ? 19 : 0);
            // The same operators on the same inputs: the same logits.
            QCOMPARE(r->outputMaxAbsErr.size(), std::size_t(1));
            QVERIFY(r->outputMaxAbsErr[0]);
            QCOMPARE(*r->outputMaxAbsErr[0], 0.0);
            QCOMPARE(r->compiled.outputs[0].shape, (std::vector<std::int64_t>{2, 1000}));
        }
    }

    void foldedAffineIsTheNormsScaleAndShift()
    {
        // eps 1: var [3, 0] -> 1 / sqrt(var + 1) = [0.5, 1]; weight [2, 4] -> scale [1, 4];
        // shift = bias - mean * scale = [0.5 - 1, 0 - 8].
        auto [scale, shift] = compile::detail::foldedAffine(
            values({2, 4}), values({0.5, 0}), values({1, 2}), values({3, 0}), 1.0);
        QVERIFY(at::equal(scale, values({1, 4})));
        QVERIFY(at::equal(shift, values({-0.5, -8})));
        // No weight, no bias: 1 and 0.
        std::tie(scale, shift) =
            compile::detail::foldedAffine({}, {}, values({1, 2}), values({3, 0}), 1.0);
        QVERIFY(at::equal(scale, values({0.5, 1})));
        QVERIFY(at::equal(shift, values({-0.5, -2})));
    }

    void keptOperandsFollowTheirSources()
    {
        at::Tensor w = at::arange(2 * 3 * 2 * 2, at::kFloat).view({2, 3, 2, 2});
        at::Tensor nw = values({2, 4});
        at::Tensor nb = values({0.5, 0});
        at::Tensor mean = values({1, 2});
        at::Tensor var = values({3, 0});
        compile::detail::KeptConvOperands kept;
        bool made = false;
        auto first = kept.get({w, nw, nb, mean, var}, 1.0, made);
        QVERIFY(made);
        QVERIFY(first.weight.is_contiguous(at::MemoryFormat::ChannelsLast));
        QVERIFY(at::equal(first.weight, w));
        QVERIFY(at::equal(first.scale, values({1, 4})));
        // The same tensors, unchanged: the kept ones.
        auto again = kept.get({w, nw, nb, mean, var}, 1.0, made);
        QVERIFY(!made);
        QCOMPARE(again.scale.data_ptr(), first.scale.data_ptr());
        QCOMPARE(again.weight.data_ptr(), first.weight.data_ptr());
        // Another eps, or a source changed in place: made again.
        kept.get({w, nw, nb, mean, var}, 0.5, made);
        QVERIFY(made);
        kept.get({w, nw, nb, mean, var}, 1.0, made);
        QVERIFY(made);
        nw.mul_(2);
        auto changed = kept.get({w, nw, nb, mean, var}, 1.0, made);
        QVERIFY(made);
        QVERIFY(at::equal(changed.scale, values({2, 8})));

        // Before a replay: a change in place is made again into the same memory.
        auto r = kept.refresh();
        QVERIFY(r.ok());
        QVERIFY(!*r); // nothing changed since
        const void* shiftMemory = changed.shift.data_ptr();
        const void* weightMemory = changed.weight.data_ptr();
        nb.add_(1);
        w.neg_();
        r = kept.refresh();
        QVERIFY(r.ok());
        QVERIFY(*r);
        QCOMPARE(changed.shift.data_ptr(), shiftMemory);
        QVERIFY(at::equal(changed.shift, values({1.5 - 2, 1 - 16})));
        QCOMPARE(changed.weight.data_ptr(), weightMemory);
        QVERIFY(at::equal(changed.weight, w));
        // Resized since: no copy in place can follow.
        mean.resize_({3});
        r = kept.refresh();
        QVERIFY(!r.ok());
        QVERIFY(r.error().message.find("capture the graph again") != std::string::npos);
    }

    void inferenceSourcesAreMadeEveryCall()
    {
        at::Tensor nw;
        at::Tensor w;
        {
            c10::InferenceMode inference;
            nw = values({2, 4});
            w = at::ones({2, 1, 1, 1});
        }
        const at::Tensor mean = values({0, 0});
        const at::Tensor var = values({0, 0});
        compile::detail::KeptConvOperands kept;
        bool made = false;
        kept.get({w, nw, {}, mean, var}, 1.0, made);
        QVERIFY(made);
        kept.get({w, nw, {}, mean, var}, 1.0, made);
        QVERIFY(made); // no version counter: a change in place could not be seen
        auto r = kept.refresh();
        QVERIFY(r.ok() && !*r);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestConvFusion)
#include "tst_conv_fusion.moc"

FXSCOPE_TEST_END
