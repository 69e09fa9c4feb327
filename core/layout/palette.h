// Colours of the graph drawing shared by the Qt view, the SVG writer and Graphviz's PNG renderer:
// one fill per op category (light enough for dark text on light and dark backgrounds) and one
// tint per annotated region. Plain "#rrggbb" strings; not a theme engine.
#pragma once

#include "core/graph/op_category.h"

#include <array>
#include <string_view>

namespace fxs::layout {

// Categories in legend order.
inline constexpr std::array<graph::OpCategory, 9> kLegendCategories = {
    graph::OpCategory::MatmulConv, graph::OpCategory::Pointwise, graph::OpCategory::Reduction,
    graph::OpCategory::View,       graph::OpCategory::Collective, graph::OpCategory::Placeholder,
    graph::OpCategory::Output,     graph::OpCategory::Constant,  graph::OpCategory::Other,
};

std::string_view categoryFill(graph::OpCategory category); // "#f4a582"
std::string_view groupFill();                              // collapsed group boxes
std::string_view nodeTextColor();                          // text on category fills
// Tint for the n-th distinct region value (cycles).
std::string_view regionTint(std::size_t n);

} // namespace fxs::layout
