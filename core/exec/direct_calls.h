// INTERNAL to core (exec and compile): RunOptions::directMatmuls (interpreter.h). A float32
// matrix product on CUDA goes straight to cuBLAS, without LibTorch's dispatcher and mm's
// argument checks. The cuBLAS call and its arguments are the ones mm makes, so the kernels and
// values are the same; what changes is the host's time a call.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace fxs::exec::detail {

// a @ b for a float32 CUDA matrix pair that cuBLAS reads in place (each operand row- or
// column-major, with a leading dimension it accepts, every size within int), off the autograd
// graph and outside deterministic mode: cublasSgemm, as mm calls it, on this thread's handle for
// the device (the current stream, LibTorch's workspace size and float32 math mode), into a new
// contiguous [m, n] tensor. An undefined tensor when any of that does not hold, or where this
// build has no CUDA LibTorch: the caller runs LibTorch's mm instead.
at::Tensor directMatmul(const at::Tensor& a, const at::Tensor& b);

// a[i] @ b[i] for every i in one cublasSgemmBatched call, when every pair is a product
// directMatmul takes and all have one shape and one way of being read (each side's transposition
// and leading dimension): each product a new contiguous tensor. The operands' addresses are
// written to device memory by the current stream itself (the driver's 64-bit stream memory
// operations, found in the process), so a CUDA graph capture records the writes with the
// call and every replay makes them again. Empty where any of that does not hold (or the
// device has no 64-bit stream writes): the caller makes the products one by one.
std::vector<at::Tensor> directBatchedMatmul(const std::vector<at::Tensor>& a,
                                            const std::vector<at::Tensor>& b);

// bias + a @ b (addmm with beta = alpha = 1) for a contiguous float32 bias of b's columns and a
// product directMatmul takes: one cublasLtMatmul with the bias in its epilogue, as LibTorch's
// addmm calls it for such operands, its descriptors and the heuristics' first algorithm made
// once per operand shape, leading dimensions and alignments on the thread's handle. An
// undefined tensor where any of that does not hold: the caller runs LibTorch's addmm.
at::Tensor directAddmm(const at::Tensor& bias, const at::Tensor& a, const at::Tensor& b);

// directMatmul when `direct` and it applies, else at::mm.
at::Tensor matmul(const at::Tensor& a, const at::Tensor& b, bool direct);

// Products this process made directly so far, on every thread (tests, and a compiled run's
// count: CompiledGraphReport::directMatmuls).
long directMatmulCount();

// The same for directAddmm.
long directAddmmCount();

// The same for directBatchedMatmul (one a call).
long directBatchedCount();

// How a column-major BLAS reads a row-major [rows, cols] operand with these strides (in
// elements) in place: a row-major matrix is its own transpose in column-major order (not
// transposed, leading dimension its row stride); a column-major one is itself (transposed,
// leading dimension its column stride). A single row or column fits either, its unused stride
// not read. nullopt when neither fits (broadcast or overlapping rows, gaps between elements).
// Torch-free, so the CPU tests check what the CUDA calls describe.
struct ColumnMajorOperand {
    bool transposed = false;
    std::int64_t ld = 1;
    bool operator==(const ColumnMajorOperand&) const = default;
};
std::optional<ColumnMajorOperand> columnMajorOperand(std::int64_t rows, std::int64_t cols,
                                                     std::int64_t rowStride,
                                                     std::int64_t colStride);

// The largest power of two up to 256 that divides the address (cuBLASLt's alignment hints).
std::int64_t alignmentOf(std::uintptr_t address);

// While one lives, this thread's direct calls are not counted (the calls that time a choice
// of kernels are not the run's).
struct UncountedDirectCalls {
    UncountedDirectCalls();
    ~UncountedDirectCalls();
    UncountedDirectCalls(const UncountedDirectCalls&) = delete;
    UncountedDirectCalls& operator=(const UncountedDirectCalls&) = delete;
};

} // namespace fxs::exec::detail
