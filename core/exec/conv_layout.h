// INTERNAL to core/exec: ConvLayout::ChannelsLast (interpreter.h) as a plan rewrite, and the
// state of ConvWeightCache (conv_weight_cache.h) its convolution steps read and fill. Not the
// layout choice itself (compile::resolveConvLayout) nor the cache's owner (the caller that runs
// one graph several times: RunOptions::convWeights).
#pragma once

#include "core/exec/conv_weight_cache.h"
#include "core/exec/execution_plan.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <unordered_map>

namespace fxs::exec {

// Per source weight: the tensor itself (held, so its address cannot be handed to another tensor
// while the entry lives), its channels_last copy and the version it was made at. A run marks
// what it uses; endRun drops the rest, so the cache holds one run's weights at most.
class ConvWeightCache::Impl {
public:
    // The channels_last form of a 4-D weight: itself when already so; else the kept copy while
    // the weight is the same tensor (TensorImpl, data pointer, sizes, strides, dtype, device)
    // at the same version; else a new copy, kept unless the weight is an inference tensor
    // (no version counter: a change in place could not be seen).
    at::Tensor channelsLast(const at::Tensor& weight);
    void beginRun();
    void endRun(); // drops the entries this run did not use
    Result<int> refreshChanged();
    std::size_t size() const { return m_entries.size(); }
    ConvWeightCache::Counts counts;

private:
    struct Entry {
        at::Tensor source;
        at::Tensor converted;
        const void* data = nullptr;
        std::uint32_t version = 0;
        bool used = false;
    };
    std::unordered_map<const c10::TensorImpl*, Entry> m_entries;
};

} // namespace fxs::exec

namespace fxs::exec::detail {

// Every step of aten::convolution.default becomes a function step that makes a 4-D,
// non-transposed convolution's input and weight channels_last before calling it (others run as
// they were). The weight's copy comes from `weights` (not owned, it must outlive the plan's
// runs; null: converted on every call). With `direct` (RunOptions::directMatmuls on CUDA) a
// float32 one without bias or groups runs through cuDNN's plan for its shape (cudnn_conv.h,
// the convolution alone) where it can.
void preferChannelsLastConvolutions(Plan& plan, ConvWeightCache::Impl* weights, bool direct);

} // namespace fxs::exec::detail
