// INTERNAL to core/codegen: the state of one region lowering (values of nodes, the kernel being
// built) shared by lowering.cpp (driver, views, alignment) and lower_ops.cpp (op handlers).
#pragma once

#include "core/codegen/lowering.h"

#include <functional>
#include <map>
#include <set>

namespace fxs::codegen::detail {

// The value of one node during lowering. Its shape maps onto F by its dims' F dims; a dim may
// be shorter than the F dim it runs along ("partial": the value is defined on the first
// indices only), which only a cat can use (it shifts the value to its range and guards it): a
// partial value is never stored or reduced.
struct Val {
    // Deferred: an item a second kernel of the program makes (a layer norm backward's weight
    // and bias gradients, column reductions after the row kernel that makes grad_input): it
    // can only leave the region, never be read by another node of the row kernel.
    enum class Kind : std::uint8_t { InputView, Computed, Tuple, Scalar, Synth, Deferred };
    Kind kind = Kind::Computed;
    std::vector<std::int64_t> shape;
    ScalarType type = ScalarType::Float32;
    // InputView: a strided view of input slot `input`. Synth: a view of a virtual buffer whose
    // element e is start + step * e (arange; step 0: a filled constant, scalar_tensor, full):
    // views apply to it as to an input, and it becomes index arithmetic, never a load.
    int input = -1;
    std::int64_t offset = 0;
    std::vector<std::int64_t> strides;
    // InputView/Synth whose dims are not one stride each (a view merged dims of different
    // strides: a transposed [4, 4, 64] seen as [16, 64]): per dim its sub-dims (size, stride),
    // outermost first, and `strides` unused; empty when every dim is one stride. Views compose
    // on sub-dims and simplify back when they can; other nodes read such a value only where its
    // sub-dims run along consecutive dims of F (materialized: a Computed value with fspan).
    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> parts;
    double start = 0;
    double step = 0;
    // Computed: expression id and, per dim of shape, the dim of F it runs along (-1: size 1).
    int expr = -1;
    std::vector<int> fdim;
    // Computed, per dim (empty: 1 each): the number of consecutive F dims from fdim[j] the dim
    // runs along, when a view merged dims of F (a [4, 64, C] value viewed as [256, C]). Such a
    // dim is read only by stores and reductions (fdimOf gives -2 for it: nothing else takes it).
    std::vector<int> fspan;
    // Tuple: items; Scalar: a Python number (an argument, not a node).
    std::vector<Val> items;
    double number = 0;
    bool integral = false;
};

class Lowerer {
public:
    explicit Lowerer(const LoweringRequest& r) : req(r), g(*r.graph) {}

    const LoweringRequest& req;
    const graph::Graph& g;
    Kernel kernel;
    std::map<graph::NodeId, Val> values;
    std::vector<std::int64_t> F;
    int reducedDims = -1; // k once a reduction fixed it
    // Column kernels (Kernel::columns): the number of leading dims of F reduced, once a
    // reduction over leading dims fixed it; -1 otherwise (never both this and reducedDims).
    int columnDims = -1;
    // Column kernels: the F dims the rows are (sorted; columnDims of them). Leading dims, or
    // any others until permuteColumns moves them to the front of F.
    std::vector<int> columnRows;
    // Lowering the column part of a program (lowering.cpp: the second kernel that makes the
    // Deferred items of the first): a layer norm backward yields its weight/bias gradients.
    bool columnPart = false;
    // Set where a view with sub-dims (Val::parts) could not be read along F: the F that splits
    // F's dims into those sub-dims (refinedSpace), which lowerRegion tries next.
    std::vector<std::int64_t> refinedF;
    // The F dims an expand of a computed value added (expand_ops.cpp) and the first such expand:
    // a value stored that does not run along them would be written once per index there.
    std::vector<int> grownDims;
    graph::NodeId grownBy = graph::kNoNode;

    // Errors.
    Error unsupported(const graph::Node& n, const std::string& why) const;

    // Operands.
    Result<Val> operand(const graph::Node& n, std::size_t argIndex) const;
    Result<Val> kwargOrArg(const graph::Node& n, std::string_view key, std::size_t argIndex) const;
    // The node's output meta (dtype and sizes).
    Result<std::pair<ScalarType, std::vector<std::int64_t>>> outMeta(const graph::Node& n) const;

    // Expressions.
    int addExpr(Expr e);
    int addLoad(const Load& load); // the id of an equal load, or a new one
    int index(int dim);            // the element's index along dim of F (int64)
    int constant(double v, ComputeType t);
    int op(std::string name, ComputeType t, std::vector<int> args);
    int cast(int expr, ComputeType to);
    ComputeType typeOfExpr(int expr) const { return kernel.exprs.at(expr).type; }
    // Expression of a value (loads input views, broadcasting them into F); scalars become
    // constants of type t.
    Result<int> exprOf(const Val& v, ComputeType t);
    // The expression of a value of type `type` defined on the first `size` indices of F dim
    // `dim`, moved to indices off .. off+size-1 of that dim: its loads shifted and guarded to
    // that range (0 elsewhere), its index arithmetic shifted. Unsupported when it reads a
    // reduction's result and dim is not one the reduction runs along.
    Result<int> shifted(int expr, int dim, std::int64_t off, std::int64_t size);
    // The expression read at index `at` of F dim `dim` whatever the element's index along it
    // (loads moved there with stride 0 along dim, their guards on dim decided, index arithmetic
    // a constant): an unrolled reduction's term (unrolled_ops.cpp). Unsupported like shifted.
    Result<int> pinned(int expr, int dim, std::int64_t at);
    // What shifted and pinned share (cat_ops.cpp).
    Result<int> rewrittenAlong(int root, int dim, const std::function<int(int)>& onIndex,
                               const std::function<int(int, const Load&)>& onLoad,
                               const std::string& what);
    // True when a dim of v is shorter than the F dim it runs along (see Val).
    bool partial(const Val& v) const;

    // Alignment of shapes to F.
    std::optional<std::vector<int>> alignToF(const std::vector<std::int64_t>& shape) const;
    std::vector<int> fdimOf(const Val& v) const;
    // Checks operands broadcast into the result consistently with their F dims.
    bool consistent(const Val& operand, const std::vector<int>& resultFdim,
                    const std::vector<std::int64_t>& resultShape) const;
    // A Computed value for the node's result: shape from meta, F dims from its operands where
    // they give every dim of size > 1 one F dim (a transposed computed value keeps its F dims
    // through pointwise ops), else by right alignment.
    Result<Val> computed(const graph::Node& n, int expr,
                         const std::vector<Val>& operands = {}) const;
    // The F dims of a broadcast of `operands` to `shape` (right-aligned, as PyTorch broadcasts):
    // nullopt when two disagree, one does not fit F, a dim of size > 1 gets none or two get the
    // same one (unsqueezes of one computed [32] as [32, 1] and [1, 32] compared).
    std::optional<std::vector<int>> fdimsFromOperands(const std::vector<std::int64_t>& shape,
                                                      const std::vector<Val>& operands) const;
};

// Op handlers (lower_ops.cpp): fill lw.values[n.id] or return an error.
Status lowerPointwise(Lowerer& lw, const graph::Node& n);
Status lowerReduction(Lowerer& lw, const graph::Node& n);
Status lowerView(Lowerer& lw, const graph::Node& n);
// cat as a select chain over its inputs' shifted expressions; constant and arange
// constructors as index arithmetic (cat_ops.cpp).
Status lowerCat(Lowerer& lw, const graph::Node& n);
Status lowerConstructor(Lowerer& lw, const graph::Node& n);
bool isCatOp(std::string_view base);
// Inference batch norm, pointwise with per-channel vectors (batch_norm_ops.cpp).
Status lowerBatchNorm(Lowerer& lw, const graph::Node& n);
bool isBatchNormOp(std::string_view base);
bool isConstructorOp(std::string_view base);
// max_pool2d (and max_pool2d_with_indices, item 0 only) as the max over guarded window loads;
// a pool of a computed value moves the kernel to the pool's index space (pool_ops.cpp).
Status lowerPool(Lowerer& lw, const graph::Node& n);
bool isPoolOp(std::string_view base);
// The element's value of a Synth value (a filled constant or arange) as an expression of
// type t (cat_ops.cpp; exprOf's Synth case).
Result<int> synthExpr(Lowerer& lw, const Val& v, ComputeType t);
// Drops expressions and loads no store or reduction needs (the unshifted forms of a cat's
// inputs), renumbering the rest in order.
void pruneDeadCode(Kernel& k);
bool isPointwiseOp(std::string_view base);

// Reduction helpers (lower_ops.cpp). The sorted dims a reduction's `dim` argument names
// (every dim when it is absent or empty).
std::vector<int> dimList(const graph::Argument* a, int rank);
// Checks that dims of x cover exactly the trailing dims of F (fixes reducedDims on first use);
// the number of reduced elements.
Result<std::int64_t> claimInnerDims(Lowerer& lw, const graph::Node& n, const Val& x,
                                    const std::vector<int>& dims);
// k > 0 when dims of x cover exactly the k trailing dims of F; 0 when they cover others, -1 when
// a dim is out of range.
int trailingCover(const Lowerer& lw, const Val& x, const std::vector<int>& dims);
// A reduction of `operand` over the kernel's reduced range: the RowRef expression of its result.
int reduce(Lowerer& lw, ReduceKind kind, int operand, ComputeType t);
// The reduced value's Val: x's shape without (keepdim: size 1 at) the reduced dims.
Val rowValue(Lowerer& lw, const Val& x, const std::vector<int>& dims, bool keepdim, int expr,
             ScalarType type);

// Reductions of at most 8 elements along dims that are neither trailing nor leading, unrolled
// into pointwise ops (unrolled_ops.cpp). The shape a sum/mean/amax/amin node gives the index
// space when it unrolls (its operand's without the reduced dims; judged on metas: indexSpace).
std::optional<std::vector<std::int64_t>> unrolledSpace(const graph::Node& n,
                                                       const std::vector<std::int64_t>& operand);
// True when the reduction of x over dims unrolls: 2 to 8 elements, neither leading nor trailing
// dims of F.
bool unrollsReduction(const Lowerer& lw, const Val& x, const std::vector<int>& dims);
// The reduced value (rowValue's shape and F dims) as a combination of x's terms at each reduced
// index: input views read there, computed values pinned there (Lowerer::pinned); mean scales.
Result<Val> lowerUnrolled(Lowerer& lw, const graph::Node& n, ReduceKind kind, bool mean,
                          const Val& x, const std::vector<int>& dims, bool keepdim,
                          ScalarType type);

// Reductions over leading dims (column_ops.cpp). True when dims of x cover leading dims of F
// (size-1 dims of F count as covered) and not its last dim: a column reduction.
bool reducesLeadingDims(const Lowerer& lw, const Val& x, const std::vector<int>& dims);
// True when dims of x cover dims of F that are not its trailing dims (and leave some dim of
// size > 1): a column reduction once F is permuted (permuteColumns).
bool reducesColumnDims(const Lowerer& lw, const Val& x, const std::vector<int>& dims);
// Column kernels whose rows are not F's leading dims: F permuted (every access's strides and
// guards, index arithmetic, the kernel's shape) so that the rows lead in order and the kept
// dims follow in theirs (the columns keep their memory order: stores stay coalesced). After
// the stores are made.
void permuteColumns(Lowerer& lw);
// Fixes columnDims and columnRows (the kernel becomes a column kernel) or refuses; the number
// of reduced elements.
Result<std::int64_t> claimOuterDims(Lowerer& lw, const graph::Node& n, const Val& x,
                                    const std::vector<int>& dims);
// In a column kernel, a value that reads a column's result and moves along the reduced dims
// would need a second pass over the rows: refused, naming the node (the schedule cuts there).
Status checkColumnValue(Lowerer& lw, const graph::Node& n);
// A view of a computed value that merges dims of F it runs along in order (each fully), as
// Val::fspan records; false when the view does something else.
bool mergeDims(const Lowerer& lw, const Val& x, const std::vector<std::int64_t>& shape, Val& out);
// The F dims (first, count) that dim j of v runs along; count 0 for a size-1 dim; first -2 when
// v does not fit F.
std::pair<int, int> fdimsOfDim(const Lowerer& lw, const Val& v, std::size_t j);
// The strides over F of a store of v into a buffer with strides cs (merged dims spread).
std::vector<std::int64_t> storeStrides(const Lowerer& lw, const Val& v,
                                       const std::vector<std::int64_t>& cs);
// The trailing dims a layer norm (backward) normalizes over, and float expressions of a node's
// operands at `indices` that broadcast like x (lower_ops.cpp).
std::vector<int> normalizedDims(const graph::Node& n, std::size_t argIndex, std::size_t rank);
Result<std::vector<int>> floatOperands(Lowerer& lw, const graph::Node& n, const Val& x,
                                       std::initializer_list<std::size_t> indices, ComputeType f);
// native_layer_norm_backward's grad_weight (sum over rows of grad_out * xhat) and grad_bias
// (sum over rows of grad_out) as column reductions: the tuple (undefined, gw, gb).
Status lowerLayerNormBackwardColumns(Lowerer& lw, const graph::Node& n);
bool isReductionOp(std::string_view base);
bool isViewOp(std::string_view base);
// A copy that keeps the element type (clone, contiguous, _to_copy to the same dtype, ...) of an
// input view or index arithmetic: the node's value is that view (its own storage, when the
// region returns it, is the store of the load); false (nothing done) for anything else.
bool isCopyOp(std::string_view base);
bool copyOfInputView(Lowerer& lw, const graph::Node& n);

// Output layouts (output_layout.cpp). The order of the dims of a dense layout, outermost first
// (size-1 dims first; the identity for row-major), or nullopt when sizes/strides are not dense.
std::optional<std::vector<int>> denseOrder(const std::vector<std::int64_t>& sizes,
                                           const std::vector<std::int64_t>& strides);
// A kernel without reductions whose output `want[i]` (eager's strides; empty: unknown) is a
// permuted dense layout over the whole index space iterates F in that order; the outputs that
// span F take eager's strides (unknown ones: dense in that order). Others stay contiguous.
void applyOutputLayout(Lowerer& lw, RegionProgram& prog,
                       const std::vector<std::vector<std::int64_t>>& want);
// A kernel without reductions, guards or index expressions iterates adjacent dims of F that
// every access steps through as one dim (or size-1 dims) as one: [N, C, H, W] with per-channel
// loads becomes [N, C, H*W], so the inner range is H*W, not W (fewer rows, less index
// arithmetic, longer vector loops). The buffers' layouts do not change.
void coalesceDims(Kernel& k);
// The index space iterated in `order` (new dim i is old dim order[i]): F, every access's
// strides and guards and the index expressions follow; stores' perRow is recomputed.
void permuteIndexSpace(Kernel& k, const std::vector<int>& order);
// A kernel without reductions iterates once each dim of F that nothing reads along (no access
// moves or is guarded along it, no index arithmetic on it): a pinned producer of an unrolled
// reduction leaves the reduced dims so, which would compute every element once per index.
void dropUnreadDims(Kernel& k);

// Expands of computed values along new dims (expand_ops.cpp). True when the expand n broadcasts
// a size-1 dim after one of size > 1 of a value the region computes with fewer dims (F cannot
// place it by right alignment): indexSpace leaves what depends on it out, and expandComputed
// inserts the dim into F when lowering it.
bool growsIndexSpace(const LoweringRequest& req, const std::set<graph::NodeId>& region,
                     const graph::Node& n);
// The expand of a computed value to `shape` with its broadcast dims as new dims of F (inserted
// after the F dim of the dim before each; every value, access, guard and index arithmetic so
// far moves with its dims); refuses when x's dims are not in F's order or a new dim would split
// a merged or reduced dim, and in column kernels.
Status expandComputed(Lowerer& lw, const graph::Node& n, const std::vector<std::int64_t>& shape,
                      Val& out);
// Refuses (naming the first growing expand, where the schedule cuts) a store of n that does not
// run along a dim of F an expand added: it would be written once per index there.
Status checkGrownStore(const Lowerer& lw, const graph::Node& n, const Store& st);

// Strided view arithmetic on input views (view_ops.cpp).
// An input view with sub-dims (Val::parts) as the Computed value of its load: each dim's
// sub-dims run along consecutive dims of F (right-aligned, sizes equal), as a view merging dims
// of a computed value would (fdim, fspan); nullopt when they do not fit F.
std::optional<Val> materialized(Lowerer& lw, const Val& v);
// F with its dims split into the sub-dims of v that run along them (right-aligned, a dim of F
// the product of consecutive sub-dims of size > 1); empty when they do not split F so or F
// stays the same.
std::vector<std::int64_t> refinedSpace(const Lowerer& lw, const Val& v);
// Before any reduction: F permuted (permuteIndexSpace, every lowered value's F dims moved along)
// so that the F dims of x's dims follow x's dim order, the F dims x does not run along first —
// a view merging dims of a permuted computed value can then merge them (GPT-12's qkv gradient
// [T, B, 3, C], permuted from [3, T, B, C], viewed [T, B, 3*C]). False (nothing done) when a
// reduction fixed the kernel's ranges, a dim of x is a broadcast or merged, a merged value would
// no longer run along consecutive F dims, or F is in that order already.
bool permuteToOrderOf(Lowerer& lw, const Val& x);

} // namespace fxs::codegen::detail
