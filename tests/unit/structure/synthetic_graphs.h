// Small graphs built in code for the structure tests: a residual stack of blocks
// (x -> mm with the block's weight -> relu -> add to x), with per-block widths so that a test can
// make some blocks differ, and Dynamo-style or look-alike placeholder names.
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

} // namespace fxs::test
