// Classifies node targets into the categories the views colour by and the partitioner and
// region compiler reason about. One table for all of them; see op_category.cpp.
#pragma once

#include "core/graph/node.h"

namespace fxs::graph {

enum class OpCategory : std::uint8_t {
    Placeholder, // graph inputs
    Output,      // the output node
    MatmulConv,  // mm, bmm, addmm, convolution, attention kernels
    Pointwise,   // elementwise unary/binary/ternary, casts, where, comparisons
    Reduction,   // sum, mean, amax, softmax, norms, var
    View,        // view, reshape, permute, transpose, expand, slice, select, getitem of tuples
    Collective,  // c10d / _c10d_functional collectives
    Constant,    // get_attr, full, zeros, arange, scalar_tensor
    Other,       // everything else (embedding, index, pooling, HOPs, ...)
};

std::string_view opCategoryName(OpCategory c); // "matmul/conv", "pointwise", ...
OpCategory categorize(const Node& node);
// Category of a bare target such as "aten::add.Tensor" (call_function/call_method).
OpCategory categorizeTarget(std::string_view target);
// Whether a call_function node's target is an in-place variant, which writes its first
// argument (its name ends with '_': add_, copy_, index_put_).
bool isInPlace(const Node& node);

} // namespace fxs::graph
