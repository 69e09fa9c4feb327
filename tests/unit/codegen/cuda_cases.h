// Test support: regions that exercise every kernel shape of the CUDA printer, written as graph
// code (the whole graph is the region). Shared by the printer's CPU-emulated run and the NVRTC
// compile test. Each case lowers to one program whose kernel names are prefixed by the case
// name, so all cases print into one translation unit.
#pragma once

#include "core/codegen/lowering.h"
#include "core/io/graph_code_parser.h"

#include <string>
#include <vector>

namespace fxs::testing {

struct CudaCase {
    const char* name;
    const char* code;
    // Times the comparison's relative tolerance: for outputs that cancel on random inputs (a
    // layer norm backward's grad_input with random mean and rstd), where the two kernels'
    // summation orders differ by more than float rounding of the result.
    double tolerance = 1;
};

inline const std::vector<CudaCase>& cudaCases()
{
    static const std::vector<CudaCase> cases = {
        // Flat pointwise, 1003 elements: a vector body and a scalar tail.
        {"chain", R"(def forward(self, x: "f32[1003][1]cuda:0", y: "f32[1003][1]cuda:0"):
    sin: "f32[1003][1]cuda:0" = torch.ops.aten.sin.default(x)
    mul: "f32[1003][1]cuda:0" = torch.ops.aten.mul.Tensor(sin, y)
    add: "f32[1003][1]cuda:0" = torch.ops.aten.add.Tensor(mul, 1.0)
    relu: "f32[1003][1]cuda:0" = torch.ops.aten.relu.default(add)
    neg: "f32[1003][1]cuda:0" = torch.ops.aten.neg.default(relu)
    exp: "f32[1003][1]cuda:0" = torch.ops.aten.exp.default(neg)
    tanh: "f32[1003][1]cuda:0" = torch.ops.aten.tanh.default(y)
    add_1: "f32[1003][1]cuda:0" = torch.ops.aten.add.Tensor(exp, tanh)
    sigmoid: "f32[1003][1]cuda:0" = torch.ops.aten.sigmoid.default(add_1)
    mul_1: "f32[1003][1]cuda:0" = torch.ops.aten.mul.Tensor(sigmoid, x)
    return (mul_1,)
)"},
        // bfloat16 in, bfloat16 and float16 out: 16-bit words.
        {"halves", R"(def forward(self, x: "bf16[1000][1]cuda:0"):
    erf: "bf16[1000][1]cuda:0" = torch.ops.aten.erf.default(x)
    _to_copy: "f16[1000][1]cuda:0" = torch.ops.aten._to_copy.default(erf, dtype = torch.float16)
    return (erf, _to_copy)
)"},
        // float32 in, bool out: 8 elements a chunk, the bool store is one 64-bit word.
        {"bools", R"(def forward(self, x: "f32[64][1]cuda:0", y: "f32[64][1]cuda:0"):
    gt: "b8[64][1]cuda:0" = torch.ops.aten.gt.Tensor(x, y)
    where: "f32[64][1]cuda:0" = torch.ops.aten.where.self(gt, x, y)
    return (gt, where)
)"},
        {"int64", R"(def forward(self, x: "i64[40][1]cuda:0", y: "i64[40][1]cuda:0"):
    add: "i64[40][1]cuda:0" = torch.ops.aten.add.Tensor(x, y)
    mul: "i64[40][1]cuda:0" = torch.ops.aten.mul.Tensor(add, 3)
    return (mul,)
)"},
        // Rows of 33 with a broadcast row vector: a row pointwise kernel without vectors.
        {"rowbias", R"(def forward(self, x: "f32[7, 33][33, 1]cuda:0", b: "f32[33][1]cuda:0"):
    add: "f32[7, 33][33, 1]cuda:0" = torch.ops.aten.add.Tensor(x, b)
    gelu: "f32[7, 33][33, 1]cuda:0" = torch.ops.aten.gelu.default(add)
    return (gelu,)
)"},
        // A transposed input: gathered loads.
        {"gather", R"(def forward(self, x: "f32[8, 12][12, 1]cuda:0", y: "f32[12, 8][8, 1]cuda:0"):
    permute: "f32[12, 8][1, 12]cuda:0" = torch.ops.aten.permute.default(x, [1, 0])
    add: "f32[12, 8][8, 1]cuda:0" = torch.ops.aten.add.Tensor(permute, y)
    return (add,)
)"},
        // Short rows: one thread per row, 128 rows a block.
        {"smallrows", R"(def forward(self, x: "f32[300, 8][8, 1]cuda:0", w: "f32[8][1]cuda:0"):
    _softmax: "f32[300, 8][8, 1]cuda:0" = torch.ops.aten._softmax.default(x, -1, False)
    mul: "f32[300, 8][8, 1]cuda:0" = torch.ops.aten.mul.Tensor(_softmax, w)
    return (mul,)
)"},
        // Rows of 1000: a block of 128 threads per row, chunks past the row's end.
        {"softmax_ln", R"(def forward(self, x: "f32[5, 1000][1000, 1]cuda:0", w: "f32[1000][1]cuda:0", b: "f32[1000][1]cuda:0"):
    _softmax: "f32[5, 1000][1000, 1]cuda:0" = torch.ops.aten._softmax.default(x, -1, False)
    add: "f32[5, 1000][1000, 1]cuda:0" = torch.ops.aten.add.Tensor(_softmax, x)
    native_layer_norm = torch.ops.aten.native_layer_norm.default(add, [1000], w, b, 1e-05)
    getitem: "f32[5, 1000][1000, 1]cuda:0" = native_layer_norm[0]
    getitem_1: "f32[5, 1][1, 1]cuda:0" = native_layer_norm[1]
    getitem_2: "f32[5, 1][1, 1]cuda:0" = native_layer_norm[2]
    return (getitem, getitem_1, getitem_2)
)"},
        // Rows of 96 in a warp-sized group, amax and a sum with per-row outputs.
        {"rowstats", R"(def forward(self, x: "f32[9, 96][96, 1]cuda:0"):
    amax: "f32[9, 1][1, 1]cuda:0" = torch.ops.aten.amax.default(x, [-1], True)
    sum_1: "f32[9, 1][1, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(x, [-1], True)
    sub: "f32[9, 96][96, 1]cuda:0" = torch.ops.aten.sub.Tensor(x, amax)
    return (amax, sum_1, sub)
)"},
        // float16 rows: vectors of 8 halves.
        {"halfrows", R"(def forward(self, x: "f16[4, 256][256, 1]cuda:0"):
    _log_softmax: "f16[4, 256][256, 1]cuda:0" = torch.ops.aten._log_softmax.default(x, -1, False)
    return (_log_softmax,)
)"},
        // bfloat16 rows of 40 (a chunk past the row's end): pipelined, each group takes several
        // rows, fetching the next one's words ahead; spare groups in the last step.
        {"bf16rows", R"(def forward(self, x: "bf16[300, 40][40, 1]cuda:0", w: "bf16[40][1]cuda:0", b: "bf16[40][1]cuda:0"):
    _softmax: "bf16[300, 40][40, 1]cuda:0" = torch.ops.aten._softmax.default(x, -1, False)
    add: "bf16[300, 40][40, 1]cuda:0" = torch.ops.aten.add.Tensor(_softmax, x)
    native_layer_norm = torch.ops.aten.native_layer_norm.default(add, [40], w, b, 1e-05)
    getitem: "bf16[300, 40][40, 1]cuda:0" = native_layer_norm[0]
    return (getitem,)
)"},
        // float64: two doubles a 128-bit vector, double math, a double row reduction across warps.
        {"doubles", R"(def forward(self, x: "f64[3, 600][600, 1]cuda:0", y: "f64[600][1]cuda:0"):
    mul: "f64[3, 600][600, 1]cuda:0" = torch.ops.aten.mul.Tensor(x, y)
    exp: "f64[3, 600][600, 1]cuda:0" = torch.ops.aten.exp.default(mul)
    _softmax: "f64[3, 600][600, 1]cuda:0" = torch.ops.aten._softmax.default(exp, -1, False)
    amax: "f64[3, 1][1, 1]cuda:0" = torch.ops.aten.amax.default(mul, [-1], True)
    return (_softmax, amax)
)"},
        // Rows of 512: two warps a row, two rows a block (each row's partials in its own slots).
        {"pairrows", R"(def forward(self, x: "f32[5, 512][512, 1]cuda:0"):
    _softmax: "f32[5, 512][512, 1]cuda:0" = torch.ops.aten._softmax.default(x, -1, False)
    return (_softmax,)
)"},
        // Rows of 40000: too long for registers, every phase streams the row again.
        {"longrows", R"(def forward(self, x: "f32[2, 40000][40000, 1]cuda:0"):
    _softmax: "f32[2, 40000][40000, 1]cuda:0" = torch.ops.aten._softmax.default(x, -1, False)
    return (_softmax,)
)"},
        // The rotary half swap: a cat along the row of a computed and a sliced part, each read
        // only in its range (guarded gathers), chosen by the index along the row.
        {"rope", R"(def forward(self, q: "f32[2, 8, 4, 16][512, 64, 16, 1]cuda:0", cos: "f32[8, 16][16, 1]cuda:0", sin: "f32[8, 16][16, 1]cuda:0"):
    transpose: "f32[2, 4, 8, 16][512, 16, 64, 1]cuda:0" = torch.ops.aten.transpose.int(q, 1, 2)
    mul: "f32[2, 4, 8, 16][512, 128, 16, 1]cuda:0" = torch.ops.aten.mul.Tensor(transpose, cos)
    slice_1: "f32[2, 4, 8, 8][512, 16, 64, 1]cuda:0" = torch.ops.aten.slice.Tensor(transpose, 3, 0, 8)
    slice_2: "f32[2, 4, 8, 8][512, 16, 64, 1]cuda:0" = torch.ops.aten.slice.Tensor(transpose, 3, 8, 9223372036854775807)
    neg: "f32[2, 4, 8, 8][256, 64, 8, 1]cuda:0" = torch.ops.aten.neg.default(slice_2)
    cat: "f32[2, 4, 8, 16][512, 128, 16, 1]cuda:0" = torch.ops.aten.cat.default([neg, slice_1], -1)
    mul_1: "f32[2, 4, 8, 16][512, 128, 16, 1]cuda:0" = torch.ops.aten.mul.Tensor(cat, sin)
    add: "f32[2, 4, 8, 16][512, 128, 16, 1]cuda:0" = torch.ops.aten.add.Tensor(mul, mul_1)
    return (add,)
)"},
        // Three parts along the row of a softmax: guarded loads in the reduction's phases.
        {"catrows", R"(def forward(self, x: "f32[5, 10][10, 1]cuda:0", y: "f32[5, 7][7, 1]cuda:0", z: "f32[5, 3][3, 1]cuda:0"):
    exp: "f32[5, 10][10, 1]cuda:0" = torch.ops.aten.exp.default(x)
    neg: "f32[5, 3][3, 1]cuda:0" = torch.ops.aten.neg.default(z)
    cat: "f32[5, 20][20, 1]cuda:0" = torch.ops.aten.cat.default([exp, y, neg], -1)
    _softmax: "f32[5, 20][20, 1]cuda:0" = torch.ops.aten._softmax.default(cat, -1, False)
    return (_softmax,)
)"},
        // Parts along the rows (guards on the row index), one a broadcast along the row.
        {"catouter", R"(def forward(self, a: "f32[2, 1][1, 1]cuda:0", y: "f32[3, 32][32, 1]cuda:0", z: "f32[1, 32][32, 1]cuda:0", w: "f32[32][1]cuda:0"):
    expand: "f32[2, 32][1, 0]cuda:0" = torch.ops.aten.expand.default(a, [2, 32])
    cat: "f32[6, 32][32, 1]cuda:0" = torch.ops.aten.cat.default([expand, y, z])
    mul: "f32[6, 32][32, 1]cuda:0" = torch.ops.aten.mul.Tensor(cat, w)
    return (mul,)
)"},
        // A flat kernel: a cat of two vectors, a scalar_tensor and an arange by the flat index.
        {"catflat", R"(def forward(self, x: "f32[600][1]cuda:0", y: "f32[403][1]cuda:0"):
    cat: "f32[1003][1]cuda:0" = torch.ops.aten.cat.default([x, y])
    gt: "b8[1003][1]cuda:0" = torch.ops.aten.gt.Scalar(cat, 0)
    scalar_tensor: "f32[][]cuda:0" = torch.ops.aten.scalar_tensor.default(-2.5, dtype = torch.float32, device = device(type='cuda', index=0))
    where: "f32[1003][1]cuda:0" = torch.ops.aten.where.self(gt, cat, scalar_tensor)
    arange: "i64[1003][1]cuda:0" = torch.ops.aten.arange.default(1003, device = device(type='cuda', index=0), pin_memory = False)
    add: "f32[1003][1]cuda:0" = torch.ops.aten.add.Tensor(where, arange)
    return (add,)
)"},
        // LLaMA's repeat_kv backward into the rotary embedding's backward: a sum over the
        // middle dim (2 elements) of a strided input unrolled, two slices of a computed value
        // (guarded, shifted loads), their placed gradients, a transposed contiguous store.
        {"repeatkv", R"(def forward(self, k: "f32[2, 4, 8, 16][512, 16, 64, 1]cuda:0", cos: "f32[1, 1, 8, 16][128, 128, 16, 1]cuda:0", sin: "f32[1, 1, 8, 16][128, 128, 16, 1]cuda:0"):
    view: "f32[2, 2, 2, 8, 16][512, 32, 16, 64, 1]cuda:0" = torch.ops.aten.view.default(k, [2, 2, 2, 8, 16])
    sum_1: "f32[2, 2, 1, 8, 16][256, 128, 128, 16, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(view, [2], True)
    squeeze: "f32[2, 2, 8, 16][256, 128, 16, 1]cuda:0" = torch.ops.aten.squeeze.dim(sum_1, 2)
    mul: "f32[2, 2, 8, 16][256, 128, 16, 1]cuda:0" = torch.ops.aten.mul.Tensor(squeeze, cos)
    slice_1: "f32[2, 2, 8, 8][256, 128, 16, 1]cuda:0" = torch.ops.aten.slice.Tensor(mul, 3, 0, 8)
    slice_2: "f32[2, 2, 8, 8][256, 128, 16, 1]cuda:0" = torch.ops.aten.slice.Tensor(mul, 3, 8, 16)
    neg: "f32[2, 2, 8, 8][128, 64, 8, 1]cuda:0" = torch.ops.aten.neg.default(slice_1)
    slice_backward: "f32[2, 2, 8, 16][256, 128, 16, 1]cuda:0" = torch.ops.aten.slice_backward.default(neg, [2, 2, 8, 16], 3, 8, 9223372036854775807, 1)
    slice_backward_1: "f32[2, 2, 8, 16][256, 128, 16, 1]cuda:0" = torch.ops.aten.slice_backward.default(slice_2, [2, 2, 8, 16], 3, 0, 8, 1)
    add: "f32[2, 2, 8, 16][256, 128, 16, 1]cuda:0" = torch.ops.aten.add.Tensor(slice_backward, slice_backward_1)
    mul_1: "f32[2, 2, 8, 16][256, 128, 16, 1]cuda:0" = torch.ops.aten.mul.Tensor(squeeze, sin)
    add_1: "f32[2, 2, 8, 16][256, 128, 16, 1]cuda:0" = torch.ops.aten.add.Tensor(add, mul_1)
    transpose: "f32[2, 8, 2, 16][256, 16, 128, 1]cuda:0" = torch.ops.aten.transpose.int(add_1, 1, 2)
    clone: "f32[2, 8, 2, 16][256, 32, 16, 1]cuda:0" = torch.ops.aten.clone.default(transpose, memory_format = torch.contiguous_format)
    return (clone,)
)"},
        // Column reductions (loop_ir.h: Kernel::columns). 37 rows x 300 columns: a pointwise
        // output and the column sum of the same values from one kernel, then a view.
        {"colsum", R"(def forward(self, x: "f32[37, 300][300, 1]cuda:0", y: "f32[37, 300][300, 1]cuda:0"):
    gelu_backward: "f32[37, 300][300, 1]cuda:0" = torch.ops.aten.gelu_backward.default(x, y)
    sum_1: "f32[1, 300][300, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(gelu_backward, [0], True)
    view: "f32[300][1]cuda:0" = torch.ops.aten.view.default(sum_1, [300])
    return (gelu_backward, view)
)"},
        // 600 rows over two leading dims, 20 columns: the rows split over blocks (partials
        // combined by the last block); mean and amax of a row-broadcast product, not keepdim.
        {"colsplit", R"(def forward(self, x: "f32[2, 300, 20][6000, 20, 1]cuda:0", w: "f32[300, 1][1, 1]cuda:0"):
    mul: "f32[2, 300, 20][6000, 20, 1]cuda:0" = torch.ops.aten.mul.Tensor(x, w)
    mean: "f32[20][1]cuda:0" = torch.ops.aten.mean.dim(mul, [0, 1])
    amax: "f32[1, 1, 20][20, 20, 1]cuda:0" = torch.ops.aten.amax.default(mul, [0, 1], True)
    return (mean, amax)
)"},
        // 64 rows x 64 columns: too few rows to split over blocks well, so one block of 8
        // columns x 64 rows of threads per tile takes them all (a row a thread, the 64 partials
        // halved in a tree to 8, then in order); a pointwise output stored along the rows.
        // (tst_cuda_printer checks the plan of LLaMA's 128 x 256 RMSNorm weight gradient.)
        {"colrows", R"(def forward(self, x: "f32[2, 32, 64][2048, 64, 1]cuda:0", y: "f32[2, 32, 64][2048, 64, 1]cuda:0", w: "f32[64][1]cuda:0"):
    add: "f32[2, 32, 64][2048, 64, 1]cuda:0" = torch.ops.aten.add.Tensor(x, y)
    mul: "f32[2, 32, 64][2048, 64, 1]cuda:0" = torch.ops.aten.mul.Tensor(add, w)
    mul_1: "f32[2, 32, 64][2048, 64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul, y)
    sum_1: "f32[1, 1, 64][64, 64, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_1, [0, 1], True)
    view: "f32[64][1]cuda:0" = torch.ops.aten.view.default(sum_1, [64])
    return (mul, view)
)"},
        // bfloat16 in and out, accumulated in float; two kept dims (3 x 40 columns) and a
        // per-column weight read in the epilogue.
        {"colhalf", R"(def forward(self, x: "bf16[64, 3, 40][120, 40, 1]cuda:0", y: "bf16[64, 3, 40][120, 40, 1]cuda:0", w: "bf16[40][1]cuda:0"):
    mul: "bf16[64, 3, 40][120, 40, 1]cuda:0" = torch.ops.aten.mul.Tensor(x, y)
    sum_1: "bf16[3, 40][40, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul, [0])
    mul_1: "bf16[3, 40][40, 1]cuda:0" = torch.ops.aten.mul.Tensor(sum_1, w)
    return (mul_1,)
)"},
        // Two middle dims, 40 x 2 = 80 rows (too many to unroll): F permuted so that they
        // lead, the kept 3 x 16 columns after them in order; an epilogue product.
        {"colmiddle", R"(def forward(self, x: "f32[3, 40, 2, 16][1280, 32, 16, 1]cuda:0", w: "f32[16][1]cuda:0"):
    sum_1: "f32[3, 1, 1, 16][16, 16, 16, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(x, [1, 2], True)
    mul: "f32[3, 1, 1, 16][16, 16, 16, 1]cuda:0" = torch.ops.aten.mul.Tensor(sum_1, w)
    return (mul,)
)"},
        // GPT-12's qkv gradient (tst_view_fusion): clone/_unsafe_view/transpose chains over
        // strided inputs (sub-dims), placed by select_backward, summed, permuted, viewed with
        // the index space permuted to the view's order, and a column sum of it: one column
        // kernel whose rows are the permuted F's leading dims.
        {"qkvgrad", R"(def forward(self, q: "f32[2, 3, 5, 4][60, 4, 12, 1]cuda:0", k: "f32[2, 3, 5, 4][60, 4, 12, 1]cuda:0", v: "f32[2, 3, 5, 4][60, 4, 12, 1]cuda:0"):
    clone_a0: "f32[2, 3, 5, 4][60, 20, 4, 1]cuda:0" = torch.ops.aten.clone.default(v, memory_format = torch.contiguous_format)
    _unsafe_view_a0: "f32[6, 5, 4][20, 4, 1]cuda:0" = torch.ops.aten._unsafe_view.default(clone_a0, [6, 5, 4])
    transpose_a0: "f32[5, 6, 4][4, 20, 1]cuda:0" = torch.ops.aten.transpose.int(_unsafe_view_a0, 0, 1)
    clone_b0: "f32[5, 6, 4][24, 4, 1]cuda:0" = torch.ops.aten.clone.default(transpose_a0, memory_format = torch.contiguous_format)
    _unsafe_view_b0: "f32[5, 2, 12][24, 12, 1]cuda:0" = torch.ops.aten._unsafe_view.default(clone_b0, [5, 2, 12])
    clone_a1: "f32[2, 3, 5, 4][60, 20, 4, 1]cuda:0" = torch.ops.aten.clone.default(k, memory_format = torch.contiguous_format)
    _unsafe_view_a1: "f32[6, 5, 4][20, 4, 1]cuda:0" = torch.ops.aten._unsafe_view.default(clone_a1, [6, 5, 4])
    transpose_a1: "f32[5, 6, 4][4, 20, 1]cuda:0" = torch.ops.aten.transpose.int(_unsafe_view_a1, 0, 1)
    clone_b1: "f32[5, 6, 4][24, 4, 1]cuda:0" = torch.ops.aten.clone.default(transpose_a1, memory_format = torch.contiguous_format)
    _unsafe_view_b1: "f32[5, 2, 12][24, 12, 1]cuda:0" = torch.ops.aten._unsafe_view.default(clone_b1, [5, 2, 12])
    clone_a2: "f32[2, 3, 5, 4][60, 20, 4, 1]cuda:0" = torch.ops.aten.clone.default(q, memory_format = torch.contiguous_format)
    _unsafe_view_a2: "f32[6, 5, 4][20, 4, 1]cuda:0" = torch.ops.aten._unsafe_view.default(clone_a2, [6, 5, 4])
    transpose_a2: "f32[5, 6, 4][4, 20, 1]cuda:0" = torch.ops.aten.transpose.int(_unsafe_view_a2, 0, 1)
    clone_b2: "f32[5, 6, 4][24, 4, 1]cuda:0" = torch.ops.aten.clone.default(transpose_a2, memory_format = torch.contiguous_format)
    _unsafe_view_b2: "f32[5, 2, 12][24, 12, 1]cuda:0" = torch.ops.aten._unsafe_view.default(clone_b2, [5, 2, 12])
    select_backward: "f32[3, 5, 2, 12][120, 24, 12, 1]cuda:0" = torch.ops.aten.select_backward.default(_unsafe_view_b0, [3, 5, 2, 12], 0, 2)
    select_backward_1: "f32[3, 5, 2, 12][120, 24, 12, 1]cuda:0" = torch.ops.aten.select_backward.default(_unsafe_view_b1, [3, 5, 2, 12], 0, 1)
    add_37: "f32[3, 5, 2, 12][120, 24, 12, 1]cuda:0" = torch.ops.aten.add.Tensor(select_backward, select_backward_1)
    select_backward_2: "f32[3, 5, 2, 12][120, 24, 12, 1]cuda:0" = torch.ops.aten.select_backward.default(_unsafe_view_b2, [3, 5, 2, 12], 0, 0)
    add_38: "f32[3, 5, 2, 12][120, 24, 12, 1]cuda:0" = torch.ops.aten.add.Tensor(add_37, select_backward_2)
    unsqueeze_12: "f32[3, 5, 2, 1, 12][120, 24, 12, 12, 1]cuda:0" = torch.ops.aten.unsqueeze.default(add_38, 3)
    transpose_76: "f32[1, 5, 2, 3, 12][12, 24, 12, 120, 1]cuda:0" = torch.ops.aten.transpose.int(unsqueeze_12, 0, -2)
    squeeze_12: "f32[5, 2, 3, 12][24, 12, 120, 1]cuda:0" = torch.ops.aten.squeeze.dim(transpose_76, 0)
    clone_43: "f32[5, 2, 3, 12][72, 36, 12, 1]cuda:0" = torch.ops.aten.clone.default(squeeze_12, memory_format = torch.contiguous_format)
    _unsafe_view_31: "f32[5, 2, 36][72, 36, 1]cuda:0" = torch.ops.aten._unsafe_view.default(clone_43, [5, 2, 36])
    sum_5: "f32[1, 1, 36][36, 36, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(_unsafe_view_31, [0, 1], True)
    view_169: "f32[36][1]cuda:0" = torch.ops.aten.view.default(sum_5, [36])
    return (_unsafe_view_31, view_169)
)"},
        // native_layer_norm_backward with every output read: grad_input in a row kernel, then
        // grad_weight and grad_bias from one column kernel of the same program (600 rows: split
        // over blocks).
        {"lnbackward", R"(def forward(self, g: "f32[2, 300, 40][12000, 40, 1]cuda:0", x: "f32[2, 300, 40][12000, 40, 1]cuda:0", mean: "f32[2, 300, 1][300, 1, 1]cuda:0", rstd: "f32[2, 300, 1][300, 1, 1]cuda:0", w: "f32[40][1]cuda:0", b: "f32[40][1]cuda:0"):
    native_layer_norm_backward = torch.ops.aten.native_layer_norm_backward.default(g, x, [40], mean, rstd, w, b, [True, True, True])
    getitem: "f32[2, 300, 40][12000, 40, 1]cuda:0" = native_layer_norm_backward[0]
    getitem_1: "f32[40][1]cuda:0" = native_layer_norm_backward[1]
    getitem_2: "f32[40][1]cuda:0" = native_layer_norm_backward[2]
    return (getitem, getitem_1, getitem_2)
)", 10},
    };
    return cases;
}

// Lowers a case (every call of the graph in one region); kernels are renamed <case>_kernelN.
inline Result<codegen::RegionProgram> lowerCase(const CudaCase& c, graph::GraphPtr& keep)
{
    auto parsed = io::parseGraphCode(c.code, std::string(c.name) + ".txt");
    if (!parsed.graph) {
        return makeError(ErrorCode::Invalid, std::string("cannot parse case ") + c.name);
    }
    keep = parsed.graph;
    const graph::Graph& g = *keep;
    codegen::LoweringRequest req;
    req.graph = &g;
    req.regionId = c.name;
    req.inputs = g.placeholders();
    req.outputs = g.returnedNodes();
    for (graph::NodeId id = 0; id < g.size(); ++id) {
        if (g.node(id).op == graph::OpKind::CallFunction) {
            req.order.push_back(id);
        }
    }
    auto p = codegen::lowerRegion(req);
    if (p) {
        for (auto& k : p->kernels) {
            k.name = std::string(c.name) + "_" + k.name;
        }
    }
    return p;
}

} // namespace fxs::testing
