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
// cuBLAS is looked up in the process (dlsym) rather than linked: LibTorch's CUDA library loads
// it, so its entry points are there whenever a CUDA tensor is; without them the products run
// through LibTorch's mm.
#include "core/exec/direct_calls.h"
#include "core/exec/execution_plan.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <atomic>
#include <climits>
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
#include "core/exec/process_symbols.h"
#endif

namespace fxs::exec::detail {
namespace {

std::atomic<long> g_directMatmuls{0};

#if defined(FXSCOPE_TORCH_CUDA)

// cuBLAS's entry points, found in the process (LibTorch's CUDA library loaded cuBLAS).
struct Cublas {
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasSetStream_v2) setStream = nullptr;
    decltype(&cublasSetWorkspace_v2) setWorkspace = nullptr;
    decltype(&cublasSetMathMode) setMathMode = nullptr;
    decltype(&cublasSgemm_v2) sgemm = nullptr;
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
        return x;
    }();
    return c;
}

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

cublasHandle_t handleFor(const Cublas& c, c10::DeviceIndex device)
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
    return h->handle;
}

// How cuBLAS reads an operand's transpose in place: a row-major matrix is its transpose in
// column-major order (no op, leading dimension its row stride); a column-major one is itself
// in column-major order (op T, leading dimension its column stride). A single row or column
// fits either; its unused stride is not read.
struct Side {
    cublasOperation_t op = CUBLAS_OP_N;
    std::int64_t ld = 1;
};

std::optional<Side> sideOf(const at::Tensor& t)
{
    const std::int64_t rows = t.size(0);
    const std::int64_t cols = t.size(1);
    const std::int64_t s0 = t.stride(0);
    const std::int64_t s1 = t.stride(1);
    if ((cols <= 1 || s1 == 1) && (rows <= 1 || s0 >= std::max<std::int64_t>(1, cols))) {
        return Side{CUBLAS_OP_N, rows <= 1 ? std::max<std::int64_t>(1, cols) : s0};
    }
    if ((rows <= 1 || s0 == 1) && (cols <= 1 || s1 >= std::max<std::int64_t>(1, rows))) {
        return Side{CUBLAS_OP_T, cols <= 1 ? std::max<std::int64_t>(1, rows) : s1};
    }
    return std::nullopt;
}

bool fitsInt(std::int64_t v)
{
    return v > 0 && v <= INT_MAX;
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

at::Tensor directMatmul(const at::Tensor& a, const at::Tensor& b)
{
#if defined(FXSCOPE_TORCH_CUDA)
    if (!a.defined() || !b.defined() || !a.is_cuda() || a.dim() != 2 || b.dim() != 2 ||
        a.scalar_type() != at::kFloat || b.scalar_type() != at::kFloat ||
        a.device() != b.device() || a.size(1) != b.size(0) || a.is_neg() || b.is_neg()) {
        return {};
    }
    if (!c10::InferenceMode::is_enabled() && at::GradMode::is_enabled() &&
        (a.requires_grad() || b.requires_grad())) {
        return {}; // mm would record itself on the autograd graph
    }
    if (at::globalContext().deterministicAlgorithms()) {
        return {}; // mm checks cuBLAS's workspace configuration first
    }
    const std::int64_t m = a.size(0);
    const std::int64_t k = a.size(1);
    const std::int64_t n = b.size(1);
    if (!fitsInt(m) || !fitsInt(n) || !fitsInt(k) ||
        a.get_device() != c10::cuda::current_device()) {
        return {};
    }
    const auto sa = sideOf(a);
    const auto sb = sideOf(b);
    const Cublas& f = cublas();
    if (!sa || !sb || !fitsInt(sa->ld) || !fitsInt(sb->ld) || !f.ok()) {
        return {};
    }
    cublasHandle_t handle = handleFor(f, a.device().index());
    if (!handle) {
        return {};
    }
    at::Tensor c = at::detail::empty_cuda({m, n}, at::kFloat, a.device(), std::nullopt);
    const float one = 1.0f;
    const float zero = 0.0f;
    const cublasStatus_t status =
        f.sgemm(handle, sb->op, sa->op, int(n), int(m), int(k), &one,
                static_cast<const float*>(b.const_data_ptr()), int(sb->ld),
                static_cast<const float*>(a.const_data_ptr()), int(sa->ld), &zero,
                static_cast<float*>(c.data_ptr()), int(n));
    if (status != CUBLAS_STATUS_SUCCESS) {
        return {}; // LibTorch's mm makes the call again and reports what failed
    }
    ++g_directMatmuls;
    return c;
#else
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

void runMatmulsDirectly(Plan& plan)
{
    runOperatorAs(plan, "aten::mm", mmDirect);
}

} // namespace fxs::exec::detail
