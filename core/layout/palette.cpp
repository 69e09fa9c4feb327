#include "core/layout/palette.h"

namespace fxs::layout {

std::string_view categoryFill(graph::OpCategory category)
{
    using graph::OpCategory;
    switch (category) {
    case OpCategory::MatmulConv: return "#f4a582";
    case OpCategory::Pointwise: return "#a6d96a";
    case OpCategory::Reduction: return "#fdd96a";
    case OpCategory::View: return "#c6dbef";
    case OpCategory::Collective: return "#e7a6e0";
    case OpCategory::Placeholder: return "#d9d9d9";
    case OpCategory::Output: return "#bfbfbf";
    case OpCategory::Constant: return "#e6e0c8";
    case OpCategory::Other: return "#b3e2e0";
    }
    return "#b3e2e0";
}

std::string_view groupFill()
{
    return "#e8e4f4";
}

std::string_view nodeTextColor()
{
    return "#1a1a1a";
}

std::string_view regionTint(std::size_t n)
{
    static constexpr std::string_view kTints[] = {"#ff7f50", "#4682b4", "#9acd32", "#ba55d3",
                                                  "#20b2aa", "#daa520"};
    return kTints[n % std::size(kTints)];
}

} // namespace fxs::layout
