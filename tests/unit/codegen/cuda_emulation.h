// Test support: runs the CUDA printer's kernels on the CPU. Force-included (g++ -include) before
// a generated CUDA translation unit, it maps the CUDA keywords and intrinsics the printer uses
// onto C++: each block runs as blockDim.x std::threads meeting at a std::barrier for
// __syncthreads and for warp shuffles (every thread of a block takes part in them, as the
// printer's kernels guarantee), blocks run one after another (so __shared__ is `static`).
// fxs_emulate(kernel, grid, block, args, n) launches a kernel whose n (<= 9) parameters are
// pointers.
#pragma once

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(n)
#define __shared__ static

struct fxs_dim3 {
    unsigned x = 0, y = 0, z = 0;
};
struct uint4 {
    unsigned x, y, z, w;
};
struct uint2 {
    unsigned x, y;
};

inline thread_local fxs_dim3 threadIdx;
inline thread_local fxs_dim3 blockIdx;
inline fxs_dim3 gridDim;
inline fxs_dim3 blockDim;
inline std::barrier<>* fxs_block_barrier = nullptr;
inline std::vector<std::uint64_t> fxs_exchange;

inline float __uint_as_float(unsigned u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline float __int_as_float(int i) { return __uint_as_float(unsigned(i)); }
inline unsigned __float_as_uint(float f)
{
    unsigned u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline double __longlong_as_double(long long i)
{
    double d;
    std::memcpy(&d, &i, 8);
    return d;
}
inline long long __double_as_longlong(double d)
{
    long long i;
    std::memcpy(&i, &d, 8);
    return i;
}

inline void __syncthreads() { fxs_block_barrier->arrive_and_wait(); }

// Column kernels that split rows over blocks: a counter per column tile and memory fences.
inline unsigned atomicAdd(unsigned* p, unsigned v)
{
    return std::atomic_ref<unsigned>(*p).fetch_add(v);
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

template <typename X>
X __shfl_xor_sync(unsigned, X v, int lane)
{
    const unsigned t = threadIdx.x;
    std::memcpy(&fxs_exchange[t], &v, sizeof v);
    fxs_block_barrier->arrive_and_wait();
    X r;
    std::memcpy(&r, &fxs_exchange[t ^ unsigned(lane)], sizeof r);
    fxs_block_barrier->arrive_and_wait();
    return r;
}

using fxs_kernel_args = void* const*;

inline void fxs_call(void* kernel, fxs_kernel_args a, int n)
{
    using P = void*;
    switch (n) {
    case 1: reinterpret_cast<void (*)(P)>(kernel)(a[0]); break;
    case 2: reinterpret_cast<void (*)(P, P)>(kernel)(a[0], a[1]); break;
    case 3: reinterpret_cast<void (*)(P, P, P)>(kernel)(a[0], a[1], a[2]); break;
    case 4: reinterpret_cast<void (*)(P, P, P, P)>(kernel)(a[0], a[1], a[2], a[3]); break;
    case 5: reinterpret_cast<void (*)(P, P, P, P, P)>(kernel)(a[0], a[1], a[2], a[3], a[4]); break;
    case 6:
        reinterpret_cast<void (*)(P, P, P, P, P, P)>(kernel)(a[0], a[1], a[2], a[3], a[4], a[5]);
        break;
    case 7:
        reinterpret_cast<void (*)(P, P, P, P, P, P, P)>(kernel)(a[0], a[1], a[2], a[3], a[4], a[5],
                                                              a[6]);
        break;
    case 8:
        reinterpret_cast<void (*)(P, P, P, P, P, P, P, P)>(kernel)(a[0], a[1], a[2], a[3], a[4],
                                                                 a[5], a[6], a[7]);
        break;
    case 9:
        reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P)>(kernel)(a[0], a[1], a[2], a[3], a[4],
                                                                    a[5], a[6], a[7], a[8]);
        break;
    default: break;
    }
}

extern "C" int fxs_emulate(void* kernel, unsigned grid, unsigned block, void* const* args,
                                  int n)
{
    if (n < 1 || n > 9 || block == 0 || block > 1024) {
        return 1;
    }
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    fxs_exchange.assign(block, 0);
    for (unsigned b = 0; b < grid; ++b) {
        std::barrier<> bar(block);
        fxs_block_barrier = &bar;
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; ++t) {
            threads.emplace_back([=] {
                threadIdx = {t, 0, 0};
                blockIdx = {b, 0, 0};
                fxs_call(kernel, args, n);
            });
        }
        for (auto& th : threads) {
            th.join();
        }
    }
    return 0;
}
