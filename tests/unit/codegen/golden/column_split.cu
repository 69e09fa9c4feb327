// r0_kernel0: covers 2 FX node(s)
// index space [2, 300, 20], 20 column(s) x 600 row(s), 1 column reduction(s); blocks of 32 columns x 8 rows of threads, the rows split over 18 blocks a tile (partials combined in order by the last block)
__device__ float r0_kernel0_part0[360];
__device__ unsigned int r0_kernel0_done[1];
extern "C" __global__ void __launch_bounds__(256) r0_kernel0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0)
{
    __shared__ float sm0[256];
    const int tx = threadIdx.x % 32;
    const int ty = threadIdx.x / 32;
    const int tile = blockIdx.x % 1;
    const int split = blockIdx.x / 1;
    (void)split;
    const int c = tile * 32 + tx;
    const bool live = c < 20;
    float acc0 = 0.0f;
    if (live) {
        const int r1 = (split + 1) * 34 < 600 ? (split + 1) * 34 : 600;
        #pragma unroll 4
        for (int r = split * 34 + ty; r < r1; r += 8) {
            const int b0 = 0 + (r / 300) * 6000 + (r % 300) * 20;
            (void)b0;
            const int b1 = 0 + (r % 300) * 1;
            (void)b1;
            const int s0 = 0;
            (void)s0;
            const float t0 = in0[b0 + c];
            const float t1 = in1[b1];
            const float t2 = (t0 * t1);
            acc0 = fxs_sum()(acc0, t2);
        }
    }
    sm0[threadIdx.x] = acc0;
    __syncthreads();
    if (ty == 0) {
        for (int y = 1; y < 8; ++y) {
            acc0 = fxs_sum()(acc0, sm0[y * 32 + tx]);
        }
    }
    if (ty == 0 && live) {
        r0_kernel0_part0[split * 20 + c] = acc0;
    }
    __threadfence();
    __syncthreads();
    __shared__ bool lastBlock;
    if (threadIdx.x == 0) {
        lastBlock = atomicAdd(&r0_kernel0_done[tile], 1u) == 17u;
    }
    __syncthreads();
    if (!lastBlock) {
        return;
    }
    __threadfence();
    if (threadIdx.x == 0) {
        r0_kernel0_done[tile] = 0u; // for the next launch
    }
    if (ty == 0 && live) {
        acc0 = 0.0f;
        for (int p = 0; p < 18; ++p) {
            acc0 = fxs_sum()(acc0, ((volatile float*)r0_kernel0_part0)[p * 20 + c]);
        }
    }
    if (ty == 0 && live) {
        const int r = 0;
        (void)r;
        const int b0 = 0 + (r / 300) * 6000 + (r % 300) * 20;
        (void)b0;
        const int b1 = 0 + (r % 300) * 1;
        (void)b1;
        const int s0 = 0;
        (void)s0;
        const float red0 = acc0;
        const float t3 = red0;
        const float t4 = (0.00166666671f);
        const float t5 = (t3 * t4);
        out0[s0 + c] = t5;
    }
}
