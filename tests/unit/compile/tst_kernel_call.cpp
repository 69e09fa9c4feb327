// Verification of compiled outputs against eager (compareOutputs): dtype tolerances, atol scaled
// by the output's magnitude, NaN/Inf positions, exact integer types; with a float64 reference,
// tolerances from eager's own rounding, not from the magnitude. Values are set by hand.
#include "core/compile/kernel_call.h"
#include "tests/test_file.h"

#include <QtTest>

#include <cmath>
#include <limits>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

at::Tensor f32(std::vector<float> v)
{
    return at::tensor(at::ArrayRef<float>(v), at::TensorOptions().dtype(at::kFloat));
}

at::Tensor f64(std::vector<double> v)
{
    return at::tensor(at::ArrayRef<double>(v), at::TensorOptions().dtype(at::kDouble));
}

} // namespace

class TestKernelCall : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void closeValuesPass()
    {
        const auto c = compile::detail::compareOutputs({f32({1.0f, 2.0f})},
                                                       {f32({1.00005f, 2.0f})}, {});
        QVERIFY2(c.ok, c.problem.c_str());
        QVERIFY(c.maxAbsErr > 4e-5 && c.maxAbsErr < 6e-5);
    }

    void cancellationNearZeroIsJudgedAtTheOutputsScale()
    {
        // |2e-4| error on a value near 0 in an output whose largest value is 1000: beyond
        // rtol 1e-4 * 0.001 + atol 1e-5, within atol 1e-5 * 1000.
        const auto c = compile::detail::compareOutputs({f32({1000.0f, 0.0012f})},
                                                       {f32({1000.0f, 0.001f})}, {});
        QVERIFY2(c.ok, c.problem.c_str());
        // The same error where the output's scale is 1 is a mismatch.
        const auto d = compile::detail::compareOutputs({f32({1.0f, 0.0012f})},
                                                       {f32({1.0f, 0.001f})}, {});
        QVERIFY(!d.ok);
        QVERIFY(d.problem.find("output 0") != std::string::npos);
    }

    void wrongValuesAtScaleStillFail()
    {
        // An error of 1 at scale 1000: atol 1e-2 + rtol 1e-4 * 500 = 0.06 < 1.
        const auto c = compile::detail::compareOutputs({f32({1000.0f, 501.0f})},
                                                       {f32({1000.0f, 500.0f})}, {});
        QVERIFY(!c.ok);
    }

    void nanAndInfPositionsMustMatch()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        QVERIFY(compile::detail::compareOutputs({f32({nan, inf})}, {f32({nan, inf})}, {}).ok);
        const auto a = compile::detail::compareOutputs({f32({0.0f, inf})}, {f32({nan, inf})}, {});
        QVERIFY(!a.ok);
        QVERIFY(a.problem.find("NaN") != std::string::npos);
        const auto b = compile::detail::compareOutputs({f32({1.0f, -inf})}, {f32({1.0f, inf})}, {});
        QVERIFY(!b.ok);
        QVERIFY(b.problem.find("infinities") != std::string::npos);
    }

    void aFloat64ReferenceDoesNotScaleByMagnitude()
    {
        // 1e6 and 2e6 are exact in float32: eager errs by 0, so an error of 5 is a mismatch,
        // which the magnitude-scaled rule (atol 1e-5 * 2e6 = 20) lets through.
        const at::Tensor eager = f32({1e6f, 2e6f});
        const at::Tensor got = f32({1e6f + 5.0f, 2e6f});
        QVERIFY(compile::detail::compareOutputs({got}, {eager}, {}).ok);
        const auto c = compile::detail::compareOutputs({got}, {eager}, {}, {f64({1e6, 2e6})});
        QVERIFY(!c.ok);
        QVERIFY2(c.problem.find("float64") != std::string::npos, c.problem.c_str());
        QVERIFY(c.maxAbsErr == 5.0); // still reported against eager
    }

    void aFloat64ReferenceAllowsEagersOwnRounding()
    {
        // 1e6 + 0.03 rounds to 1e6 in float32 (spacing 0.0625): eager errs by 0.03, so the
        // kernel may err by up to 8 x 0.03 + 1e-5 against the float64 result.
        const at::Tensor eager = f32({1e6f});
        const auto ok = compile::detail::compareOutputs({f32({1e6f + 0.125f})}, {eager}, {},
                                                        {f64({1e6 + 0.03})});
        QVERIFY2(ok.ok, ok.problem.c_str());
        const auto bad = compile::detail::compareOutputs({f32({1e6f + 0.5f})}, {eager}, {},
                                                         {f64({1e6 + 0.03})});
        QVERIFY(!bad.ok);
        // A reference that is not wider than eager (the graph casts) keeps the dtype rule.
        QVERIFY(compile::detail::compareOutputs({f32({1e6f + 0.5f})}, {eager}, {},
                                                {f32({1e6f})})
                    .ok);
    }

    // Eager may round its largest values exactly by chance; its error then counts as its
    // type's half unit at that magnitude. By hand: the largest output 387.5 (float32 spacing
    // 2^-15 there, half 1.53e-5); eager errs by 2e-6 elsewhere; a kernel two units off at the
    // top (6.1e-5, a vector exp's error) is within 8 x 1.53e-5 + 1e-5 = 1.32e-4 (it failed
    // before, against 8 x 2e-6 + 1e-5 = 2.6e-5); eight units off (2.4e-4) still fails.
    void eagersErrorIsAtLeastItsOwnRounding()
    {
        const double top = 387.5;
        const double unit = std::ldexp(1.0, -15);
        const at::Tensor eager = f32({float(top), 1.0f});
        const at::Tensor reference = f64({top, 1.0 + 2e-6});
        const at::Tensor twoUnits = f32({float(top + 2 * unit), 1.0f});
        const auto ok = compile::detail::compareOutputs({twoUnits}, {eager}, {}, {reference});
        QVERIFY2(ok.ok, ok.problem.c_str());
        const at::Tensor eightUnits = f32({float(top + 8 * unit), 1.0f});
        const auto bad = compile::detail::compareOutputs({eightUnits}, {eager}, {}, {reference});
        QVERIFY(!bad.ok);
        // bfloat16 (7 mantissa bits) has spacing 2 at 384: a kernel one unit off passes.
        const auto bf16 = at::TensorOptions().dtype(at::kBFloat16);
        const at::Tensor eagerHalf = f32({384.0f}).to(bf16);
        const auto half = compile::detail::compareOutputs({f32({386.0f}).to(bf16)}, {eagerHalf},
                                                          {}, {f64({384.0})});
        QVERIFY2(half.ok, half.problem.c_str());
    }

    void integersAreExact()
    {
        const auto i64 = at::TensorOptions().dtype(at::kLong);
        const at::Tensor a = at::tensor(at::ArrayRef<int64_t>({1000000, 1}), i64);
        const at::Tensor b = at::tensor(at::ArrayRef<int64_t>({1000000, 2}), i64);
        QVERIFY(!compile::detail::compareOutputs({a}, {b}, {}).ok);
        QVERIFY(compile::detail::compareOutputs({a}, {a.clone()}, {}).ok);
    }
};

QTEST_GUILESS_MAIN(TestKernelCall)
#include "tst_kernel_call.moc"

FXSCOPE_TEST_END
