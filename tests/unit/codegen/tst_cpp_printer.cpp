// C++ printer: golden text for a small fused region (checked by hand once), vector-math
// declarations, dtype conversions and the entry's specialisation check.
#include "core/codegen/cpp_printer.h"
#include "core/codegen/lowering.h"
#include "core/graph/graph_builder.h"
#include "tests/test_file.h"

#include <QFile>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::codegen;
using namespace fxs::graph;

namespace {

TensorMeta meta(std::vector<std::int64_t> sizes, DType t = DType::Float32)
{
    TensorMeta m;
    m.dtype = t;
    for (auto s : sizes) {
        m.sizes.push_back(SymInt::of(s));
    }
    return m;
}

Argument ref(NodeId id) { return Argument::ref(id); }

std::string golden(const char* name)
{
    QFile f(QStringLiteral(GOLDEN_DIR "/") + name);
    if (!f.open(QIODevice::ReadOnly)) {
        return "<missing golden " + std::string(name) + ">";
    }
    return f.readAll().toStdString();
}

// softmax(x, -1) * w over rows of 8, w broadcast: two reduction phases and the epilogue.
RegionProgram softmaxMul()
{
    GraphBuilder b;
    const NodeId x = b.placeholder("x", meta({3, 8}));
    const NodeId w = b.placeholder("w", meta({8}));
    const NodeId sm = b.call("_softmax", "aten::_softmax.default",
                             {ref(x), Argument::integer(-1), Argument::boolean(false)}, {},
                             meta({3, 8}));
    const NodeId mul = b.call("mul", "aten::mul.Tensor", {ref(sm), ref(w)}, {}, meta({3, 8}));
    b.output({ref(mul)});
    auto g = b.build();
    LoweringRequest req{g->get(), "r0", {sm, mul}, {x, w}, {mul}, {}};
    auto p = lowerRegion(req);
    return p.ok() ? *p : RegionProgram{};
}

} // namespace

class TestCppPrinter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void goldenSoftmaxMul()
    {
        const RegionProgram p = softmaxMul();
        QCOMPARE(p.kernels.size(), std::size_t(1));
        const std::string text = printRegion(p);
        QCOMPARE(text, golden("softmax_mul.cpp"));
    }

    void declaresOnlyUsedVectorMath()
    {
        const std::string text = printRegion(softmaxMul());
        QVERIFY(text.find("__attribute__((simd(\"notinbranch\"))) float expf(float);") !=
                std::string::npos);
        QVERIFY(text.find("logf") == std::string::npos);
        QVERIFY(text.find("#include <torch") == std::string::npos);
        // Lowered without a schedule: no canonical positions, so the count; never the names.
        QVERIFY(text.find("// kernel0: covers 2 FX node(s)\n") != std::string::npos);
        QVERIFY(text.find("_softmax") == std::string::npos);
    }

    void convertsHalfAndBfloat16()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({64}, DType::BFloat16));
        const NodeId e = b.call("erf", "aten::erf.default", {ref(x)}, {}, meta({64}, DType::BFloat16));
        const NodeId h = b.call("_to_copy", "aten::_to_copy.default", {ref(e)},
                                {{"dtype", Argument::ofDtype(DType::Float16)}},
                                meta({64}, DType::Float16));
        b.output({ref(e), ref(h)});
        auto g = b.build();
        LoweringRequest req{g->get(), "r1", {e, h}, {x}, {e, h}, {}};
        auto p = lowerRegion(req);
        QVERIFY(p.ok());
        const std::string text = printRegion(*p);
        QVERIFY(text.find("fxs_bf16_load(in0[b0 + c])") != std::string::npos);
        QVERIFY(text.find("fxs_bf16_store(t1)") != std::string::npos);
        // The copy to f16 sees the value eager stored: rounded to bf16 first.
        QVERIFY(text.find("const float t2 = fxs_bf16_load(fxs_bf16_store(t1));") != std::string::npos);
        QVERIFY(text.find("out1[s1 + c] = fxs_f16_store(t2);") != std::string::npos);
        QVERIFY(text.find("float erff(float);") != std::string::npos);
    }

    void printsDoubleMath()
    {
        // sigmoid(x) and amax over the row in f64: double types, double libmvec clones, double
        // literals and builtins (no "f" suffixes).
        GraphBuilder b;
        const NodeId x = b.placeholder("x", meta({3, 8}, DType::Float64));
        const NodeId s = b.call("sigmoid", "aten::sigmoid.default", {ref(x)}, {},
                                meta({3, 8}, DType::Float64));
        const NodeId a = b.call("add", "aten::add.Tensor", {ref(s), Argument::real(0.25)}, {},
                                meta({3, 8}, DType::Float64));
        const NodeId m = b.call("amax", "aten::amax.default",
                                {ref(a), Argument::list({Argument::integer(-1)}),
                                 Argument::boolean(true)},
                                {}, meta({3, 1}, DType::Float64));
        b.output({ref(m)});
        auto g = b.build();
        auto p = lowerRegion({g->get(), "r2", {s, a, m}, {x}, {m}, {}});
        QVERIFY(p.ok());
        const std::string text = printRegion(*p);
        for (const char* want :
             {"__attribute__((simd(\"notinbranch\"))) double exp(double);",
              "static void kernel0(const double* __restrict in0, double* __restrict out0)",
              "const double t0 = in0[b0 + c];", "(1.0 / (1.0 + exp(-t0)))", "(0.25)",
              "double red0 = -__builtin_inf();", "red0 = __builtin_nan(\"\");"}) {
            QVERIFY2(text.find(want) != std::string::npos, want);
        }
        QVERIFY(text.find("expf(") == std::string::npos);
        QVERIFY(text.find("float t") == std::string::npos);
    }

    void entryChecksDims()
    {
        const RegionProgram p = softmaxMul();
        QCOMPARE(entryDims(p.inputs), (std::vector<std::int64_t>{2, 3, 8, 8, 1, 1, 8, 1}));
        QVERIFY(printRegion(p).find("static const int64_t kDims[] = {0, 2, 3, 8, 8, 1, 1, 8, 1};") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCppPrinter)
#include "tst_cpp_printer.moc"

FXSCOPE_TEST_END
