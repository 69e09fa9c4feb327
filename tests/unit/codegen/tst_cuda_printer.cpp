// CUDA printer: golden text for a small fused region (checked by hand once), launch choices, and
// every kernel shape of tests/unit/codegen/cuda_cases.h run on the CPU (cuda_emulation.h: one
// std::thread per CUDA thread) with 16-byte aligned buffers (the vector path) and with buffers
// one element off (the element-by-element path), compared with the C++ printer's kernels on the
// same inputs. The generated CUDA compiles with NVRTC in
// tests/unit/cuda; it runs on a GPU in tests/unit/compile (label gpu).
#include "core/codegen/cpp_printer.h"
#include "core/codegen/cuda_printer.h"
#include "tests/test_file.h"
#include "tests/unit/codegen/cuda_cases.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <random>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::codegen;

namespace {

std::string golden(const char* name)
{
    QFile f(QStringLiteral(GOLDEN_DIR "/") + name);
    if (!f.open(QIODevice::ReadOnly)) {
        return "<missing golden " + std::string(name) + ">";
    }
    return f.readAll().toStdString();
}

const testing::CudaCase& findCase(const char* name)
{
    for (const auto& c : testing::cudaCases()) {
        if (std::strcmp(c.name, name) == 0) {
            return c;
        }
    }
    return testing::cudaCases().front();
}

RegionProgram lowered(const char* name)
{
    graph::GraphPtr keep;
    auto p = testing::lowerCase(findCase(name), keep);
    return p ? *p : RegionProgram{};
}

// Compiles C++ text into a shared object; "" on success, else the compiler's output.
std::string buildSharedObject(const std::string& source, const QString& stem, bool emulate)
{
    QFile f(stem + ".cpp");
    if (!f.open(QIODevice::WriteOnly)) {
        return "cannot write " + stem.toStdString();
    }
    f.write(source.data(), qint64(source.size()));
    f.close();
    QStringList args{"-std=c++20", "-O1", "-fPIC", "-shared", "-w", "-pthread"};
    if (emulate) {
        args << "-include" << QStringLiteral(EMULATION_HEADER);
    }
    args << stem + ".cpp" << "-o" << stem + ".so" << "-lm";
    QProcess cc;
    cc.setProcessChannelMode(QProcess::MergedChannels);
    cc.start(qEnvironmentVariable("FXSCOPE_CXX", "c++"), args);
    if (!cc.waitForFinished(300000) || cc.exitCode() != 0) {
        return "compiler failed: " + cc.readAll().toStdString();
    }
    return {};
}

// One buffer's bytes and its elements decoded to double for comparison.
struct Buffer {
    ScalarType type = ScalarType::Float32;
    std::vector<unsigned char> bytes;
    std::int64_t elements = 0;

    double at(std::int64_t i) const
    {
        const unsigned char* p = bytes.data() + i * scalarTypeSize(type);
        switch (type) {
        case ScalarType::Bool: return *p ? 1.0 : 0.0;
        case ScalarType::Int64: {
            std::int64_t v;
            std::memcpy(&v, p, 8);
            return double(v);
        }
        case ScalarType::Float32: {
            float v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case ScalarType::Float64: {
            double v;
            std::memcpy(&v, p, 8);
            return v;
        }
        case ScalarType::Float16: {
            _Float16 v;
            std::memcpy(&v, p, 2);
            return double(v);
        }
        case ScalarType::BFloat16: {
            std::uint16_t h;
            std::memcpy(&h, p, 2);
            const std::uint32_t u = std::uint32_t(h) << 16;
            float v;
            std::memcpy(&v, &u, 4);
            return v;
        }
        }
        return 0;
    }
};

Buffer makeBuffer(ScalarType t, std::int64_t elements)
{
    Buffer b{t, std::vector<unsigned char>(std::size_t(elements * scalarTypeSize(t)), 0xcd),
             elements};
    return b;
}

Buffer randomInput(const BufferSpec& spec, std::mt19937& rng)
{
    std::int64_t span = 1;
    for (std::size_t d = 0; d < spec.sizes.size(); ++d) {
        span += (spec.sizes[d] - 1) * spec.strides[d];
    }
    Buffer b = makeBuffer(spec.type, span);
    std::uniform_real_distribution<float> real(-3.0f, 3.0f);
    for (std::int64_t i = 0; i < span; ++i) {
        unsigned char* p = b.bytes.data() + i * scalarTypeSize(spec.type);
        const float f = real(rng);
        switch (spec.type) {
        case ScalarType::Bool: *p = f > 0; break;
        case ScalarType::Int64: {
            const std::int64_t v = std::int64_t(f * 20);
            std::memcpy(p, &v, 8);
            break;
        }
        case ScalarType::Float32: std::memcpy(p, &f, 4); break;
        case ScalarType::Float64: {
            const double d = f;
            std::memcpy(p, &d, 8);
            break;
        }
        case ScalarType::Float16: {
            const _Float16 h = _Float16(f);
            std::memcpy(p, &h, 2);
            break;
        }
        case ScalarType::BFloat16: {
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            const std::uint16_t h = std::uint16_t(u >> 16);
            std::memcpy(p, &h, 2);
            break;
        }
        }
    }
    return b;
}

std::int64_t elementsOf(const BufferSpec& s)
{
    std::int64_t n = 1;
    for (auto d : s.sizes) {
        n *= d;
    }
    return n;
}

// First difference between two outputs beyond the type's tolerance, "" when none.
std::string compare(const Buffer& got, const Buffer& want, double scale)
{
    const bool half = want.type == ScalarType::Float16 || want.type == ScalarType::BFloat16;
    const double rtol = scale * (half                                ? 1e-2
                                 : want.type == ScalarType::Float32 ? 1e-5
                                 : want.type == ScalarType::Float64 ? 1e-12
                                                                    : 0);
    for (std::int64_t i = 0; i < want.elements; ++i) {
        const double a = got.at(i);
        const double b = want.at(i);
        if (std::isnan(b) ? !std::isnan(a) : std::fabs(a - b) > rtol * (1 + std::fabs(b))) {
            return "element " + std::to_string(i) + ": " + std::to_string(a) + " vs " +
                   std::to_string(b);
        }
    }
    return {};
}

using Entry = int (*)(void* const*, void* const*, const std::int64_t*, std::int64_t);
using Emulate = int (*)(void*, unsigned, unsigned, void* const*, int);

} // namespace

class TestCudaPrinter : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::vector<RegionProgram> m_programs;
    CudaSchedule m_cuda[2]; // default tuning; small blocks, unrolled, short row slices
    void* m_ref = nullptr;
    void* m_emu[2] = {nullptr, nullptr};

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        for (const auto& c : testing::cudaCases()) {
            graph::GraphPtr keep;
            auto p = testing::lowerCase(c, keep);
            QVERIFY2(p.ok(), p.ok() ? "" : (std::string(c.name) + ": " + p.error().toString()).c_str());
            // One kernel; two for the layer norm backward (row kernel, column kernel).
            QCOMPARE(p->kernels.size(), std::size_t(std::strcmp(c.name, "lnbackward") ? 1 : 2));
            m_programs.push_back(*p);
        }
        CudaTuning small;
        small.block = 64;
        small.unroll = 3;
        small.rowElements = 3;
        m_cuda[0] = printCudaSchedule(m_programs);
        m_cuda[1] = printCudaSchedule(m_programs, small);
        const std::string ref = buildSharedObject(printSchedule(m_programs), m_dir.filePath("ref"),
                                                  false);
        QVERIFY2(ref.empty(), ref.c_str());
        m_ref = ::dlopen(m_dir.filePath("ref.so").toUtf8().constData(), RTLD_NOW | RTLD_LOCAL);
        QVERIFY(m_ref);
        for (int t = 0; t < 2; ++t) {
            const QString stem = m_dir.filePath("emu" + QString::number(t));
            const std::string emu = buildSharedObject(m_cuda[t].source, stem, true);
            QVERIFY2(emu.empty(), emu.c_str());
            m_emu[t] = ::dlopen((stem + ".so").toUtf8().constData(), RTLD_NOW | RTLD_LOCAL);
            QVERIFY(m_emu[t]);
        }
    }

    void goldenSoftmaxMul()
    {
        graph::GraphPtr keep;
        auto p = testing::lowerCase({"r0", R"(def forward(self, x: "f32[3, 8][8, 1]cuda:0", w: "f32[8][1]cuda:0"):
    _softmax: "f32[3, 8][8, 1]cuda:0" = torch.ops.aten._softmax.default(x, -1, False)
    mul: "f32[3, 8][8, 1]cuda:0" = torch.ops.aten.mul.Tensor(_softmax, w)
    return (mul,)
)"},
                                    keep);
        QVERIFY(p.ok());
        QCOMPARE(printCudaSchedule({*p}).source, golden("softmax_mul.cu"));
    }

    // A column kernel whose rows split over blocks (text checked by hand once): the kernel alone,
    // from its opening comment (the prelude is goldenSoftmaxMul's).
    void goldenColumnSplit()
    {
        graph::GraphPtr keep;
        auto p = testing::lowerCase({"r0", R"(def forward(self, x: "f32[2, 300, 20][6000, 20, 1]cuda:0", w: "f32[300, 1][1, 1]cuda:0"):
    mul: "f32[2, 300, 20][6000, 20, 1]cuda:0" = torch.ops.aten.mul.Tensor(x, w)
    mean: "f32[20][1]cuda:0" = torch.ops.aten.mean.dim(mul, [0, 1])
    return (mean,)
)"},
                                    keep);
        QVERIFY(p.ok());
        const std::string source = printCudaSchedule({*p}).source;
        const std::size_t at = source.find("// r0_kernel0:");
        QVERIFY(at != std::string::npos);
        QCOMPARE(source.substr(at), golden("column_split.cu"));
    }

    void launchesFollowTheShape()
    {
        // 1003 floats: 250 chunks of 4 (+3 elements by the first threads). A block of 256
        // would make a grid of 1: small index spaces are spread (blocks halved down to 64
        // while the grid is under 128 blocks): 64 chunks a block, 4 blocks.
        const CudaLaunch flat = printCudaSchedule({lowered("chain")}).launches[0][0];
        QCOMPARE(flat.block, 64);
        QCOMPARE(flat.grid, std::int64_t(4));
        QCOMPARE(flat.vector, 4);
        QCOMPARE(flat.kernel, std::string("chain_kernel0"));
        QCOMPARE(flat.text(), std::string("chain_kernel0 grid=4 block=64 vector=4"));
        // Rows of 1000 floats: 128 threads a row (8 elements each), one row a block.
        const CudaLaunch rows = printCudaSchedule({lowered("softmax_ln")}).launches[0][0];
        QCOMPARE(rows.block, 128);
        QCOMPARE(rows.grid, std::int64_t(5));
        QCOMPARE(rows.vector, 4);
        // Rows of 256 halves: 16 elements a thread (twice the 32-bit figure), 16 threads a row;
        // 4 rows: 4 rows a block of 64 (8 rows a block of 128 before spreading).
        const CudaSchedule halfRows = printCudaSchedule({lowered("halfrows")});
        QVERIFY(halfRows.source.find("16 thread(s) per row") != std::string::npos);
        QCOMPARE(halfRows.launches[0][0].block, 64);
        QCOMPARE(halfRows.launches[0][0].grid, std::int64_t(1));
        // Rows of 33 cannot be read in aligned vectors.
        const CudaLaunch odd = printCudaSchedule({lowered("rowbias")}).launches[0][0];
        QCOMPARE(odd.vector, 1);
        QVERIFY(odd.text().find("vector") == std::string::npos);
        // Rows of 8: one thread a row; 300 rows: 64 rows a block, 5 blocks (128 rows a block
        // would make 3).
        const CudaLaunch small = printCudaSchedule({lowered("smallrows")}).launches[0][0];
        QCOMPARE(small.block, 64);
        QCOMPARE(small.grid, std::int64_t(5));
        // The tuning is part of the launch.
        CudaTuning t;
        t.block = 128;
        t.unroll = 4;
        QCOMPARE(printCudaSchedule({lowered("chain")}, t).launches[0][0].grid, std::int64_t(1));
        t.unroll = 1;
        t.block = 64;
        QCOMPARE(printCudaSchedule({lowered("chain")}, t).launches[0][0].grid, std::int64_t(4));
        QCOMPARE(t.text(), std::string("block=64 unroll=1 row_elements=8"));
        QCOMPARE(CudaTuning::parse(t.text())->text(), t.text());
        QCOMPARE(CudaTuning::parse("unroll=2,block=64")->text(),
                 std::string("block=64 unroll=2 row_elements=8"));
        QVERIFY(!CudaTuning::parse("block=100"));
        QVERIFY(!CudaTuning::parse("warps=4"));
        // row_block: threads a block where rows share one. Rows of 8 (one thread a row) in
        // blocks of 64: 64 rows a block, 300 rows in 5 blocks; rows of 1000 (128 threads a row)
        // keep one row a block. Written only when not the default (keys stay as they were).
        // 32: under the spreading floor, so taken as given: 32 rows a block, 10 blocks.
        t = CudaTuning();
        t.rowBlock = 32;
        const CudaLaunch small32 = printCudaSchedule({lowered("smallrows")}, t).launches[0][0];
        QCOMPARE(small32.block, 32);
        QCOMPARE(small32.grid, std::int64_t(10));
        const CudaLaunch rows32 = printCudaSchedule({lowered("softmax_ln")}, t).launches[0][0];
        QCOMPARE(rows32.block, 128);
        QCOMPARE(rows32.grid, std::int64_t(5));
        t.rowBlock = 64;
        QCOMPARE(t.text(), std::string("block=256 unroll=1 row_elements=8 row_block=64"));
        QCOMPARE(CudaTuning::parse(t.text())->rowBlock, 64);
        QCOMPARE(CudaTuning::parse("row_block=128")->text(),
                 std::string("block=256 unroll=1 row_elements=8"));
        QVERIFY(!CudaTuning::parse("row_block=48"));
        QVERIFY(!CudaTuning::parse("row_block=2048"));
    }

    void wideGridsTakeTwoChunksAThread()
    {
        // A flat kernel over n floats: n / 4 chunks of 4.
        auto flat = [](std::int64_t n, const CudaTuning& t) {
            graph::GraphPtr keep;
            const std::string dims = "f32[" + std::to_string(n) + "][1]cuda:0";
            const std::string text = "def forward(self, x: \"" + dims + "\"):\n    sin: \"" + dims +
                                     "\" = torch.ops.aten.sin.default(x)\n    return (sin,)\n";
            auto p = testing::lowerCase({"r0", text.c_str()}, keep);
            return p ? printCudaSchedule({*p}, t) : CudaSchedule{};
        };
        // 4M floats: 1M chunks, 4096 blocks of 256 (>= 2048): blocks of 128 taking two chunks
        // each, the same grid, each chunk tested against the end.
        const CudaSchedule wide = flat(4194304, CudaTuning());
        QCOMPARE(wide.launches.at(0).at(0).block, 128);
        QCOMPARE(wide.launches[0][0].grid, std::int64_t(4096));
        QVERIFY(wide.source.find("for (int u = 0; u < 2; ++u) {") != std::string::npos);
        QVERIFY(wide.source.find("const int q = i + u * 128;") != std::string::npos);
        QVERIFY(wide.source.find("if (q < 1048576) {") != std::string::npos);
        // Turned off: one chunk a thread in blocks of 256, as before (same grid).
        CudaTuning off;
        off.wide = false;
        const CudaSchedule narrow = flat(4194304, off);
        QCOMPARE(narrow.launches.at(0).at(0).block, 256);
        QCOMPARE(narrow.launches[0][0].grid, std::int64_t(4096));
        QVERIFY(narrow.source.find("u < 1;") != std::string::npos);
        QCOMPARE(off.text(), std::string("block=256 unroll=1 row_elements=8 wide=0"));
        QCOMPARE(CudaTuning::parse(off.text())->wide, false);
        QCOMPARE(CudaTuning::parse("wide=1")->text(), CudaTuning().text());
        QVERIFY(!CudaTuning::parse("wide=2"));
        // At the edge: 2M floats (524,288 chunks) make 2048 blocks, wide; 2,096,128 floats
        // (2047 blocks) and 2,000,004 stay one chunk a thread.
        const CudaSchedule edge = flat(2097152, CudaTuning());
        QCOMPARE(edge.launches.at(0).at(0).block, 128);
        QCOMPARE(edge.launches[0][0].grid, std::int64_t(2048));
        QCOMPARE(flat(2096128, CudaTuning()).launches.at(0).at(0).block, 256);
        QCOMPARE(flat(2000004, CudaTuning()).launches.at(0).at(0).block, 256);
        // An explicit unroll is kept as given.
        CudaTuning two;
        two.unroll = 2;
        QCOMPARE(flat(4194304, two).launches.at(0).at(0).block, 256);
        // 16-bit elements (words of 8) keep one chunk a thread.
        graph::GraphPtr keep;
        auto halves = testing::lowerCase({"r0", R"(def forward(self, x: "bf16[8388608][1]cuda:0"):
    sin: "bf16[8388608][1]cuda:0" = torch.ops.aten.sin.default(x)
    return (sin,)
)"},
                                         keep);
        QVERIFY(halves.ok());
        const CudaLaunch& h = printCudaSchedule({*halves}).launches.at(0).at(0);
        QCOMPARE(h.vector, 8);
        QCOMPARE(h.block, 256);
        QCOMPARE(h.grid, std::int64_t(4096));
    }

    void columnKernelsSplitRowsWhenColumnsAreFew()
    {
        // 37 rows x 300 columns: 32 columns x 8 rows of threads a block, 10 column tiles; 37
        // rows are too few to split (each thread keeps at least 4 rows): grid 10, one pass.
        const CudaSchedule few = printCudaSchedule({lowered("colsum")});
        const CudaLaunch& a = few.launches[0][0];
        QCOMPARE(a.block, 256);
        QCOMPARE(a.grid, std::int64_t(10));
        QCOMPARE(a.vector, 1);
        QVERIFY(few.source.find("_done[") == std::string::npos);
        QVERIFY(few.source.find("atomicAdd") == std::string::npos);
        // 600 rows x 20 columns: one tile; the rows split over 18 blocks of 34 rows (256 blocks
        // wanted, at most 600 / (8 rows of threads x 4) = 18), the partials in a scratch array
        // of the module and combined in split order by the last block (no float atomics).
        const CudaSchedule split = printCudaSchedule({lowered("colsplit")});
        const CudaLaunch& b = split.launches[0][0];
        QCOMPARE(b.block, 256);
        QCOMPARE(b.grid, std::int64_t(18));
        QVERIFY(split.source.find("__device__ float colsplit_kernel0_part0[360];") !=
                std::string::npos);
        QVERIFY(split.source.find("__device__ unsigned int colsplit_kernel0_done[1];") !=
                std::string::npos);
        QVERIFY(split.source.find("atomicAdd(&colsplit_kernel0_done[tile], 1u) == 17u") !=
                std::string::npos);
        QVERIFY(split.source.find("for (int p = 0; p < 18; ++p)") != std::string::npos);
        QVERIFY(split.source.find("atomicAdd(float") == std::string::npos);
        // 128 rows x 256 columns: 8 tiles of 32 columns; with 8 rows of threads the rows would
        // split over 4 blocks (128 / (8 x 4)), but one block takes them all, its tiles narrowed
        // to 8 columns for 32 blocks and 128 rows of threads, one row a thread: block 8 x 128,
        // grid 32, no scratch, no counter; the 128 rows of partials are halved (64, 32, 16, 8)
        // before the first row of threads combines the last 8 in order.
        graph::GraphPtr keep;
        const auto rmsWeightGrad = testing::lowerCase({"r0", R"(def forward(self, x: "f32[2, 64, 256][16384, 256, 1]cuda:0", y: "f32[2, 64, 256][16384, 256, 1]cuda:0"):
    mul: "f32[2, 64, 256][16384, 256, 1]cuda:0" = torch.ops.aten.mul.Tensor(x, y)
    sum_1: "f32[1, 1, 256][256, 256, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul, [0, 1], True)
    return (sum_1,)
)"},
                                                      keep);
        QVERIFY(rmsWeightGrad.ok());
        const CudaSchedule rows = printCudaSchedule({*rmsWeightGrad});
        const CudaLaunch& r = rows.launches[0][0];
        QCOMPARE(r.block, 1024);
        QCOMPARE(r.grid, std::int64_t(32));
        QVERIFY(rows.source.find("const int tx = threadIdx.x % 8;") != std::string::npos);
        QVERIFY(rows.source.find("_done[") == std::string::npos);
        QVERIFY(rows.source.find("atomicAdd") == std::string::npos);
        QVERIFY2(rows.source.find("for (int h = 64; h >= 8; h /= 2) {") != std::string::npos,
                 rows.source.c_str());
        QVERIFY(rows.source.find("for (int y = 1; y < 8; ++y) {") != std::string::npos);
        QVERIFY(rows.source.find("#pragma unroll 4\n") != std::string::npos);
        // The emulated case (64 x 64): tiles of 8 columns, 64 rows of threads, grid 8.
        const CudaLaunch& e = printCudaSchedule({lowered("colrows")}).launches[0][0];
        QCOMPARE(e.block, 512);
        QCOMPARE(e.grid, std::int64_t(8));
        // Small blocks (64 threads): 32 columns x 2 rows of threads, 600 / 8 = 75 splits.
        CudaTuning t;
        t.block = 64;
        const CudaLaunch& c = printCudaSchedule({lowered("colsplit")}, t).launches[0][0];
        QCOMPARE(c.block, 64);
        QCOMPARE(c.grid, std::int64_t(75));
    }

    void halfRowsArePipelined()
    {
        // 16-bit rows: a group takes 4 rows in turn (the grid sized for it) and fetches the next
        // row's 128-bit words before reducing the current one; one computation serves aligned
        // and unaligned buffers (the fetch packs single elements into the same words).
        const CudaSchedule s = printCudaSchedule({lowered("bf16rows")});
        const CudaLaunch& l = s.launches[0][0];
        // 4 threads a row, 16 rows a block: 32 (a block of 128) would make a grid of 3,
        // spread down to blocks of 64.
        QCOMPARE(l.block, 64);
        QCOMPARE(l.vector, 8);
        QCOMPARE(l.grid, std::int64_t(5)); // 300 rows / (16 rows a block x 4 rows a group)
        const std::string& src = s.source;
        QVERIFY(src.find("4 rows per group, each fetched during the previous one") !=
                std::string::npos);
        QVERIFY(src.find("uint32_t (&p0)[8])") != std::string::npos);
        QVERIFY(src.find("p0[j * 4 + 3] = w0.w;") != std::string::npos);
        QVERIFY(src.find("p0[j * 4 + 1] = ((uint32_t)e[2] | ((uint32_t)e[3] << 16));") !=
                std::string::npos);
        QVERIFY(src.find("l0[j * 8 + 1] = fxs_bf16_load((uint16_t)(p0[j * 4 + 0] >> 16));") !=
                std::string::npos);
        QVERIFY(src.find("bf16rows_kernel0_fetch8(in0, in1, in2, out0, r0 + step + g < 300 ? "
                         "r0 + step + g : 299, t, aligned, q0);") != std::string::npos);
        QVERIFY(src.find("bf16rows_kernel0_row8(in0, in1, in2, out0, r, t, live, p0, smf") !=
                std::string::npos);
        // On sm_80 and later a bfloat16 rounds, and min/max propagate NaN, in one instruction.
        QVERIFY(src.find("asm(\"cvt.rn.bf16.f32 %0, %1;\"") != std::string::npos);
        QVERIFY(src.find("asm(\"max.NaN.f32 %0, %1, %2;\"") != std::string::npos);
        // float32 rows keep one row a group (pipelining measured slower there).
        const CudaSchedule f32 = printCudaSchedule({lowered("softmax_ln")});
        QVERIFY(f32.source.find("_fetch") == std::string::npos);
        QCOMPARE(f32.launches[0][0].grid, std::int64_t(5));
    }

    void oneEntryTestsAlignment()
    {
        // The kernel decides between 128-bit words and single elements from its pointers.
        const std::string src = printCudaSchedule({lowered("chain")}).source;
        QVERIFY(src.find("const bool aligned = (((uint64_t)in0 | (uint64_t)in1 | (uint64_t)out0)"
                         " % 16) == 0;") != std::string::npos);
        QVERIFY(src.find("if (aligned) {") != std::string::npos);
        std::size_t entries = 0;
        for (std::size_t at = src.find("__global__"); at != std::string::npos;
             at = src.find("__global__", at + 1)) {
            ++entries;
        }
        QCOMPARE(entries, std::size_t(1));
        // A kernel without vector accesses has no test.
        QVERIFY(printCudaSchedule({lowered("rowbias")}).source.find("bool aligned") ==
                std::string::npos);
    }

    void catReadsEachPartInItsRange()
    {
        // Each part of a cat is read only inside its range along the cat dim (0 elsewhere, no
        // address read), the choice made by the index along that dim (flat kernels: from their
        // flat index). The C++ printer splits the inner loop at the cat's boundary instead, each
        // piece reading its part without a condition (g++ vectorises no conditional load).
        const std::string rope = printCudaSchedule({lowered("rope")}).source;
        const std::string ropeCpp = printSchedule({lowered("rope")});
        QVERIFY(rope.find("(c < 8) ? in0[b") != std::string::npos);
        QVERIFY(rope.find("(c >= 8) ? in0[b") != std::string::npos);
        QVERIFY(rope.find(": (float)0)") != std::string::npos);
        QVERIFY(ropeCpp.find("? in0[") == std::string::npos);
        QVERIFY(ropeCpp.find("for (int64_t c = 0; c < 8; ++c) {") != std::string::npos);
        QVERIFY(ropeCpp.find("for (int64_t c = 8; c < 16; ++c) {") != std::string::npos);
        QVERIFY(ropeCpp.find("const float t3 = (float)0;") != std::string::npos);
        for (const std::string& src : {rope, ropeCpp}) {
            QVERIFY(src.find("((int64_t)c)") != std::string::npos);
        }
        // Guarded parts are read element by element, never as 128-bit words.
        QVERIFY(rope.find("l2[v] = ((c < 8) ? in0[b2 + c] : (float)0);") != std::string::npos);
        // Parts along the rows: the guard reads the row index (the broadcast part once a row).
        const std::string outer = printCudaSchedule({lowered("catouter")}).source;
        QVERIFY(outer.find("const float l0 = ((r < 2) ? in0[b0] : (float)0);") !=
                std::string::npos);
        QVERIFY(outer.find("(r >= 2 && r < 5) ? in1[b1 + c]") != std::string::npos);
        // Rows of 32 floats go in 128-bit words (the weight; the one-row part, which any row may
        // read), a guarded part never: a word would be read whether its row is in the part's
        // range or not.
        QVERIFY(outer.find("reinterpret_cast<const uint4*>(in3") != std::string::npos);
        QVERIFY(outer.find("reinterpret_cast<const uint4*>(in2") != std::string::npos);
        QVERIFY(outer.find("reinterpret_cast<const uint4*>(in1") == std::string::npos);
        const std::string flat = printCudaSchedule({lowered("catflat")}).source;
        const std::string flatCpp = printSchedule({lowered("catflat")});
        QVERIFY(flat.find("(c >= 600) ? in1[b1 + c]") != std::string::npos);
        // C++: a select of the part's load at an address clamped into it, no conditional read.
        QVERIFY(flatCpp.find("fxs_sel_f(((lo + c) >= 600), in1[b1 + c + ((lo + c) < 600 ? 600 - "
                             "(lo + c) : 0) * 1], (float)0)") != std::string::npos);
        QVERIFY(flatCpp.find("? in1[") == std::string::npos);
        QVERIFY(flatCpp.find("((int64_t)(lo + c))") != std::string::npos);
        // The scalar_tensor is a constant the printer spells.
        QVERIFY(flat.find("(-2.5f)") != std::string::npos);
    }

    void fastMathOnlyForHalfStores()
    {
        // bfloat16/float16 outputs: NVRTC's fast math, said in the source.
        const CudaSchedule halves = printCudaSchedule({lowered("halves")});
        QCOMPARE(halves.nvrtcOptions, std::vector<std::string>{"--use_fast_math"});
        QVERIFY(halves.source.find("// Built with --use_fast_math") != std::string::npos);
        // float32 and float64 outputs keep IEEE division, square root and math functions.
        for (const char* name : {"chain", "doubles", "softmax_ln"}) {
            const CudaSchedule s = printCudaSchedule({lowered(name)});
            QVERIFY2(s.nvrtcOptions.empty(), name);
            QVERIFY2(s.source.find("fast_math") == std::string::npos, name);
        }
        // One float32 output among half ones keeps the whole unit precise.
        QVERIFY(printCudaSchedule({lowered("halves"), lowered("chain")}).nvrtcOptions.empty());
    }

    void wordsOfEachWidth()
    {
        const std::string src = printCudaSchedule({lowered("bools"), lowered("halves")}).source;
        // Eight floats are two 128-bit loads; eight bools one 64-bit store.
        QVERIFY(src.find("reinterpret_cast<const uint4*>(in0 + b0 + c0)[1]") != std::string::npos);
        QVERIFY(src.find("reinterpret_cast<uint2*>(out0 + s0 + c0)[0] = w;") != std::string::npos);
        QVERIFY(src.find("l0[7] = __uint_as_float(w1.w);") != std::string::npos);
        // bfloat16 loads unpack 16-bit halves of each word and compute in float.
        QVERIFY(src.find("l0[1] = fxs_bf16_load((uint16_t)(w0.x >> 16));") != std::string::npos);
        QVERIFY(src.find("fxs_f16_store(") != std::string::npos);
        QVERIFY(src.find("#include") == std::string::npos);
        // Two doubles a 128-bit word pair; double math and a double row group across warps.
        const std::string f64 = printCudaSchedule({lowered("doubles")}).source;
        QVERIFY(f64.find("l0[j * 2 + 1] = __longlong_as_double((long long)(((uint64_t)w0.w << "
                         "32) | w0.z));") != std::string::npos);
        QVERIFY(f64.find("w.w = (uint32_t)((uint64_t)__double_as_longlong(o0[1]) >> 32);") !=
                std::string::npos);
        QVERIFY(f64.find("= exp(t") != std::string::npos);
        QVERIFY(f64.find("__shared__ double smd[32];") != std::string::npos);
        QVERIFY(f64.find("expf(") == std::string::npos);
    }

    void emulatedRunsMatchTheCppKernels_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<bool>("misaligned");
        QTest::addColumn<int>("tuning");
        for (int t = 0; t < 2; ++t) {
            const std::string tuning = t ? "/small" : "";
            for (std::size_t i = 0; i < m_cuda[t].launches.size(); ++i) {
                const std::string name = testing::cudaCases()[i].name + tuning;
                QTest::newRow((name + "/aligned").c_str()) << int(i) << false << t;
                if (m_cuda[t].launches[i].at(0).vector > 1) {
                    QTest::newRow((name + "/misaligned").c_str()) << int(i) << true << t;
                }
            }
        }
    }

    void emulatedRunsMatchTheCppKernels()
    {
        QFETCH(int, index);
        QFETCH(bool, misaligned);
        QFETCH(int, tuning);
        const RegionProgram& prog = m_programs.at(std::size_t(index));
        const std::vector<CudaLaunch>& launches = m_cuda[tuning].launches.at(std::size_t(index));
        std::mt19937 rng(1234 + unsigned(index));
        std::vector<Buffer> in;
        for (const auto& spec : prog.inputs) {
            in.push_back(randomInput(spec, rng));
        }
        std::vector<Buffer> want;
        std::vector<Buffer> got;
        for (const auto& spec : prog.outputs) {
            want.push_back(makeBuffer(spec.type, elementsOf(spec)));
            got.push_back(makeBuffer(spec.type, elementsOf(spec)));
        }
        // The kernel's buffers: 16-byte aligned storage, or one element past it.
        std::vector<std::vector<unsigned char>> storage;
        std::vector<void*> args;
        auto place = [&](const Buffer& b) {
            const std::size_t shift = misaligned ? std::size_t(scalarTypeSize(b.type)) : 0;
            storage.emplace_back(b.bytes.size() + 32);
            auto base = reinterpret_cast<std::uintptr_t>(storage.back().data());
            auto* p = reinterpret_cast<unsigned char*>((base + 15) / 16 * 16 + shift);
            std::memcpy(p, b.bytes.data(), b.bytes.size());
            args.push_back(p);
        };
        std::vector<void*> inPtr;
        std::vector<void*> wantPtr;
        for (auto& b : in) {
            inPtr.push_back(b.bytes.data());
            place(b);
        }
        for (std::size_t i = 0; i < want.size(); ++i) {
            wantPtr.push_back(want[i].bytes.data());
            place(got[i]);
        }
        auto entry = reinterpret_cast<Entry>(::dlsym(m_ref, entrySymbol(index).c_str()));
        void* emu = m_emu[tuning];
        auto emulate = reinterpret_cast<Emulate>(::dlsym(emu, "fxs_emulate"));
        QVERIFY(entry && emulate);
        const auto dims = entryDims(prog.inputs);
        QCOMPARE(entry(inPtr.data(), wantPtr.data(), dims.data(), std::int64_t(dims.size())), 0);
        for (const CudaLaunch& launch : launches) {
            void* kernel = ::dlsym(emu, launch.kernel.c_str());
            QVERIFY2(kernel, launch.kernel.c_str());
            QCOMPARE(emulate(kernel, unsigned(launch.grid), unsigned(launch.block), args.data(),
                             int(args.size())),
                     0);
        }
        for (std::size_t i = 0; i < want.size(); ++i) {
            const void* out = args[in.size() + i];
            std::memcpy(got[i].bytes.data(), out, got[i].bytes.size());
            const std::string diff =
                compare(got[i], want[i], testing::cudaCases()[std::size_t(index)].tolerance);
            QVERIFY2(diff.empty(), ("output " + std::to_string(i) + ", " + diff).c_str());
        }
    }

    void cleanupTestCase()
    {
        if (m_ref) {
            ::dlclose(m_ref);
        }
        for (void* emu : m_emu) {
            if (emu) {
                ::dlclose(emu);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCudaPrinter)
#include "tst_cuda_printer.moc"

FXSCOPE_TEST_END
