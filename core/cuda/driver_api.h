// INTERNAL to core/cuda: the CUDA driver API functions fxscope uses, looked up with dlsym in
// libcuda.so.1 at run time. The types are declared here (the ABI of cuda.h, which is therefore
// not needed to build): opaque handles, int results and enums by value. Never included outside
// core/cuda; public headers speak of devices, modules and streams as plain values.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <string>

namespace fxs::cuda::detail {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;

inline constexpr CUresult kSuccess = 0;
inline constexpr CUresult kNoDevice = 100;
// cuDeviceGetAttribute
inline constexpr int kAttrMultiprocessors = 16;
inline constexpr int kAttrL2Bytes = 38;
inline constexpr int kAttrMajor = 75;
inline constexpr int kAttrMinor = 76;
// cuFuncGetAttribute
inline constexpr int kFuncLocalBytes = 3;
inline constexpr int kFuncRegisters = 4;

struct DriverApi {
    CUresult (*init)(unsigned);
    CUresult (*driverGetVersion)(int*);
    CUresult (*deviceGetCount)(int*);
    CUresult (*deviceGet)(CUdevice*, int);
    CUresult (*deviceGetName)(char*, int, CUdevice);
    CUresult (*deviceGetAttribute)(int*, int, CUdevice);
    CUresult (*primaryCtxRetain)(CUcontext*, CUdevice);
    CUresult (*ctxSetCurrent)(CUcontext);
    CUresult (*ctxGetCurrent)(CUcontext*);
    CUresult (*moduleLoadData)(CUmodule*, const void*);
    CUresult (*moduleUnload)(CUmodule);
    CUresult (*moduleGetFunction)(CUfunction*, CUmodule, const char*);
    CUresult (*funcGetAttribute)(int*, int, CUfunction);
    CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void**, void**);
    CUresult (*eventCreate)(CUevent*, unsigned);
    CUresult (*eventRecord)(CUevent, CUstream);
    CUresult (*eventSynchronize)(CUevent);
    CUresult (*eventElapsedTime)(float*, CUevent, CUevent);
    CUresult (*eventDestroy)(CUevent);
    CUresult (*streamSynchronize)(CUstream);
    CUresult (*memAlloc)(CUdeviceptr*, std::size_t);
    CUresult (*memFree)(CUdeviceptr);
    CUresult (*memcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream);
    CUresult (*memsetD8Async)(CUdeviceptr, unsigned char, std::size_t, CUstream);
    CUresult (*getErrorName)(CUresult, const char**);
    CUresult (*getErrorString)(CUresult, const char**);
};

// The process-wide table (loaded and cuInit'ed once). Error::Unsupported when libcuda.so.1
// cannot be loaded, a function is missing or cuInit fails (no driver, no device).
Result<const DriverApi*> driverApi();

// Error::Runtime "<what> failed: CUDA_ERROR_X (description)"; success for kSuccess.
Status check(const DriverApi& api, CUresult r, const std::string& what);

// Makes the device's primary context (the one LibTorch's runtime uses) current on this thread.
// Called before every launch: when this thread made that context current last and it still is
// (one cuCtxGetCurrent), nothing else is done.
Status useDevice(const DriverApi& api, int ordinal);

} // namespace fxs::cuda::detail
