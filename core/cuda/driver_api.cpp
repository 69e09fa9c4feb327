#include "core/cuda/driver_api.h"

#include "core/cuda/runtime_library.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace fxs::cuda::detail {
namespace {

Status bindAll(const RuntimeLibrary& lib, DriverApi& a)
{
    // Versioned names first: cuda.h maps the plain names to them.
    const Status s[] = {
        lib.bind(a.init, {"cuInit"}),
        lib.bind(a.driverGetVersion, {"cuDriverGetVersion"}),
        lib.bind(a.deviceGetCount, {"cuDeviceGetCount"}),
        lib.bind(a.deviceGet, {"cuDeviceGet"}),
        lib.bind(a.deviceGetName, {"cuDeviceGetName"}),
        lib.bind(a.deviceGetAttribute, {"cuDeviceGetAttribute"}),
        lib.bind(a.primaryCtxRetain, {"cuDevicePrimaryCtxRetain"}),
        lib.bind(a.ctxSetCurrent, {"cuCtxSetCurrent"}),
        lib.bind(a.ctxGetCurrent, {"cuCtxGetCurrent"}),
        lib.bind(a.moduleLoadData, {"cuModuleLoadData"}),
        lib.bind(a.moduleUnload, {"cuModuleUnload"}),
        lib.bind(a.moduleGetFunction, {"cuModuleGetFunction"}),
        lib.bind(a.funcGetAttribute, {"cuFuncGetAttribute"}),
        lib.bind(a.launchKernel, {"cuLaunchKernel"}),
        lib.bind(a.eventCreate, {"cuEventCreate"}),
        lib.bind(a.eventRecord, {"cuEventRecord"}),
        lib.bind(a.eventSynchronize, {"cuEventSynchronize"}),
        lib.bind(a.eventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}),
        lib.bind(a.eventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}),
        lib.bind(a.streamSynchronize, {"cuStreamSynchronize"}),
        lib.bind(a.memAlloc, {"cuMemAlloc_v2"}),
        lib.bind(a.memFree, {"cuMemFree_v2"}),
        lib.bind(a.memcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"}),
        lib.bind(a.memsetD8Async, {"cuMemsetD8Async"}),
        lib.bind(a.getErrorName, {"cuGetErrorName"}),
        lib.bind(a.getErrorString, {"cuGetErrorString"}),
    };
    for (const auto& st : s) {
        if (!st) {
            return st;
        }
    }
    return {};
}

Result<const DriverApi*> load()
{
    const char* env = std::getenv("FXSCOPE_LIBCUDA");
    auto lib = RuntimeLibrary::open("the CUDA driver (libcuda.so.1)",
                                    {env ? env : "", "libcuda.so.1", "libcuda.so"});
    if (!lib) {
        return lib.error();
    }
    static DriverApi api{};
    if (Status s = bindAll(*lib, api); !s) {
        return s.error();
    }
    const CUresult r = api.init(0);
    if (r == kNoDevice) {
        return makeError(ErrorCode::Unsupported, "the CUDA driver found no GPU");
    }
    if (Status s = check(api, r, "cuInit"); !s) {
        return makeError(ErrorCode::Unsupported, s.error().message);
    }
    return &api;
}

} // namespace

Result<const DriverApi*> driverApi()
{
    static const Result<const DriverApi*> api = load();
    return api;
}

Status check(const DriverApi& api, CUresult r, const std::string& what)
{
    if (r == kSuccess) {
        return {};
    }
    const char* name = nullptr;
    const char* text = nullptr;
    api.getErrorName(r, &name);
    api.getErrorString(r, &text);
    return makeError(ErrorCode::Runtime, what + " failed: " +
                                             (name ? name : "CUDA error " + std::to_string(r)) +
                                             (text ? std::string(" (") + text + ")" : ""));
}

Status useDevice(const DriverApi& api, int ordinal)
{
    // The context this thread made current last, and for which device: LibTorch may make
    // another current on this thread between two launches, so it is checked, not assumed.
    thread_local int lastOrdinal = -1;
    thread_local CUcontext lastContext = nullptr;
    if (ordinal == lastOrdinal) {
        CUcontext current = nullptr;
        if (api.ctxGetCurrent(&current) == kSuccess && current == lastContext) {
            return {};
        }
    }
    static std::mutex mutex;
    static std::map<int, CUcontext> contexts;
    CUcontext ctx = nullptr;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = contexts.find(ordinal);
        if (it == contexts.end()) {
            CUdevice dev = 0;
            if (Status s = check(api, api.deviceGet(&dev, ordinal), "cuDeviceGet"); !s) {
                return s;
            }
            // Retained for the life of the process, like LibTorch's own use of it.
            if (Status s = check(api, api.primaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
                !s) {
                return s;
            }
            contexts.emplace(ordinal, ctx);
        } else {
            ctx = it->second;
        }
    }
    Status s = check(api, api.ctxSetCurrent(ctx), "cuCtxSetCurrent");
    if (s) {
        lastOrdinal = ordinal;
        lastContext = ctx;
    }
    return s;
}

} // namespace fxs::cuda::detail
