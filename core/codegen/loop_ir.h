// The region compiler's loop IR: one kernel iterates a row-major index space F split into rows
// (outer dims, run in parallel) and a unit-stride inner range (trailing dims), computes SSA
// expressions over strided loads, runs row reductions in phases and stores results. Pure data
// built by lowering.h and printed by cpp_printer.h; it knows nothing of graphs or torch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fxs::codegen {

// Element types a kernel can load and store (persisted in keys by name: scalarTypeName).
enum class ScalarType : std::uint8_t { Bool, Int64, Float16, BFloat16, Float32, Float64 };
// What expressions compute in: f16/bf16 are computed in float and rounded when stored, f64 in
// double. Ordered: promotion takes the largest.
enum class ComputeType : std::uint8_t { Bool, Int64, Float, Double };

std::string_view scalarTypeName(ScalarType t); // "bool", "int64", "float16", ...
ComputeType computeTypeOf(ScalarType t);
int scalarTypeSize(ScalarType t);
bool isFloating(ComputeType t); // Float or Double
// The floating type computations on t are done in: Double for Double, else Float.
ComputeType floatingFor(ComputeType t);

// A range of one dim of F: the index i_dim with lo <= i_dim < hi.
struct Guard {
    int dim = 0;
    std::int64_t lo = 0;
    std::int64_t hi = 0;
    bool operator==(const Guard&) const = default;
};

// A strided view of a buffer in terms of the kernel's index space F: element address of the
// index (i0..in-1) is offset + sum(i_d * strides[d]); stride 0 broadcasts along d.
struct Access {
    int buffer = 0; // input or output slot
    std::int64_t offset = 0;
    std::vector<std::int64_t> strides; // one per dim of F
    // Loads only: the element is read only where every guard holds, and is `fill` elsewhere
    // (the address is never formed into a read there). A cat's inputs are loads guarded by their
    // range along its dim (fill 0); a max pool's window reads its padding as -inf; stores have
    // none.
    std::vector<Guard> guards;
    double fill = 0;
};

struct Load {
    Access access; // buffer: input slot
    ScalarType type = ScalarType::Float32;
};

// Index: the element's index along dim `index` of F, as int64 (arange, a cat's choice).
enum class ExprKind : std::uint8_t { Load, Const, Op, RowRef, Index };

struct Expr {
    ExprKind kind = ExprKind::Op;
    ComputeType type = ComputeType::Float;
    std::string op;        // Op: a primitive of cpp_printer's table ("add", "exp", "where", "cast")
    std::vector<int> args; // Op: operand expression ids (all earlier in the list)
    double value = 0;      // Const
    int index = -1;        // Load: load id; RowRef: reduction id; Index: dim of F
};

enum class ReduceKind : std::uint8_t { Sum, Max, Min };

// A reduction over the inner range of each row; its result is a per-row scalar that later
// expressions read through a RowRef. Reductions run in list order (phase order).
struct Reduction {
    ReduceKind kind = ReduceKind::Sum;
    int operand = -1; // expression id
    ComputeType type = ComputeType::Float;
};

struct Store {
    int expr = -1;
    Access access; // buffer: output slot
    ScalarType type = ScalarType::Float32;
    bool perRow = false; // the value is constant along the inner range: stored once per row
};

struct Kernel;
// Column kernels: a store written once per column, after its reductions (every outer stride 0).
bool isColumnResult(const Kernel& k, const Store& s);
// Column kernels: the expressions the pass over the rows computes (the reductions' operands,
// then the stores that move along the rows), what both printers emit inside that pass.
std::vector<int> columnPassRoots(const Kernel& k);
// What a kernel computes, for its name in profiles (as Inductor names its kernels after the ops
// they fuse): its form ("pw" pointwise, "row" row reductions, "col" column reductions), then up
// to four of its primitives in order of first use (casts left out), then its reductions, then
// its index space ("4096x256": outer x inner). Only fxscope's own tokens: the primitives are
// the printers' table, never input text. "row_mul_rsqrt_sum_4096x256".
std::string describeKernel(const Kernel& k);

struct Kernel {
    std::string name;                // "kernel0"
    std::vector<std::int64_t> shape; // F
    int innerDims = 1;               // trailing dims of F forming the inner range
    // No reductions and every access is contiguous in F or fully broadcast: iterate the
    // flattened index in blocks instead of rows.
    bool flat = false;
    // Column reduction (column_reduce.h): the outer dims of F (rows()) are the reduced range and
    // the inner dims (inner()) the kept columns. Every reduction runs over the rows of each
    // column in one pass; RowRef then reads the column's result. A reduction operand and a
    // store that moves along the rows never read a RowRef; a store that does not move along
    // the rows is the column's epilogue (isColumnResult).
    bool columns = false;
    std::vector<Load> loads;
    std::vector<Expr> exprs;
    std::vector<Reduction> reductions;
    std::vector<Store> stores;
    // Names of the FX nodes this kernel covers, lowering order: for errors and the IR dump,
    // never printed into a source (they are input text; source_text.h).
    std::vector<std::string> nodes;
    // The same nodes as positions in the region's canonical order (the v<i> of the cache key's
    // region and schedule components), set by the scheduler: what the printers' comments name.
    std::vector<int> canonicalNodes;

    std::int64_t rows() const;  // product of the outer dims
    std::int64_t inner() const; // product of the inner dims
};

// A region's buffers and kernels. Inputs and outputs are passed as data pointers in slot order;
// outputs are buffers the caller allocates with the given sizes, strides and type (contiguous,
// or the permuted dense layout eager gives the value: lowering.h's outputStrides).
struct BufferSpec {
    std::string node; // FX node name the buffer holds (not printed in a source)
    ScalarType type = ScalarType::Float32;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides; // inputs: as given; outputs: dense (see above)
};

struct RegionProgram {
    std::string region; // region id for errors and the IR dump ("r0"); never printed in a source
    std::vector<BufferSpec> inputs;
    std::vector<BufferSpec> outputs;
    std::vector<Kernel> kernels;
};

} // namespace fxs::codegen
