#include "core/graph/op_category.h"

#include <algorithm>
#include <iterator>

namespace fxs::graph {

namespace {

// Base names (without namespace and overload); sorted for binary search.
constexpr std::string_view kMatmul[] = {
    "_scaled_dot_product_cudnn_attention",
    "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_efficient_attention_backward",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_flash_attention_backward",
    "addmm", "baddbmm", "bmm", "conv1d", "conv2d", "conv3d", "convolution",
    "convolution_backward", "linear", "matmul", "mm", "scaled_dot_product_attention",
};

constexpr std::string_view kPointwise[] = {
    "abs", "acos", "add", "addcdiv", "addcmul", "asin", "atan", "atan2",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "ceil", "clamp", "clamp_max",
    "clamp_min", "clone", "cos", "cosh", "div", "elu", "eq", "erf", "erfc", "exp", "exp2",
    "expm1", "floor", "fmod", "gelu", "gelu_backward", "ge", "gt", "hardtanh", "isinf", "isnan",
    "le", "leaky_relu", "lerp", "log", "log10", "log1p", "log2", "logical_and", "logical_not",
    "logical_or", "lt", "masked_fill", "maximum", "minimum", "mul", "ne", "neg", "pow",
    "reciprocal", "relu", "remainder", "round", "rsqrt", "rsub", "sigmoid",
    "sigmoid_backward", "sign", "silu", "silu_backward", "sin", "sinh", "sqrt", "square", "sub",
    "tan", "tanh", "tanh_backward", "threshold_backward", "to_copy", "_to_copy", "trunc", "where",
};

constexpr std::string_view kReduction[] = {
    "_log_softmax", "_log_softmax_backward_data", "_softmax",
    "_softmax_backward_data", "all", "amax", "amin", "any", "argmax", "argmin", "log_softmax",
    "logsumexp", "max", "mean", "min", "native_batch_norm", "native_batch_norm_backward",
    "native_layer_norm", "native_layer_norm_backward", "norm", "prod", "softmax", "std",
    "sum", "var", "var_mean", "_native_batch_norm_legit", "_native_batch_norm_legit_functional",
    "_native_batch_norm_legit_no_training",
};

constexpr std::string_view kView[] = {
    "_reshape_alias", "_unsafe_view", "alias", "as_strided", "contiguous",
    "detach", "expand", "flatten", "getitem", "narrow", "permute", "reshape", "select",
    "slice", "split", "split_with_sizes", "squeeze", "t", "transpose", "unbind", "unflatten",
    "unsqueeze", "view", "view_as",
};

constexpr std::string_view kConstant[] = {
    "arange", "empty", "empty_like", "empty_strided", "full", "full_like",
    "ones", "ones_like", "scalar_tensor", "zeros", "zeros_like",
};

template <std::size_t N>
bool contains(const std::string_view (&table)[N], std::string_view name)
{
    return std::find(std::begin(table), std::end(table), name) != std::end(table);
}

// Python operator module names as they appear in Dynamo graphs.
bool isOperatorPointwise(std::string_view base)
{
    static constexpr std::string_view kOps[] = {
        "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg",
        "lt", "le", "gt", "ge", "eq", "ne", "and_", "or_", "xor", "invert", "iadd", "imul",
    };
    return contains(kOps, base);
}

} // namespace

std::string_view opCategoryName(OpCategory c)
{
    switch (c) {
    case OpCategory::Placeholder: return "placeholder";
    case OpCategory::Output: return "output";
    case OpCategory::MatmulConv: return "matmul/conv";
    case OpCategory::Pointwise: return "pointwise";
    case OpCategory::Reduction: return "reduction";
    case OpCategory::View: return "view/reshape";
    case OpCategory::Collective: return "collective";
    case OpCategory::Constant: return "constant";
    case OpCategory::Other: return "other";
    }
    return "other";
}

bool isInPlace(const Node& node)
{
    return node.op == OpKind::CallFunction && opBaseName(node.target).ends_with('_');
}

OpCategory categorizeTarget(std::string_view target)
{
    if (target.find("c10d") != std::string_view::npos) {
        return OpCategory::Collective;
    }
    std::string_view base = opBaseName(target);
    // In-place variants ("add_") classify like their functional form.
    if (base.size() > 1 && base.back() == '_' && base != "and_" && base != "or_") {
        base.remove_suffix(1);
    }
    if (target.starts_with("operator.")) {
        if (base == "matmul") {
            return OpCategory::MatmulConv;
        }
        if (base == "getitem") {
            return OpCategory::View;
        }
        return isOperatorPointwise(base) ? OpCategory::Pointwise : OpCategory::Other;
    }
    if (contains(kMatmul, base)) {
        return OpCategory::MatmulConv;
    }
    if (contains(kReduction, base)) {
        return OpCategory::Reduction;
    }
    if (contains(kView, base)) {
        return OpCategory::View;
    }
    if (contains(kConstant, base)) {
        return OpCategory::Constant;
    }
    if (contains(kPointwise, base)) {
        return OpCategory::Pointwise;
    }
    return OpCategory::Other;
}

OpCategory categorize(const Node& node)
{
    switch (node.op) {
    case OpKind::Placeholder: return OpCategory::Placeholder;
    case OpKind::Output: return OpCategory::Output;
    case OpKind::GetAttr: return OpCategory::Constant;
    case OpKind::CallModule: return OpCategory::Other;
    case OpKind::CallFunction:
    case OpKind::CallMethod: return categorizeTarget(node.target);
    }
    return OpCategory::Other;
}

} // namespace fxs::graph
