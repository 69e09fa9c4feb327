// INTERNAL to core/compile: the operands a convolution step (conv_fusion.h) hands cuDNN, kept
// between runs: the weight's channels_last copy and the batch norm's affine folded per channel.
// Implemented in conv_fusion.cpp.
#pragma once

#include "core/util/result.h"

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace fxs::compile::detail {

// scale = weight / sqrt(var + eps), shift = bias - mean * scale (weight 1 and bias 0 where
// undefined), computed in float64, returned float32 contiguous [C].
std::pair<at::Tensor, at::Tensor> foldedAffine(const at::Tensor& weight, const at::Tensor& bias,
                                               const at::Tensor& mean, const at::Tensor& var,
                                               double eps);

// Kept while the five sources (convolution weight, norm weight, norm bias, running mean,
// running var; the norm's weight and bias may be undefined) are the same tensors (held: their
// memory cannot be handed to others) at the versions they were made from. Inference tensors
// have no version: their operands are made on every call and nothing is kept.
class KeptConvOperands {
public:
    struct Operands {
        at::Tensor weight; // channels_last (the source itself when it is already)
        at::Tensor scale;
        at::Tensor shift;
    };

    // `made`: set when they were made by this call.
    Operands get(const std::array<at::Tensor, 5>& sources, double eps, bool& made);

    // Before a CUDA graph replays (it reads the kept memory): when a source changed in place
    // since, the operands are made again into the same memory. Error::Runtime when a source was
    // resized or re-pointed (set_, resize_: capture again). Returns whether anything was made.
    Result<bool> refresh();

private:
    struct Source {
        at::Tensor tensor;
        const void* data = nullptr;
        std::uint32_t version = 0;
        std::vector<std::int64_t> sizes;
    };
    bool sameAsKept(const std::array<at::Tensor, 5>& sources) const;

    std::mutex m_mutex;
    bool m_valid = false;
    double m_eps = 0.0;
    std::array<Source, 5> m_sources;
    Operands m_kept;
};

} // namespace fxs::compile::detail
