// Cache key: known-answer digests, label-order independence, canonical region text.
#include "core/cache/cache_key.h"
#include "core/cache/region_canon.h"
#include "core/graph/graph_builder.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::cache;
using namespace fxs::graph;

namespace {

// Expected digests were computed once by hand with coreutils, e.g.
//   printf 'hello' | sha256sum
//   printf 'inputs 1\nv0 = call_function aten::sin.default(in0)\nreturn (v0)\n' | sha256sum
//   printf "fxscope-key-1\ninput[0]=<hello digest>\nregion=<region digest>\n" | sha256sum
const char* kHello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
const char* kSinRegion = "96f4cd9cbd93123e7931ef870b655522d56251570b1f084131c85b2f03785383";
const char* kKey = "df5e6cd15904c87199d4354444a86ee3b659fbc39b3753c4ddad1241e7cdbf72";
const char* kSinText = "inputs 1\nv0 = call_function aten::sin.default(in0)\nreturn (v0)\n";
// printf "fxscope-key-1\n" | sha256sum
const char* kEmptyKey = "70005544938628240e94ae60f1ec10125bd4825e0ed8107c797538e40c9eb31b";

TensorMeta f32(std::int64_t a, std::int64_t b)
{
    return TensorMeta{DType::Float32, {SymInt::of(a), SymInt::of(b)}, std::nullopt, std::nullopt};
}

} // namespace

class TestCacheKey : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void knownAnswers()
    {
        KeyBuilder k;
        QCOMPARE(k.key(), std::string(kEmptyKey));
        k.add("region", kSinText).add("input[0]", "hello");
        QCOMPARE(k.components().size(), std::size_t(2));
        QCOMPARE(k.components()[0].label, std::string("input[0]"));
        QCOMPARE(k.components()[0].digest, std::string(kHello));
        QCOMPARE(k.components()[1].digest, std::string(kSinRegion));
        QCOMPARE(k.key(), std::string(kKey));
        QCOMPARE(regionDigest(k.components()), std::string(kSinRegion));
    }

    void orderIndependentAndReplacing()
    {
        KeyBuilder a;
        a.add("input[0]", "hello").add("region", kSinText);
        KeyBuilder b;
        b.add("region", "something else").add("input[0]", "hello").add("region", kSinText);
        QCOMPARE(a.key(), b.key());
        QCOMPARE(b.components().size(), std::size_t(2));
        KeyBuilder c;
        c.add("input[0]", "hello!").add("region", kSinText);
        QVERIFY(c.key() != a.key());
    }

    void transcriptIsReadable()
    {
        KeyBuilder k;
        k.add("compiler", "/usr/bin/g++ 12.2.0 -O3");
        QCOMPARE(k.transcript(),
                 "[" + k.components()[0].digest.substr(0, 12) +
                     "] compiler: /usr/bin/g++ 12.2.0 -O3\n");
    }

    void canonicalRegionText()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", f32(4, 8));
        const NodeId s = b.call("sin", "aten::sin.default", {Argument::ref(x)});
        b.output({Argument::ref(s)});
        auto g = b.build();
        QVERIFY(g.ok());
        const RegionSignature sig = canonicalizeRegion(**g, {s});
        QCOMPARE(sig.text, std::string(kSinText));
        QCOMPARE(sig.inputs, std::vector<NodeId>{x});
        QCOMPARE(sig.outputs, std::vector<NodeId>{s});
    }

    void isomorphicRegionsShareText()
    {
        // Same computation, different names and a different printed order of independent nodes.
        GraphBuilder b1;
        const NodeId x1 = b1.placeholder("x");
        const NodeId y1 = b1.placeholder("y");
        const NodeId e1 = b1.call("exp", "aten::exp.default", {Argument::ref(x1)});
        const NodeId c1 = b1.call("cos", "aten::cos.default", {Argument::ref(y1)});
        const NodeId m1 = b1.call("mul", "aten::mul.Tensor", {Argument::ref(e1), Argument::ref(c1)});
        b1.output({Argument::ref(m1)});
        GraphBuilder b2;
        const NodeId y2 = b2.placeholder("arg1");
        const NodeId x2 = b2.placeholder("arg0");
        const NodeId c2 = b2.call("cos_7", "aten::cos.default", {Argument::ref(y2)});
        const NodeId e2 = b2.call("exp_3", "aten::exp.default", {Argument::ref(x2)});
        const NodeId m2 = b2.call("mul_9", "aten::mul.Tensor", {Argument::ref(e2), Argument::ref(c2)});
        b2.output({Argument::ref(m2)});
        auto g1 = b1.build();
        auto g2 = b2.build();
        QVERIFY(g1.ok() && g2.ok());
        const auto s1 = canonicalizeRegion(**g1, {e1, c1, m1});
        const auto s2 = canonicalizeRegion(**g2, {m2, c2, e2});
        QCOMPARE(s1.text, s2.text);
        QCOMPARE(s1.text, std::string("inputs 2\n"
                                      "v0 = call_function aten::exp.default(in0)\n"
                                      "v1 = call_function aten::cos.default(in1)\n"
                                      "v2 = call_function aten::mul.Tensor(v0, v1)\n"
                                      "return (v2)\n"));
        // in0 is the exp input in both graphs, although it is printed second in g2.
        QCOMPARE(s2.inputs, (std::vector<NodeId>{x2, y2}));
    }

    void internalValuesUsedOutsideAreOutputs()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x");
        const NodeId n = b.call("neg", "aten::neg.default", {Argument::ref(x)});
        const NodeId r = b.call("relu", "aten::relu.default", {Argument::ref(n)});
        const NodeId mm = b.call("mm", "aten::mm.default", {Argument::ref(n), Argument::ref(r)});
        b.output({Argument::ref(mm)});
        auto g = b.build();
        QVERIFY(g.ok());
        const auto sig = canonicalizeRegion(**g, {n, r});
        QCOMPARE(sig.outputs, (std::vector<NodeId>{n, r}));
        QVERIFY(sig.text.find("return (v0, v1)") != std::string::npos);
    }

    void tensorMetaText()
    {
        QCOMPARE(canonicalTensorMeta("float32", {4, 8}, {8, 1}, "cpu"),
                 std::string("dtype=float32;sizes=[4,8];strides=[8,1];device=cpu"));
        // Missing strides are contiguous strides.
        QCOMPARE(canonicalTensorMeta(f32(4, 8)),
                 std::string("dtype=float32;sizes=[4,8];strides=[8,1];device=cpu"));
    }
};

QTEST_GUILESS_MAIN(TestCacheKey)
#include "tst_cache_key.moc"

FXSCOPE_TEST_END
