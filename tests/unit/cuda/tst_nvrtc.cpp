// NVRTC loaded at run time: the CUDA printer's kernels (every case of cuda_cases.h in one
// translation unit) compile to an sm_90 cubin, an architecture NVRTC cannot target falls back to
// PTX, and a compile error carries NVRTC's log. Needs the CUDA Toolkit, not a GPU: where the
// build found the toolkit (FXSCOPE_EXPECT_NVRTC) a missing NVRTC fails the test.
#include "core/codegen/cuda_printer.h"
#include "core/cuda/device.h"
#include "core/cuda/nvrtc.h"
#include "tests/test_file.h"
#include "tests/unit/codegen/cuda_cases.h"

#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;

class TestNvrtc : public QObject {
    Q_OBJECT

    const cuda::Nvrtc* m_nvrtc = nullptr;

private Q_SLOTS:
    void initTestCase()
    {
        auto n = cuda::Nvrtc::get();
        if (!n) {
#if FXSCOPE_EXPECT_NVRTC
            QFAIL(("the build found the CUDA Toolkit but NVRTC does not load: " +
                   n.error().message).c_str());
#else
            QSKIP(("no NVRTC on this machine: " + n.error().message).c_str());
#endif
        }
        m_nvrtc = *n;
    }

    void reportsVersionAndArchitectures()
    {
        QVERIFY(!m_nvrtc->version().empty());
        QVERIFY(m_nvrtc->version() != "0.0");
        const auto& archs = m_nvrtc->architectures();
        QVERIFY(std::is_sorted(archs.begin(), archs.end()));
        QVERIFY(std::find(archs.begin(), archs.end(), 90) != archs.end());
    }

    void compilesEveryKernelShapeForSm90()
    {
        std::vector<codegen::RegionProgram> programs;
        for (const auto& c : testing::cudaCases()) {
            graph::GraphPtr keep;
            auto p = testing::lowerCase(c, keep);
            QVERIFY(p.ok());
            programs.push_back(*p);
        }
        const codegen::CudaSchedule s = codegen::printCudaSchedule(programs);
        auto out = m_nvrtc->compile(s.source, "cases.cu", 90);
        QVERIFY2(out.ok(), out.ok() ? "" : (out.error().message + "\n" + out.error().found).c_str());
        QVERIFY(!out->ptx);
        QCOMPARE(out->target, std::string("sm_90"));
        QVERIFY(out->image.size() > 1000);
        QCOMPARE(out->image.substr(0, 4), std::string("\x7f" "ELF"));
        // Every entry the launches name is in the cubin's symbol table.
        for (const auto& program : s.launches) {
            for (const auto& l : program) {
                QVERIFY2(out->image.find(l.kernel + '\0') != std::string::npos, l.kernel.c_str());
            }
        }
        QVERIFY2(out->log.find("error") == std::string::npos, out->log.c_str());
        qInfo("NVRTC %s: %zu kernels' source (%zu bytes) to a %zu-byte sm_90 cubin in %.0f ms",
              m_nvrtc->version().c_str(), programs.size(), s.source.size(), out->image.size(),
              out->ms);
    }

    void newerArchitecturesGetPtx()
    {
        const int newest = m_nvrtc->architectures().back();
        auto out = m_nvrtc->compile("extern \"C\" __global__ void k(float* p) { p[0] = 1.0f; }",
                                    "k.cu", newest + 1);
        QVERIFY(out.ok());
        QVERIFY(out->ptx);
        QCOMPARE(out->target, "compute_" + std::to_string(newest));
        QVERIFY(out->image.find(".entry k") != std::string::npos);
        QVERIFY(!m_nvrtc->compile("", "k.cu", 10).ok()); // nothing at or below sm_10
    }

    void optionsReachTheCompiler()
    {
        // PTX shows the division: IEEE (div.rn) by default, approximate under fast math.
        const char* src = "extern \"C\" __global__ void k(float* p) { p[0] = p[1] / p[2]; }";
        const int ptx = m_nvrtc->architectures().back() + 1;
        auto precise = m_nvrtc->compile(src, "k.cu", ptx);
        auto fast = m_nvrtc->compile(src, "k.cu", ptx, {"--use_fast_math"});
        QVERIFY(precise.ok() && fast.ok());
        QVERIFY2(precise->image.find("div.rn.f32") != std::string::npos, precise->image.c_str());
        QVERIFY2(fast->image.find("div.rn.f32") == std::string::npos, fast->image.c_str());
        QVERIFY(!m_nvrtc->compile(src, "k.cu", 90, {"--no-such-option"}).ok());
    }

    void compileErrorsCarryTheLog()
    {
        auto out = m_nvrtc->compile("extern \"C\" __global__ void k() { undeclared(); }", "bad.cu",
                                    90);
        QVERIFY(!out.ok());
        QCOMPARE(int(out.error().code), int(ErrorCode::Runtime));
        QCOMPARE(out.error().where, std::string("bad.cu"));
        QVERIFY(out.error().found.find("undeclared") != std::string::npos);
    }

    void parsesArchitectures()
    {
        QCOMPARE(cuda::parseArch("sm_90"), 90);
        QCOMPARE(cuda::parseArch("sm_100"), 100);
        QCOMPARE(cuda::parseArch("sm_9a"), 0);
        QCOMPARE(cuda::parseArch("compute_90"), 0);
        cuda::DeviceInfo d;
        d.major = 8;
        d.minor = 6;
        QCOMPARE(d.arch(), std::string("sm_86"));
    }
};

QTEST_GUILESS_MAIN(TestNvrtc)
#include "tst_nvrtc.moc"

FXSCOPE_TEST_END
