// ConvLayout::ChannelsLast (interpreter.h): the plan's convolutions run on channels_last input and
// weight. The function step takes the operator's own arguments (the plan keeps the schema's
// argument recipes) and returns what aten::convolution returns: the same values, laid out NHWC.
// The weights' copies are kept between runs (ConvWeightCache): inference graphs convert the same
// weights every run otherwise (ResNet-18: 17 copy kernels a run on the GPU).
#include "core/exec/conv_layout.h"
#include "core/exec/cudnn_conv.h"
#include "core/exec/executor.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <array>
#include <exception>

namespace fxs::exec {

at::Tensor ConvWeightCache::Impl::channelsLast(const at::Tensor& weight)
{
    if (weight.is_contiguous(at::MemoryFormat::ChannelsLast)) {
        return weight;
    }
    if (weight.is_inference()) {
        ++counts.converted;
        return weight.contiguous(at::MemoryFormat::ChannelsLast);
    }
    const std::uint32_t version = weight.unsafeGetTensorImpl()->version_counter().current_version();
    auto it = m_entries.find(weight.unsafeGetTensorImpl());
    if (it != m_entries.end()) {
        Entry& e = it->second;
        // The held source is this TensorImpl: only set_ or resize_ on it changes its data
        // pointer or sizes.
        if (e.data == weight.data_ptr() && e.version == version &&
            e.converted.sizes() == weight.sizes()) {
            ++counts.reused;
            e.used = true;
            return e.converted;
        }
    }
    ++counts.converted;
    Entry e{weight, weight.contiguous(at::MemoryFormat::ChannelsLast), weight.data_ptr(), version,
            true};
    at::Tensor converted = e.converted;
    m_entries.insert_or_assign(weight.unsafeGetTensorImpl(), std::move(e));
    return converted;
}

void ConvWeightCache::Impl::beginRun()
{
    for (auto& [impl, e] : m_entries) {
        e.used = false;
    }
}

void ConvWeightCache::Impl::endRun()
{
    std::erase_if(m_entries, [](const auto& kv) { return !kv.second.used; });
}

Result<int> ConvWeightCache::Impl::refreshChanged()
{
    c10::InferenceMode inference; // the copies were made in a run: inference tensors
    int refreshed = 0;
    for (auto& [impl, e] : m_entries) {
        const std::uint32_t now = impl->version_counter().current_version();
        if (now == e.version) {
            continue;
        }
        if (e.source.sizes() != e.converted.sizes() || e.source.data_ptr() != e.data) {
            return makeError(ErrorCode::Runtime,
                             "a convolution weight was resized or re-pointed since a CUDA graph "
                             "captured its channels_last copy; capture the graph again");
        }
        e.converted.copy_(e.source); // same memory: the captured kernels read it
        e.version = now;
        ++refreshed;
    }
    counts.refreshed += refreshed;
    return refreshed;
}

ConvWeightCache::ConvWeightCache() : m_impl(std::make_unique<Impl>()) {}
ConvWeightCache::~ConvWeightCache() = default;

ConvWeightCache::Counts ConvWeightCache::total() const { return m_impl->counts; }

std::size_t ConvWeightCache::size() const { return m_impl->size(); }

Result<int> ConvWeightCache::refreshChanged()
{
    try {
        return m_impl->refreshChanged();
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Runtime, "refreshing convolution weights: " +
                                                 detail::torchMessage(e));
    }
}

} // namespace fxs::exec

namespace fxs::exec::detail {
namespace {

// A 2-D convolution's stride, padding and dilation when each has two entries.
bool twoEach(const Stack& s, FusedConvParams& p)
{
    std::array<std::int64_t, 2>* to[] = {&p.stride, &p.padding, &p.dilation};
    for (std::size_t i = 0; i < 3; ++i) {
        const auto list = s[3 + i].toIntList();
        if (list.size() != 2) {
            return false;
        }
        *to[i] = {list.get(0), list.get(1)};
    }
    return true;
}

// aten::convolution(input, weight, bias?, stride, padding, dilation, transposed,
//                   output_padding, groups) -> Tensor. context: the ConvWeightCache::Impl, or
// null. kDirect: a bias-free, ungrouped one goes to cuDNN's plan for its shape where it can
// (cudnnFusedConv with no epilogue), else to LibTorch.
template <bool kDirect>
void convolutionChannelsLast(Stack& s, void* context)
{
    at::Tensor input = s[0].toTensor();
    at::Tensor weight = s[1].toTensor();
    const bool transposed = s[6].toBool();
    if (input.dim() == 4 && weight.dim() == 4 && !transposed) {
        input = input.contiguous(at::MemoryFormat::ChannelsLast);
        weight = context ? static_cast<ConvWeightCache::Impl*>(context)->channelsLast(weight)
                         : weight.contiguous(at::MemoryFormat::ChannelsLast);
        FusedConvParams p;
        if (kDirect && input.is_cuda() && s[2].isNone() && s[8].toInt() == 1 && twoEach(s, p)) {
            if (at::Tensor y = cudnnFusedConv(input, weight, {}, {}, {}, p); y.defined()) {
                s.clear();
                s.emplace_back(std::move(y));
                return;
            }
        }
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

void preferChannelsLastConvolutions(Plan& plan, ConvWeightCache::Impl* weights, bool direct)
{
    // NHWC output: the point
    runOperatorAs(plan, "aten::convolution", "",
                  direct ? convolutionChannelsLast<true> : convolutionChannelsLast<false>,
                  weights);
}

} // namespace fxs::exec::detail
