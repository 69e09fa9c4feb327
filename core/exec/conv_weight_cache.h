// Convolution weights converted to channels_last, kept between runs of one graph
// (RunOptions::convWeights, ConvLayout::ChannelsLast): a weight is converted once and its copy
// reused while it is the same tensor, unchanged since (its version counter), so inference runs
// do not copy their weights again each time. Not for activations (they change every run), not
// thread-safe (one run at a time uses a cache). Implemented in conv_layout.cpp.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <memory>

namespace fxs::exec {

class ConvWeightCache {
public:
    ConvWeightCache();
    ~ConvWeightCache();
    ConvWeightCache(const ConvWeightCache&) = delete;
    ConvWeightCache& operator=(const ConvWeightCache&) = delete;

    struct Counts {
        int converted = 0; // weights copied to channels_last (first use, or changed since)
        int reused = 0;    // copies reused: the same tensor, unchanged
        int refreshed = 0; // copies converted again in place by refreshChanged
    };
    Counts total() const; // since the cache was made
    // Weights kept now: those the latest run used (a run drops the others when it ends).
    std::size_t size() const;

    // Before replaying a CUDA graph captured over a run that used this cache (its kernels read
    // the kept copies' memory): each copy whose source changed in place since it was converted
    // (an optimizer step, copy_) is converted again into the same memory, on the current stream.
    // Call it outside any capture. Returns how many were refreshed; Error::Runtime when a
    // source's sizes or strides changed (set_, resize_: no copy in place can follow, capture
    // again). Never throws.
    Result<int> refreshChanged();

    class Impl; // conv_layout.cpp: what the engine's convolution steps use
    Impl& impl() { return *m_impl; }

private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::exec
