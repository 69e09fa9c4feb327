// INTERNAL to core/codegen: the text every CUDA translation unit the printer makes starts with
// (fixed-width typedefs for NVRTC, float16/bfloat16 conversions, reduction operators, the row
// group's reduction). Not the kernels (cuda_printer.cpp) nor their element code (cuda_element).
#pragma once

namespace fxs::codegen::detail {

const char* cudaPrelude();

} // namespace fxs::codegen::detail
