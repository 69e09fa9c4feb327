#include "core/compile/output_recycler.h"

#include "core/compile/kernel_call.h"

#if defined(FXSCOPE_TORCH_CUDA)
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <atomic>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace fxs::compile::detail {
namespace {

// The current stream's id on a CUDA device, or nullopt while a CUDA graph captures on it.
std::optional<std::int64_t> usableStream(const c10::Device& device)
{
#if defined(FXSCOPE_TORCH_CUDA)
    if (device.is_cuda()) {
        if (c10::cuda::currentStreamCaptureStatusMayInitCtx() !=
            c10::cuda::CaptureStatus::None) {
            return std::nullopt;
        }
        return c10::cuda::getCurrentCUDAStream(device.index()).id();
    }
#else
    if (device.is_cuda()) {
        return std::nullopt; // no CUDA tensors in this LibTorch
    }
#endif
    return 0;
}

// Held by the recycler alone, with the program's geometry, made on `stream`.
bool reusable(const at::Tensor& t, std::int64_t made, std::int64_t stream,
              const codegen::BufferSpec& spec, at::ScalarType type)
{
    return t.defined() && made == stream && t.use_count() == 1 && t.weak_use_count() == 1 &&
           t.storage().use_count() == 1 && t.scalar_type() == type &&
           t.sizes().equals(spec.sizes) &&
           (spec.strides.size() != spec.sizes.size() || t.strides().equals(spec.strides));
}

std::atomic<long> g_reused{0};

} // namespace

long OutputRecycler::reusedCount()
{
    return g_reused.load();
}

bool OutputRecycler::enabled()
{
    static const bool on = [] {
        const char* v = std::getenv("FXSCOPE_OUTPUT_REUSE");
        return !(v && std::string_view(v) == "0");
    }();
    return on;
}

at::Tensor OutputRecycler::take(std::size_t program, std::size_t slot,
                                const codegen::BufferSpec& spec, const at::TensorOptions& options)
{
    if (!enabled()) {
        return allocateOutput(spec, options);
    }
    const std::optional<std::int64_t> stream = usableStream(options.device());
    std::unique_lock<std::mutex> lock(m_mutex, std::try_to_lock);
    if (!stream || !lock.owns_lock()) {
        return allocateOutput(spec, options);
    }
    if (m_slots.size() <= program) {
        m_slots.resize(program + 1);
    }
    auto& slots = m_slots[program];
    if (slots.size() <= slot) {
        slots.resize(slot + 1);
    }
    Slot& s = slots[slot];
    const at::ScalarType type = atScalarType(spec.type);
    for (const Kept& k : s.kept) {
        if (reusable(k.tensor, k.stream, *stream, spec, type)) {
            g_reused.fetch_add(1, std::memory_order_relaxed);
            return k.tensor;
        }
    }
    at::Tensor made = allocateOutput(spec, options);
    if (s.kept.size() < kPerSlot) {
        s.kept.push_back({made, *stream});
    } else {
        s.kept[s.next] = {made, *stream};
        s.next = (s.next + 1) % kPerSlot;
    }
    return made;
}

} // namespace fxs::compile::detail
