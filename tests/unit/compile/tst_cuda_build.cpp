// CUDA regions without a GPU: build-only compiles generate CUDA, build a cubin with NVRTC and
// store it unverified under a key with device/cuda_arch/nvrtc_version/launch components; a
// build for another architecture misses with the architecture named; the same build hits.
// Needs NVRTC (the CUDA Toolkit), not a GPU; skipped with the reason where NVRTC is missing and
// the build did not find the toolkit.
#include "core/cuda/nvrtc.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"
#include "tests/unit/compile/cuda_test_support.h"

#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;

class TestCudaBuild : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<cache::CacheStore> m_store;

    compile::RegionOutcome build(const test::CudaRegion& c, int arch)
    {
        compile::CompileOptions o = test::compileOptions(m_store.get(), 1);
        o.device = compile::TargetDevice::Cuda;
        o.buildOnly = true;
        o.cudaArch = arch;
        return compile::RegionCompiler(o).compileAndRun(*c.graph, {"r0", c.nodes, ""}, {});
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (auto n = cuda::Nvrtc::get(); !n) {
#if FXSCOPE_EXPECT_NVRTC
            QFAIL(("the build found the CUDA Toolkit but NVRTC does not load: " +
                   n.error().message).c_str());
#else
            QSKIP(("no NVRTC on this machine: " + n.error().message).c_str());
#endif
        }
        QVERIFY(m_dir.isValid());
        m_store = test::openStore(m_dir.path().toStdString());
        QVERIFY(m_store);
    }

    void buildsAndStoresUnverified()
    {
        const test::CudaRegion c = test::cudaChain();
        QVERIFY(c.graph);
        const compile::RegionOutcome r = build(c, 90);
        QCOMPARE(compile::regionStateName(r.state), std::string_view("built"));
        QCOMPARE(r.target, std::string("sm_90"));
        QVERIFY(r.device.empty()); // nothing ran
        QVERIFY2(r.source.find("extern \"C\" __global__") != std::string::npos, r.headline.c_str());
        QVERIFY(r.transcript.find("] cuda_arch: sm_90") != std::string::npos);
        QVERIFY(r.transcript.find("] device: cuda") != std::string::npos);
        QVERIFY(r.transcript.find("] nvrtc_version: " + (*cuda::Nvrtc::get())->version()) !=
                std::string::npos);
        // 4099 floats: 1024 chunks of 4 (+3 elements); 4 blocks of 256 threads spread to 16
        // blocks of 64 (a small index space).
        QVERIFY(r.transcript.find("fx0_pw_sin_mul_add_relu_4099 grid=16 block=64 vector=4") !=
                std::string::npos);
        QVERIFY(r.transcript.find("device=cuda:0") != std::string::npos); // the inputs' meta
        QVERIFY(r.transcript.find("compiler:") == std::string::npos);    // no host compiler
        auto entry = m_store->info(r.key);
        QVERIFY(entry && entry->has_value());
        QCOMPARE(int((*entry)->status), int(cache::EntryStatus::Unverified));
        QVERIFY((*entry)->soBytes > 1000); // the cubin
        // The artifact holds the cubin and its CUDA source; the store writes the cubin's file.
        auto looked = m_store->lookup(r.key, false);
        QVERIFY(looked && looked->entry);
        const cache::Artifact& a = looked->entry->artifact;
        QVERIFY(a.bytesOf(cache::ArtifactKind::Cubin));
        QVERIFY(a.bytesOf(cache::ArtifactKind::CudaSource));
        QCOMPARE(*a.bytesOf(cache::ArtifactKind::CudaSource), r.source);
        auto path = m_store->materialize(*looked->entry, cache::ArtifactKind::Cubin);
        QVERIFY(path);
        QVERIFY(path->find("/artifacts/" + r.key + ".cubin") != std::string::npos);
    }

    void anotherArchitectureMissesWithTheReason()
    {
        const test::CudaRegion c = test::cudaChain();
        const compile::RegionOutcome r = build(c, 80);
        QCOMPARE(compile::regionStateName(r.state), std::string_view("built"));
        QVERIFY2(r.headline.find("cuda_arch sm_90 → sm_80") != std::string::npos,
                 r.headline.c_str());
        QCOMPARE(cache::reasonName(r.reason), std::string_view("miss_cuda_arch"));
        const compile::RegionOutcome again = build(c, 80);
        QCOMPARE(compile::regionStateName(again.state), std::string_view("hit"));
        QCOMPARE(again.key, r.key);
    }

    void bfloat16IsAnotherEntry()
    {
        const compile::RegionOutcome r = build(test::cudaChain("bf16"), 90);
        QCOMPARE(compile::regionStateName(r.state), std::string_view("built"));
        QVERIFY2(r.headline.find("float32 → bfloat16") != std::string::npos, r.headline.c_str());
        QVERIFY(r.source.find("fxs_bf16_load(") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCudaBuild)
#include "tst_cuda_build.moc"

FXSCOPE_TEST_END
