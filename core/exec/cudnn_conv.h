// INTERNAL to core (exec and compile): a convolution and its per-channel epilogue as one cuDNN
// graph (compile::ConvEpilogue, conv_fusion.h). LibTorch's convolution spends some 20 us of host
// time a call around cuDNN (the dispatcher, its argument checks, its plan cache's key and
// lookup, a variant pack built every call), and the batch norm, residual add and relu after it
// are one more kernel. Here the plan is built once per shape (cuDNN's runtime fusion: the
// convolution's kernel applies the epilogue as it writes), the call is a variant pack and one
// cudnnBackendExecute: about 6-8 us of host time on an H200's host, one kernel.
//
// cuDNN is looked up in the process (dlsym) rather than linked, as cuBLAS is (direct_calls.cpp):
// LibTorch's CUDA library loads it. Builds without a CUDA LibTorch, or without cuDNN's headers,
// make nothing here: every call returns an undefined tensor and the caller runs LibTorch.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace fxs::exec::detail {

struct FusedConvParams {
    std::array<std::int64_t, 2> stride{1, 1};
    std::array<std::int64_t, 2> padding{0, 0};
    std::array<std::int64_t, 2> dilation{1, 1};
    bool relu = false;
};

// y = conv(x, w) * scale + shift (+ residual), then relu when asked, per output channel k:
// scale[k], shift[k]. float32 CUDA tensors on the current device, x and w 4-D and dense
// channels_last (NHWC, KRSC), scale and shift contiguous [K], residual (may be undefined) dense
// channels_last of y's sizes, every data pointer 16-byte aligned; off the autograd graph, TF32
// allowed for cuDNN (LibTorch's default: its convolutions round so too), not in deterministic
// mode. y is a new channels_last tensor. The first call of a shape builds its plan: cuDNN's
// heuristics' first configurations that build (up to three), each timed on this call's
// operands, the fastest kept for the process. An undefined tensor when any of that does not
// hold, when no plan builds, or when a CUDA graph is being captured and the shape has no plan
// yet: the caller computes the same with LibTorch. With scale and shift both undefined the
// graph is the convolution alone (and the relu, when asked): a convolution no epilogue follows,
// such as ResNet's stem, whose 3 input channels cuDNN's runtime fusion does not take, runs
// through a plan kept as the fused ones are, without LibTorch's host time around it.
at::Tensor cudnnFusedConv(const at::Tensor& x, const at::Tensor& w, const at::Tensor& scale,
                          const at::Tensor& shift, const at::Tensor& residual,
                          const FusedConvParams& params);

// y's sizes (N, K, P, Q) for x (N, C, H, W), w (K, C, R, S) and the parameters, as the
// operation graph describes them; nullopt when they make no output (a kernel wider than the
// padded input, a stride or dilation under 1, negative padding) or the channels differ.
// Torch-free: the CPU tests check it against LibTorch's convolution.
std::optional<std::array<std::int64_t, 4>> fusedConvOutputSizes(
    const std::array<std::int64_t, 4>& x, const std::array<std::int64_t, 4>& w,
    const FusedConvParams& params);

// A shape cudnnFusedConv will be called with: x's and w's sizes (NCHW, KCRS), the parameters,
// whether a residual is added.
struct FusedConvShape {
    std::array<std::int64_t, 4> x{};
    std::array<std::int64_t, 4> w{};
    FusedConvParams params;
    bool residual = false;
};

// Builds the plans of these shapes on the current device ahead of their first calls: the
// candidate plans of `threads` shapes at once (runtime-fused kernels compile as a plan is built,
// 0.3-1 s each; each builder thread has a cuDNN handle of its own), then each shape's
// candidates timed one after another on the current stream, on zeroed scratch operands, as a
// first call would. Shapes with a plan already are skipped, as is everything where
// cudnnFusedConv would decline (no cuDNN, TF32 off, deterministic mode, a capture under way).
// Returns how many shapes got a plan.
int prebuildFusedConvPlans(const std::vector<FusedConvShape>& shapes, int threads);

// Whether cudnnFusedConv can run at all in this process: a CUDA LibTorch build with cuDNN's
// headers, and cuDNN's backend entry points found in the process.
bool cudnnFusedConvAvailable();

// Calls made by cuDNN so far in this process, on every thread (a compiled run's count).
long cudnnFusedConvCount();

struct CudnnPlanCounts {
    int shapes = 0;        // shapes with a plan
    int failed = 0;        // shapes with none (their calls return undefined)
    int candidates = 0;    // plans built and timed
    double buildMs = 0.0;  // host time spent building and timing them
};
CudnnPlanCounts cudnnPlanCounts();

} // namespace fxs::exec::detail
