// RunOptions::directMatmuls (interpreter.h): float32 matrix products on CUDA straight to cuBLAS.
// LibTorch's mm spends host time around its cuBLAS call: the dispatcher, its argument checks and
// its handle lookup, which sets the stream, the workspace and the math mode on every call. The
// call below is the one mm makes for float32, cublasSgemm, on a handle set up as LibTorch sets
// up its own (the current stream, LibTorch's workspace size, its float32 math mode) but only
// when one of them changed, with the operands described to cuBLAS as mm describes them: a
// row-major C = A B is the column-major C^T = B^T A^T, each operand read in place when it is
// row- or column-major. Same kernels, same values; on an H200's host 1.5-3 us less a product
// (host_by_op.py, issue 27).
//
// An addmm with a 1-D bias goes to cuBLASLt with the bias in the epilogue, as LibTorch's addmm
// does for such operands, but without its per-call set-up: LibTorch makes the matmul
// descriptor, the three layouts and the preference and asks the heuristics again on every
// call; here they are made once per operand shape, leading dimensions, alignments and math
// mode, on the thread's handle, and only the bias pointer is set per call (on H200 hosts the
// call still cost 17-22 us of host, as LibTorch's 18-25: cuBLASLt's own work dominates). The
// algorithm is the heuristics' first, as LibTorch's, for the workspace the handle's products
// share (LibTorch's cuBLASLt workspace may be smaller, so the kernel may differ from its
// addmm's; the eager run, LibTorch's, checks the values).
//
// cuBLAS and cuBLASLt are looked up in the process (dlsym) rather than linked: LibTorch's CUDA
// library loads them, so their entry points are there whenever a CUDA tensor is; without them
// the products run through LibTorch's mm and addmm.
#include "core/exec/direct_calls.h"
#include "core/exec/execution_plan.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <climits>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#if defined(FXSCOPE_TORCH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cublasLt.h>
#include <cuda.h>
#include "core/exec/process_symbols.h"
#endif

namespace fxs::exec::detail {
namespace {

std::atomic<long> g_directMatmuls{0};
std::atomic<long> g_directAddmms{0};
std::atomic<long> g_directBatched{0};
thread_local int t_uncounted = 0; // UncountedDirectCalls on this thread

[[maybe_unused]] void counted(std::atomic<long>& counter)
{
    if (t_uncounted == 0) {
        ++counter;
    }
}

#if defined(FXSCOPE_TORCH_CUDA)

// cuBLAS's entry points, found in the process (LibTorch's CUDA library loaded cuBLAS).
struct Cublas {
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasSetStream_v2) setStream = nullptr;
    decltype(&cublasSetWorkspace_v2) setWorkspace = nullptr;
    decltype(&cublasSetMathMode) setMathMode = nullptr;
    decltype(&cublasSgemm_v2) sgemm = nullptr;
    decltype(&cublasSgemmBatched) sgemmBatched = nullptr; // apart: ok() without it
    bool ok() const { return create && setStream && setWorkspace && setMathMode && sgemm; }
};

const Cublas& cublas()
{
    static const Cublas c = [] {
        Cublas x;
        findInProcess(x.create, "cublasCreate_v2");
        findInProcess(x.setStream, "cublasSetStream_v2");
        findInProcess(x.setWorkspace, "cublasSetWorkspace_v2");
        findInProcess(x.setMathMode, "cublasSetMathMode");
        findInProcess(x.sgemm, "cublasSgemm_v2");
        findInProcess(x.sgemmBatched, "cublasSgemmBatched");
        return x;
    }();
    return c;
}

// The CUDA driver's stream memory operations (LibTorch's runtime loaded the driver): the
// batched products' operand addresses are written to the device by the stream itself, so a
// CUDA graph capture records them as they are and writes them again on every replay.
struct MemOps {
    decltype(&cuStreamBatchMemOp) batch = nullptr;
    decltype(&cuDeviceGet) deviceGet = nullptr;
    decltype(&cuDeviceGetAttribute) attribute = nullptr;
    bool ok() const { return batch && deviceGet && attribute; }
};

const MemOps& memOps()
{
    static const MemOps m = [] {
        MemOps x;
        void* driver = loadedLibrary("libcuda.so.1");
        findIn(driver, x.batch, {"cuStreamBatchMemOp_v2", "cuStreamBatchMemOp"});
        findIn(driver, x.deviceGet, {"cuDeviceGet"});
        findIn(driver, x.attribute, {"cuDeviceGetAttribute"});
        return x;
    }();
    return m;
}

// Whether the device takes 64-bit stream writes (asked once a device).
bool writes64(c10::DeviceIndex device)
{
    static std::array<std::atomic<int>, 64> known{}; // 0 unknown, 1 yes, 2 no
    const MemOps& f = memOps();
    if (!f.ok() || device < 0 || std::size_t(device) >= known.size()) {
        return false;
    }
    std::atomic<int>& k = known[std::size_t(device)];
    if (k.load() == 0) {
        CUdevice d = 0;
        int v = 0;
        const bool yes =
            f.deviceGet(&d, device) == CUDA_SUCCESS &&
            f.attribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, d) == CUDA_SUCCESS &&
            v == 1;
        k.store(yes ? 1 : 2);
    }
    return k.load() == 1;
}

// `values` written to consecutive 64-bit words from `to` in order on `stream`: stream memory
// operations, at most 255 a call (the driver's limit).
bool writeOnStream(cudaStream_t stream, void* to, const std::vector<std::uint64_t>& values)
{
    std::vector<CUstreamBatchMemOpParams> ops(values.size());
    const auto base = reinterpret_cast<CUdeviceptr>(to);
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::memset(&ops[i], 0, sizeof ops[i]);
        ops[i].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
        ops[i].writeValue.address = base + 8 * i;
        ops[i].writeValue.value64 = values[i];
    }
    constexpr std::size_t kMost = 255;
    for (std::size_t at = 0; at < ops.size(); at += kMost) {
        const auto n = unsigned(std::min(kMost, ops.size() - at));
        if (memOps().batch(CUstream(stream), n, ops.data() + at, 0) != CUDA_SUCCESS) {
            return false;
        }
    }
    return true;
}

// cuBLASLt's, for addmm with its bias in the epilogue.
struct CublasLt {
    decltype(&cublasLtCreate) create = nullptr;
    decltype(&cublasLtMatmulDescCreate) descCreate = nullptr;
    decltype(&cublasLtMatmulDescSetAttribute) descSet = nullptr;
    decltype(&cublasLtMatrixLayoutCreate) layoutCreate = nullptr;
    decltype(&cublasLtMatmulPreferenceCreate) prefCreate = nullptr;
    decltype(&cublasLtMatmulPreferenceSetAttribute) prefSet = nullptr;
    decltype(&cublasLtMatmulPreferenceDestroy) prefDestroy = nullptr;
    decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
    decltype(&cublasLtMatmul) matmul = nullptr;
    bool ok() const
    {
        return create && descCreate && descSet && layoutCreate && prefCreate && prefSet &&
               prefDestroy && heuristic && matmul;
    }
};

const CublasLt& cublasLt()
{
    static const CublasLt c = [] {
        CublasLt x;
        findInProcess(x.create, "cublasLtCreate");
        findInProcess(x.descCreate, "cublasLtMatmulDescCreate");
        findInProcess(x.descSet, "cublasLtMatmulDescSetAttribute");
        findInProcess(x.layoutCreate, "cublasLtMatrixLayoutCreate");
        findInProcess(x.prefCreate, "cublasLtMatmulPreferenceCreate");
        findInProcess(x.prefSet, "cublasLtMatmulPreferenceSetAttribute");
        findInProcess(x.prefDestroy, "cublasLtMatmulPreferenceDestroy");
        findInProcess(x.heuristic, "cublasLtMatmulAlgoGetHeuristic");
        findInProcess(x.matmul, "cublasLtMatmul");
        return x;
    }();
    return c;
}

// What an addmm's cuBLASLt set-up depends on, in cuBLAS's column-major view (rows, columns and
// depth, each operand's op and leading dimension, the four pointers' alignments, TF32 or not,
// the workspace's size): the key of the set-up kept for it.
using LtKey = std::array<std::int64_t, 13>;

// One operand shape's set-up: the matmul descriptor (its bias pointer set per call), the
// layouts and the heuristics' first algorithm; `ok` false when cuBLASLt offered none.
struct LtPlan {
    LtKey key{};
    bool ok = false;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr;
    cublasLtMatrixLayout_t b = nullptr;
    cublasLtMatrixLayout_t c = nullptr;
    cublasLtMatmulAlgo_t algo{};
};

// A handle for one device, set up as LibTorch sets up its own for mm (the workspace size
// LibTorch chooses, its math mode for float32) but only when something changed: LibTorch's
// handle lookup sets the stream, the workspace and the math mode on every call. One workspace a
// stream, as LibTorch keeps them: two streams' products may run at once. A handle serves one
// thread at a time; when the thread ends its handles go back to a pool the next threads take
// from, so a program whose worker threads come and go (the app's) holds as many handles as it
// ran threads at once. Handles, workspaces and the pool live as long as the process (as
// LibTorch's own handles: destroying them at exit would race the CUDA context's teardown).
struct Handle {
    c10::DeviceIndex device = 0;
    cublasHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
    bool streamSet = false;
    int mathMode = -1;
    std::size_t workspaceBytes = 0;
    std::vector<std::pair<cudaStream_t, at::DataPtr>> workspaces;
    cublasLtHandle_t lt = nullptr; // made by the first addmm
    std::vector<LtPlan> ltPlans;   // one per operand shape met, kept with the handle
};

struct HandlePool {
    std::mutex mutex;
    std::vector<Handle*> idle;
};

HandlePool& handlePool()
{
    static HandlePool* pool = new HandlePool(); // never destroyed: threads may end after it
    return *pool;
}

struct ThreadHandles {
    std::vector<Handle*> byDevice;
    ~ThreadHandles()
    {
        HandlePool& pool = handlePool();
        std::lock_guard<std::mutex> lock(pool.mutex);
        for (Handle* h : byDevice) {
            if (h) {
                pool.idle.push_back(h);
            }
        }
    }
};

Handle* takeIdle(c10::DeviceIndex device)
{
    HandlePool& pool = handlePool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    for (auto it = pool.idle.begin(); it != pool.idle.end(); ++it) {
        if ((*it)->device == device) {
            Handle* h = *it;
            pool.idle.erase(it);
            return h;
        }
    }
    return nullptr;
}

Handle* newHandle(const Cublas& c, c10::DeviceIndex device)
{
    auto* made = new Handle(); // kept for the process's life (above)
    if (c.create(&made->handle) != CUBLAS_STATUS_SUCCESS) {
        delete made;
        return nullptr;
    }
    made->device = device;
    made->workspaceBytes = at::cuda::getChosenWorkspaceSize();
    return made;
}

// The handle's workspace for `stream`, made on first use there.
void* workspaceFor(Handle& h, cudaStream_t stream)
{
    for (auto& [s, w] : h.workspaces) {
        if (s == stream) {
            return w.get();
        }
    }
    h.workspaces.emplace_back(stream,
                              c10::cuda::CUDACachingAllocator::get()->allocate(h.workspaceBytes));
    return h.workspaces.back().second.get();
}

Handle* handleFor(const Cublas& c, c10::DeviceIndex device)
{
    thread_local ThreadHandles handles;
    if (std::size_t(device) >= handles.byDevice.size()) {
        handles.byDevice.resize(std::size_t(device) + 1, nullptr);
    }
    Handle*& h = handles.byDevice[std::size_t(device)];
    if (!h) {
        h = takeIdle(device);
    }
    if (!h) {
        h = newHandle(c, device);
        if (!h) {
            return nullptr;
        }
    }
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device).stream();
    if (!h->streamSet || stream != h->stream) {
        // Setting the stream drops a workspace set before: set both.
        if (c.setStream(h->handle, stream) != CUBLAS_STATUS_SUCCESS ||
            c.setWorkspace(h->handle, workspaceFor(*h, stream), h->workspaceBytes) !=
                CUBLAS_STATUS_SUCCESS) {
            h->streamSet = false;
            return nullptr;
        }
        h->stream = stream;
        h->streamSet = true;
    }
    const int mode = at::globalContext().allowTF32CuBLAS() ? CUBLAS_TF32_TENSOR_OP_MATH
                                                           : CUBLAS_DEFAULT_MATH;
    if (mode != h->mathMode) {
        if (c.setMathMode(h->handle, cublasMath_t(mode)) != CUBLAS_STATUS_SUCCESS) {
            return nullptr;
        }
        h->mathMode = mode;
    }
    return h;
}

// An operand as cuBLAS reads it in place (columnMajorOperand).
struct Side {
    cublasOperation_t op = CUBLAS_OP_N;
    std::int64_t ld = 1;
};

std::optional<Side> sideOf(const at::Tensor& t)
{
    const auto o = columnMajorOperand(t.size(0), t.size(1), t.stride(0), t.stride(1));
    if (!o) {
        return std::nullopt;
    }
    return Side{o->transposed ? CUBLAS_OP_T : CUBLAS_OP_N, o->ld};
}

bool fitsInt(std::int64_t v)
{
    return v > 0 && v <= INT_MAX;
}

// a @ b's operands as cuBLAS reads them in place (b's side first: C^T = B^T A^T), when both are
// float32 2-D CUDA matrices on the current device that fit, off the autograd graph and outside
// deterministic mode; nullopt where LibTorch's own call must run.
std::optional<std::pair<Side, Side>> productSides(const at::Tensor& a, const at::Tensor& b)
{
    if (!a.defined() || !b.defined() || !a.is_cuda() || a.dim() != 2 || b.dim() != 2 ||
        a.scalar_type() != at::kFloat || b.scalar_type() != at::kFloat ||
        a.device() != b.device() || a.size(1) != b.size(0) || a.is_neg() || b.is_neg()) {
        return std::nullopt;
    }
    if (!c10::InferenceMode::is_enabled() && at::GradMode::is_enabled() &&
        (a.requires_grad() || b.requires_grad())) {
        return std::nullopt; // mm would record itself on the autograd graph
    }
    if (at::globalContext().deterministicAlgorithms()) {
        return std::nullopt; // mm checks cuBLAS's workspace configuration first
    }
    if (!fitsInt(a.size(0)) || !fitsInt(b.size(1)) || !fitsInt(a.size(1)) ||
        a.get_device() != c10::cuda::current_device()) {
        return std::nullopt;
    }
    const auto sa = sideOf(a);
    const auto sb = sideOf(b);
    if (!sa || !sb || !fitsInt(sa->ld) || !fitsInt(sb->ld)) {
        return std::nullopt;
    }
    return std::make_pair(*sb, *sa);
}

std::int64_t addressAlignment(const void* p)
{
    return alignmentOf(reinterpret_cast<std::uintptr_t>(p));
}

template <class T>
bool setDesc(const CublasLt& f, cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr,
             const T& value)
{
    return f.descSet(d, attr, &value, sizeof(T)) == CUBLAS_STATUS_SUCCESS;
}

// A layout of `rows` x `cols` in cuBLAS's column-major terms, read transposed under op T.
cublasLtMatrixLayout_t layoutOf(const CublasLt& f, std::int64_t rows, std::int64_t cols,
                                std::int64_t ld, bool transposed)
{
    cublasLtMatrixLayout_t l = nullptr;
    if (f.layoutCreate(&l, CUDA_R_32F, std::uint64_t(transposed ? cols : rows),
                       std::uint64_t(transposed ? rows : cols), ld) != CUBLAS_STATUS_SUCCESS) {
        return nullptr;
    }
    return l;
}

// The set-up for `key` on the handle (made the first time): C (m x n, leading dimension m) =
// op(A) (m x k) op(B) (k x n) + bias (m) broadcast along the columns, as LibTorch's
// gemm_and_bias describes it, its first heuristic answer for the workspace and alignments.
LtPlan* ltPlanFor(const CublasLt& f, Handle& h, const LtKey& key)
{
    for (LtPlan& p : h.ltPlans) {
        if (p.key == key) {
            return &p;
        }
    }
    if (!h.lt && f.create(&h.lt) != CUBLAS_STATUS_SUCCESS) {
        h.lt = nullptr;
        return nullptr;
    }
    const auto [m, n, k, opA, opB, lda, ldb, alA, alB, alC, alBias, tf32, work] = key;
    LtPlan p;
    p.key = key;
    const auto compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    if (f.descCreate(&p.desc, compute, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) {
        return nullptr;
    }
    const auto ta = cublasOperation_t(opA);
    const auto tb = cublasOperation_t(opB);
    p.a = layoutOf(f, m, k, lda, ta == CUBLAS_OP_T);
    p.b = layoutOf(f, k, n, ldb, tb == CUBLAS_OP_T);
    p.c = layoutOf(f, m, n, m, false);
    cublasLtMatmulPreference_t pref = nullptr;
    bool made = p.a && p.b && p.c && setDesc(f, p.desc, CUBLASLT_MATMUL_DESC_TRANSA, ta) &&
                setDesc(f, p.desc, CUBLASLT_MATMUL_DESC_TRANSB, tb) &&
                setDesc(f, p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_BIAS) &&
                f.prefCreate(&pref) == CUBLAS_STATUS_SUCCESS;
    const auto setPref = [&](cublasLtMatmulPreferenceAttributes_t attr, auto value) {
        return f.prefSet(pref, attr, &value, sizeof(value)) == CUBLAS_STATUS_SUCCESS;
    };
    made = made && setPref(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, std::uint64_t(work)) &&
           setPref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, std::uint32_t(alA)) &&
           setPref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, std::uint32_t(alB)) &&
           setPref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, std::uint32_t(alC)) &&
           setPref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, std::uint32_t(alBias));
    cublasLtMatmulHeuristicResult_t found{};
    int count = 0;
    made = made && f.heuristic(h.lt, p.desc, p.a, p.b, p.c, p.c, pref, 1, &found, &count) ==
                       CUBLAS_STATUS_SUCCESS;
    if (pref) {
        f.prefDestroy(pref);
    }
    p.ok = made && count > 0;
    p.algo = found.algo;
    h.ltPlans.push_back(p); // kept even when not ok: the shape is not asked about again
    return &h.ltPlans.back();
}

#endif

// aten::mm(self, mat2) -> Tensor
void mmDirect(Stack& s)
{
    const at::Tensor a = s[0].toTensor();
    const at::Tensor b = s[1].toTensor();
    at::Tensor out = matmul(a, b, true);
    s.clear();
    s.emplace_back(std::move(out));
}

} // namespace

std::optional<ColumnMajorOperand> columnMajorOperand(std::int64_t rows, std::int64_t cols,
                                                     std::int64_t rowStride,
                                                     std::int64_t colStride)
{
    const std::int64_t one = 1;
    if ((cols <= 1 || colStride == 1) && (rows <= 1 || rowStride >= std::max(one, cols))) {
        return ColumnMajorOperand{false, rows <= 1 ? std::max(one, cols) : rowStride};
    }
    if ((rows <= 1 || rowStride == 1) && (cols <= 1 || colStride >= std::max(one, rows))) {
        return ColumnMajorOperand{true, cols <= 1 ? std::max(one, rows) : colStride};
    }
    return std::nullopt;
}

std::int64_t alignmentOf(std::uintptr_t address)
{
    std::int64_t a = 256;
    while (a > 1 && address % std::uintptr_t(a) != 0) {
        a /= 2;
    }
    return a;
}

at::Tensor directMatmul(const at::Tensor& a, const at::Tensor& b)
{
#if defined(FXSCOPE_TORCH_CUDA)
    const auto sides = productSides(a, b);
    const Cublas& f = cublas();
    if (!sides || !f.ok()) {
        return {};
    }
    const auto& [sb, sa] = *sides;
    const std::int64_t m = a.size(0);
    const std::int64_t k = a.size(1);
    const std::int64_t n = b.size(1);
    Handle* h = handleFor(f, a.device().index());
    if (!h) {
        return {};
    }
    at::Tensor c = at::detail::empty_cuda({m, n}, at::kFloat, a.device(), std::nullopt);
    const float one = 1.0f;
    const float zero = 0.0f;
    const cublasStatus_t status =
        f.sgemm(h->handle, sb.op, sa.op, int(n), int(m), int(k), &one,
                static_cast<const float*>(b.const_data_ptr()), int(sb.ld),
                static_cast<const float*>(a.const_data_ptr()), int(sa.ld), &zero,
                static_cast<float*>(c.data_ptr()), int(n));
    if (status != CUBLAS_STATUS_SUCCESS) {
        return {}; // LibTorch's mm makes the call again and reports what failed
    }
    counted(g_directMatmuls);
    return c;
#else
    (void)a;
    (void)b;
    return {};
#endif
}

std::vector<at::Tensor> directBatchedMatmul(const std::vector<at::Tensor>& a,
                                            const std::vector<at::Tensor>& b)
{
#if defined(FXSCOPE_TORCH_CUDA)
    const Cublas& f = cublas();
    if (a.empty() || a.size() != b.size() || !f.ok() || !f.sgemmBatched ||
        a.size() > std::size_t(INT_MAX / 3) || !writes64(a[0].device().index())) {
        return {};
    }
    const auto first = productSides(a[0], b[0]);
    if (!first) {
        return {};
    }
    const auto same = [](const Side& x, const Side& y) { return x.op == y.op && x.ld == y.ld; };
    for (std::size_t i = 1; i < a.size(); ++i) {
        const auto sides = productSides(a[i], b[i]);
        if (!sides || a[i].sizes() != a[0].sizes() || b[i].sizes() != b[0].sizes() ||
            a[i].device() != a[0].device() || !same(sides->first, first->first) ||
            !same(sides->second, first->second)) {
            return {};
        }
    }
    const auto& [sb, sa] = *first;
    const std::int64_t m = a[0].size(0);
    const std::int64_t k = a[0].size(1);
    const std::int64_t n = b[0].size(1);
    const c10::Device device = a[0].device();
    Handle* h = handleFor(f, device.index());
    if (!h) {
        return {};
    }
    const std::int64_t count = std::int64_t(a.size());
    std::vector<at::Tensor> c;
    c.reserve(a.size());
    // The addresses, b's, a's, then c's, written to the device on the current stream.
    std::vector<std::uint64_t> address(std::size_t(3 * count));
    const auto addressOf = [](const void* p) {
        return std::uint64_t(reinterpret_cast<std::uintptr_t>(p));
    };
    for (std::int64_t i = 0; i < count; ++i) {
        const auto j = std::size_t(i);
        c.push_back(at::detail::empty_cuda({m, n}, at::kFloat, device, std::nullopt));
        address[j] = addressOf(b[j].const_data_ptr());
        address[std::size_t(count) + j] = addressOf(a[j].const_data_ptr());
        address[std::size_t(2 * count) + j] = addressOf(c[j].data_ptr());
    }
    const at::Tensor onDevice =
        at::detail::empty_cuda({3 * count}, at::kLong, device, std::nullopt);
    if (!writeOnStream(h->stream, onDevice.data_ptr(), address)) {
        return {};
    }
    const auto* pointers = static_cast<float* const*>(onDevice.data_ptr());
    const float one = 1.0f;
    const float zero = 0.0f;
    const cublasStatus_t status =
        f.sgemmBatched(h->handle, sb.op, sa.op, int(n), int(m), int(k), &one, pointers,
                       int(sb.ld), pointers + count, int(sa.ld), &zero, pointers + 2 * count,
                       int(n), int(count));
    if (status != CUBLAS_STATUS_SUCCESS) {
        return {}; // the caller makes them one by one
    }
    counted(g_directBatched);
    return c;
#else
    (void)a;
    (void)b;
    return {};
#endif
}

at::Tensor directAddmm(const at::Tensor& bias, const at::Tensor& a, const at::Tensor& b)
{
#if defined(FXSCOPE_TORCH_CUDA)
    const auto sides = productSides(a, b);
    const Cublas& f = cublas();
    const CublasLt& lt = cublasLt();
    if (!sides || !f.ok() || !lt.ok() || !bias.defined() || bias.dim() != 1 ||
        bias.scalar_type() != at::kFloat || bias.device() != a.device() ||
        bias.size(0) != b.size(1) || !bias.is_contiguous() || bias.is_neg() ||
        (!c10::InferenceMode::is_enabled() && at::GradMode::is_enabled() &&
         bias.requires_grad())) {
        return {};
    }
    const auto& [sb, sa] = *sides;
    const std::int64_t m = a.size(0);
    const std::int64_t k = a.size(1);
    const std::int64_t n = b.size(1);
    Handle* h = handleFor(f, a.device().index());
    if (!h) {
        return {};
    }
    void* workspace = workspaceFor(*h, h->stream);
    at::Tensor c = at::detail::empty_cuda({m, n}, at::kFloat, a.device(), std::nullopt);
    const void* biasData = bias.const_data_ptr();
    const LtKey key{n,
                    m,
                    k,
                    std::int64_t(sb.op),
                    std::int64_t(sa.op),
                    sb.ld,
                    sa.ld,
                    addressAlignment(b.const_data_ptr()),
                    addressAlignment(a.const_data_ptr()),
                    addressAlignment(c.const_data_ptr()),
                    addressAlignment(biasData),
                    at::globalContext().allowTF32CuBLAS() ? 1 : 0,
                    std::int64_t(h->workspaceBytes)};
    LtPlan* p = ltPlanFor(lt, *h, key);
    if (!p || !p->ok || !setDesc(lt, p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, biasData)) {
        return {};
    }
    const float one = 1.0f;
    const float zero = 0.0f;
    if (lt.matmul(h->lt, p->desc, &one, b.const_data_ptr(), p->a, a.const_data_ptr(), p->b, &zero,
                  c.data_ptr(), p->c, c.data_ptr(), p->c, &p->algo, workspace, h->workspaceBytes,
                  h->stream) != CUBLAS_STATUS_SUCCESS) {
        return {}; // LibTorch's addmm makes the call again and reports what failed
    }
    counted(g_directAddmms);
    return c;
#else
    (void)bias;
    (void)a;
    (void)b;
    return {};
#endif
}

at::Tensor matmul(const at::Tensor& a, const at::Tensor& b, bool direct)
{
    if (direct) {
        if (at::Tensor c = directMatmul(a, b); c.defined()) {
            return c;
        }
    }
    return at::mm(a, b);
}

long directMatmulCount()
{
    return g_directMatmuls.load();
}

long directAddmmCount()
{
    return g_directAddmms.load();
}

long directBatchedCount()
{
    return g_directBatched.load();
}

UncountedDirectCalls::UncountedDirectCalls()
{
    ++t_uncounted;
}

UncountedDirectCalls::~UncountedDirectCalls()
{
    --t_uncounted;
}

void runMatmulsDirectly(Plan& plan)
{
    runOperatorAs(plan, "aten::mm", mmDirect);
}

} // namespace fxs::exec::detail
