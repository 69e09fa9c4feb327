// Small graphs built in code for the structure tests: a residual stack of blocks
// (x -> mm with the block's weight -> relu -> add to x), with per-block widths so that a test can
// make some blocks differ, and Dynamo-style or look-alike placeholder names; a pre-norm stack
// (the shape of a decoder layer) with the variations that repetition search must see through.
#pragma once

#include "core/graph/graph_builder.h"

#include <string>
#include <vector>

namespace fxs::test {

inline graph::TensorMeta f32(std::int64_t rows, std::int64_t cols)
{
    return graph::TensorMeta{graph::DType::Float32,
                             {graph::SymInt::of(rows), graph::SymInt::of(cols)}, std::nullopt,
                             std::nullopt};
}

// widths[k]: the inner width of block k (equal widths make identical blocks). weightName(k)
// names block k's weight placeholder.
template <class WeightName>
graph::GraphPtr residualStack(const std::vector<int>& widths, WeightName&& weightName,
                              const std::string& prefix = "")
{
    using graph::Argument;
    graph::GraphBuilder b;
    const graph::NodeId x0 = b.placeholder("x", f32(8, 16));
    std::vector<graph::NodeId> weights;
    for (std::size_t k = 0; k < widths.size(); ++k) {
        weights.push_back(b.placeholder(weightName(k), f32(16, widths[k])));
    }
    graph::NodeId x = x0;
    for (std::size_t k = 0; k < widths.size(); ++k) {
        const std::string s = prefix + std::to_string(k);
        const auto mm = b.call("mm_" + s, "aten::mm.default",
                               {Argument::ref(x), Argument::ref(weights[k])}, {}, f32(8, widths[k]));
        const auto relu = b.call("relu_" + s, "aten::relu.default", {Argument::ref(mm)}, {},
                                 f32(8, widths[k]));
        const auto sum = b.call("sum_" + s, "aten::sum.dim_IntList",
                                {Argument::ref(relu), Argument::list({Argument::integer(1)}),
                                 Argument::boolean(true)},
                                {}, f32(8, 1));
        x = b.call("add_" + s, "aten::add.Tensor", {Argument::ref(x), Argument::ref(sum)}, {},
                   f32(8, 16));
    }
    b.output({Argument::tuple({Argument::ref(x)})});
    return *b.build();
}

// A pre-norm residual stack without names, the shape of a decoder layer:
//   r = rsqrt(x); n = mul(x, r); h = mm(n, w_k); g = relu(h); x = add(x, g)
// The layer reads x three times, so its boundary is crossed by three edges but one value,
// while a cut after mm is crossed by two edges (h, and x for the add) carrying two values.
struct PreNormOptions {
    std::size_t blocks = 6;
    bool normTail = false;       // a final norm after the stack (rsqrt, mul), like a layer's head
    bool firstAddsOther = false; // block 0's residual add reads another input y, not x
    bool returnWeights = false;  // the output returns every weight too (saved for a backward)
    bool firstUsesGelu = false;  // block 0 applies gelu instead of relu (not identical)
};

inline graph::GraphPtr preNormStack(const PreNormOptions& o)
{
    using graph::Argument;
    graph::GraphBuilder b;
    graph::NodeId x = b.placeholder("x", f32(8, 16));
    const graph::NodeId y = o.firstAddsOther ? b.placeholder("y", f32(8, 16)) : graph::kNoNode;
    std::vector<graph::NodeId> weights;
    for (std::size_t k = 0; k < o.blocks; ++k) {
        weights.push_back(b.placeholder("w" + std::to_string(k), f32(16, 16)));
    }
    auto unary = [&](const std::string& name, const char* target, graph::NodeId in) {
        return b.call(name, target, {Argument::ref(in)}, {}, f32(8, 16));
    };
    auto binary = [&](const std::string& name, const char* target, graph::NodeId l,
                      graph::NodeId r) {
        return b.call(name, target, {Argument::ref(l), Argument::ref(r)}, {}, f32(8, 16));
    };
    for (std::size_t k = 0; k < o.blocks; ++k) {
        const std::string s = std::to_string(k);
        const auto r = unary("rsqrt_" + s, "aten::rsqrt.default", x);
        const auto n = binary("mul_" + s, "aten::mul.Tensor", x, r);
        const auto h = binary("mm_" + s, "aten::mm.default", n, weights[k]);
        const bool gelu = o.firstUsesGelu && k == 0;
        const auto g = unary((gelu ? "gelu_" : "relu_") + s,
                             gelu ? "aten::gelu.default" : "aten::relu.default", h);
        x = binary("add_" + s, "aten::add.Tensor", k == 0 && y != graph::kNoNode ? y : x, g);
    }
    if (o.normTail) {
        const auto r = unary("rsqrt_tail", "aten::rsqrt.default", x);
        const auto n = binary("mul_tail", "aten::mul.Tensor", x, r);
        x = b.call("sum_tail", "aten::sum.dim_IntList",
                   {Argument::ref(n), Argument::list({Argument::integer(1)}),
                    Argument::boolean(true)},
                   {}, f32(8, 1));
    }
    std::vector<Argument> returned{Argument::ref(x)};
    for (std::size_t k = 0; o.returnWeights && k < o.blocks; ++k) {
        returned.push_back(Argument::ref(weights[k]));
    }
    b.output({Argument::tuple(std::move(returned))});
    return *b.build();
}

} // namespace fxs::test
