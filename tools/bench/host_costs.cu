// The host's cost of the calls a compiled run is made of, on the GPU machine: a clock read, a
// system call, a small host allocation, a kernel launch (runtime and driver API), an event
// record, cuBLAS float32 products (cublasSgemm) and the same products through cuBLASLt with
// their descriptors and algorithm made once. Each figure is the median over 15 batches of the
// host's time a call, a batch short enough (200 calls) that the GPU's queue never fills, so
// the host never waits for the device. Sizes: GPT-12's step (256 rows, 256 to 1024 wide).
// `host_costs quick`: the CPU it runs on, an integer loop, a launch and one product only.
// Built and run by host_costs.sh.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                                  \
    do {                                                                                       \
        if (auto e_ = (x); e_ != 0) {                                                          \
            std::printf("%s failed: %d\n", #x, int(e_));                                       \
            std::exit(1);                                                                      \
        }                                                                                      \
    } while (0)

__global__ void empty8(float*, float*, float*, float*, long, long, int, float) {}

using Clock = std::chrono::steady_clock;

// The median over batches of the host's time a call (the first two batches dropped).
double perCallUs(int calls, const std::function<void()>& f, bool sync = true)
{
    std::vector<double> batches;
    for (int b = 0; b < 17; ++b) {
        if (sync) {
            CK(cudaDeviceSynchronize());
        }
        const auto t0 = Clock::now();
        for (int i = 0; i < calls; ++i) {
            f();
        }
        const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        if (b >= 2) {
            batches.push_back(us / calls);
        }
    }
    if (sync) {
        CK(cudaDeviceSynchronize());
    }
    std::sort(batches.begin(), batches.end());
    return batches[batches.size() / 2];
}

int main(int argc, char** argv)
{
    const bool quick = argc > 1 && std::string(argv[1]) == "quick";
    CK(cudaSetDevice(0));
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float* buf;
    CK(cudaMalloc(&buf, 64 << 20));
    volatile long sink = 0;
    if (quick) {
        unsigned long x = 1;
        const double loop = perCallUs(20, [&] {
            for (int i = 0; i < 100000; ++i) {
                x = x * 6364136223846793005ul + 1442695040888963407ul;
            }
            sink += long(x);
        }, false);
        std::printf("cpu %d: integer loop %.3f ns a step, ", sched_getcpu(), loop * 10 / 1000);
    } else {
        std::printf("clock read: %.3f us\n", perCallUs(20000, [&] {
            sink += Clock::now().time_since_epoch().count();
        }, false));
        std::printf("system call (getppid): %.3f us\n",
                    perCallUs(2000, [&] { sink += syscall(SYS_getppid); }, false));
        std::printf("malloc+free 256 B: %.3f us\n", perCallUs(20000, [&] {
            void* p = std::malloc(256);
            sink += long(p);
            std::free(p);
        }, false));
        empty8<<<1, 32, 0, stream>>>(buf, buf, buf, buf, 1, 2, 3, 1.f);
        CK(cudaStreamSynchronize(stream));
        std::printf("launch <<<>>> 8 args: %.3f us\n", perCallUs(200, [&] {
            empty8<<<132, 256, 0, stream>>>(buf, buf, buf, buf, 1, 2, 3, 1.f);
        }));
    }
    CUfunction fn;
    CK(cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(empty8)));
    long n = 1;
    long m = 2;
    int k = 3;
    float s = 1.f;
    void* params[] = {&buf, &buf, &buf, &buf, &n, &m, &k, &s};
    std::printf("cuLaunchKernel 8 args: %.3f us%s", perCallUs(200, [&] {
        CK(cuLaunchKernel(fn, 132, 1, 1, 256, 1, 1, 0, CUstream(stream), params, nullptr));
    }), quick ? ", " : "\n");
    if (!quick) {
        cudaEvent_t ev;
        CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        std::printf("event record: %.3f us\n",
                    perCallUs(200, [&] { CK(cudaEventRecord(ev, stream)); }));
    }
    cublasHandle_t h;
    CK(cublasCreate(&h));
    CK(cublasSetStream(h, stream));
    void* ws;
    const size_t wsBytes = 32 << 20;
    CK(cudaMalloc(&ws, wsBytes));
    CK(cublasSetWorkspace(h, ws, wsBytes));
    const int shapes[][3] = {{256, 768, 256}, {256, 256, 1024}, {1024, 256, 256}, {256, 1000, 256}};
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (const auto& sh : shapes) {
        const int M = sh[0], N = sh[1], K = sh[2]; // C[M, N] = A[M, K] B[K, N], row-major
        const float one = 1, zero = 0;
        const float* A = buf;
        const float* B = buf + (4 << 20);
        float* C = buf + (8 << 20);
        const auto sgemm = [&] {
            CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
        };
        sgemm();
        const double hostSgemm = perCallUs(200, sgemm);
        if (quick) {
            std::printf("cublasSgemm %dx%dx%d %.3f us\n", M, N, K, hostSgemm);
            return 0;
        }
        auto lt = reinterpret_cast<cublasLtHandle_t>(h); // a cuBLAS handle is a cuBLASLt one
        cublasLtMatmulDesc_t desc;
        CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        cublasLtMatrixLayout_t la, lb, lc;
        CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, N, K, N));
        CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, K, M, K));
        CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, M, N));
        cublasLtMatmulPreference_t pref;
        CK(cublasLtMatmulPreferenceCreate(&pref));
        CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &wsBytes, sizeof wsBytes));
        cublasLtMatmulHeuristicResult_t res;
        int found = 0;
        CK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &res, &found));
        const auto ltmm = [&] {
            CK(cublasLtMatmul(lt, desc, &one, B, la, A, lb, &zero, C, lc, C, lc, &res.algo, ws,
                              wsBytes, stream));
        };
        ltmm();
        const double hostLt = perCallUs(200, ltmm);
        const double heuristic = perCallUs(200, [&] {
            int f;
            cublasLtMatmulHeuristicResult_t r;
            CK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &r, &f));
        }, false);
        // GPU time a product, 100 back to back between two events.
        const auto gpuUs = [&](const std::function<void()>& f) {
            CK(cudaEventRecord(e0, stream));
            for (int i = 0; i < 100; ++i) {
                f();
            }
            CK(cudaEventRecord(e1, stream));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            return ms * 10.0;
        };
        gpuUs(sgemm);
        gpuUs(ltmm);
        std::printf("%dx%dx%d: cublasSgemm %.3f us host (GPU %.2f us), cublasLtMatmul kept %.3f "
                    "us host (GPU %.2f), heuristic query %.3f us\n",
                    M, N, K, hostSgemm, gpuUs(sgemm), hostLt, gpuUs(ltmm), heuristic);
    }
    return 0;
}
