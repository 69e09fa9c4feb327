// ConvLayout::ChannelsLast (interpreter.h): the plan's convolutions run on channels_last input and
// weight. The function step takes the operator's own arguments (the plan keeps the schema's
// argument recipes) and returns what aten::convolution returns: the same values, laid out NHWC.
#include "core/exec/execution_plan.h"

#include <ATen/ATen.h>

namespace fxs::exec::detail {
namespace {

// aten::convolution(input, weight, bias?, stride, padding, dilation, transposed,
//                   output_padding, groups) -> Tensor
void convolutionChannelsLast(Stack& s)
{
    at::Tensor input = s[0].toTensor();
    at::Tensor weight = s[1].toTensor();
    const bool transposed = s[6].toBool();
    if (input.dim() == 4 && weight.dim() == 4 && !transposed) {
        input = input.contiguous(at::MemoryFormat::ChannelsLast);
        weight = weight.contiguous(at::MemoryFormat::ChannelsLast);
    }
    const c10::optional<at::Tensor> bias =
        s[2].isNone() ? c10::nullopt : c10::optional<at::Tensor>(s[2].toTensor());
    at::Tensor out = at::convolution(input, weight, bias, s[3].toIntVector(), s[4].toIntVector(),
                                     s[5].toIntVector(), transposed, s[7].toIntVector(),
                                     s[8].toInt());
    s.clear();
    s.emplace_back(std::move(out));
}

} // namespace

void preferChannelsLastConvolutions(Plan& plan)
{
    runOperatorAs(plan, "aten::convolution", convolutionChannelsLast); // NHWC output: the point
}

} // namespace fxs::exec::detail
