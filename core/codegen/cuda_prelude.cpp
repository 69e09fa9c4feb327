#include "core/codegen/cuda_prelude.h"

namespace fxs::codegen::detail {

// NVRTC has no standard headers, so the fixed-width types are typedef'd; the float16 conversions
// (and from sm_80 the bfloat16 rounding and float min/max) are single PTX instructions on the
// device (__CUDA_ARCH__) and portable code elsewhere, so the source also compiles as host C++.
const char* cudaPrelude()
{
    return R"cu(#if defined(__CUDACC_RTC__)
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
#define INT64_C(c) c##LL
#define INT64_MAX 9223372036854775807LL
#define INT64_MIN (-INT64_MAX - 1)
#endif

__device__ __forceinline__ float fxs_bf16_load(uint16_t v)
{
    return __uint_as_float((uint32_t)v << 16);
}
// sm_80 and later round to bfloat16 in one instruction (and min/max propagate NaN in one):
// bfloat16 row kernels are short of issue slots as much as of bandwidth.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define FXS_SM80 1
#endif
#if defined(FXS_SM80)
__device__ __forceinline__ uint16_t fxs_bf16_store(float f)
{
    uint16_t h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#else
__device__ __forceinline__ uint16_t fxs_bf16_store(float f)
{
    uint32_t u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return 0x7fc0; // NaN
    }
    u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
    return (uint16_t)(u >> 16);
}
#endif
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ float fxs_f16_load(uint16_t h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ uint16_t fxs_f16_store(float f)
{
    uint16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#else
__device__ __forceinline__ float fxs_f16_load(uint16_t h)
{
    return (float)*reinterpret_cast<const _Float16*>(&h);
}
__device__ __forceinline__ uint16_t fxs_f16_store(float f)
{
    const _Float16 h = (_Float16)f;
    return *reinterpret_cast<const uint16_t*>(&h);
}
#endif
__device__ __forceinline__ float fxs_f16_round(float f)
{
    return fxs_f16_load(fxs_f16_store(f));
}

// Reduction operators: max/min propagate NaN like eager.
struct fxs_sum {
    template <typename X> __device__ __forceinline__ X operator()(X a, X b) const { return a + b; }
};
struct fxs_max {
    __device__ __forceinline__ float operator()(float a, float b) const
    {
#if defined(FXS_SM80)
        float d;
        asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
        return d;
#else
        return (a != a || a > b) ? a : b;
#endif
    }
    __device__ __forceinline__ double operator()(double a, double b) const
    {
        return (a != a || a > b) ? a : b;
    }
    __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const { return a > b ? a : b; }
};
struct fxs_min {
    __device__ __forceinline__ float operator()(float a, float b) const
    {
#if defined(FXS_SM80)
        float d;
        asm("min.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
        return d;
#else
        return (a != a || a < b) ? a : b;
#endif
    }
    __device__ __forceinline__ double operator()(double a, double b) const
    {
        return (a != a || a < b) ? a : b;
    }
    __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};

// Reduces v over a row's group of T threads (T a power of two; groups of T < 32 lanes are
// aligned within a warp; groups of T > 32 are whole warps, one or more groups a block, each
// group's partials in the slots of its own warps). Every thread of the group gets the result.
template <int T, typename X, typename Op>
__device__ __forceinline__ X fxs_group(X v, Op op, X* sm)
{
#pragma unroll
    for (int o = (T < 32 ? T : 32) / 2; o > 0; o /= 2) {
        v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    if constexpr (T > 32) {
        const int lane = threadIdx.x & 31;
        __syncthreads(); // the previous reduction's partials have been read
        if (lane == 0) {
            sm[threadIdx.x >> 5] = v;
        }
        __syncthreads();
        v = sm[((threadIdx.x >> 5) & ~(T / 32 - 1)) + lane % (T / 32)];
#pragma unroll
        for (int o = T / 64; o > 0; o /= 2) {
            v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
        }
    }
    return v;
}
)cu";
}

} // namespace fxs::codegen::detail
