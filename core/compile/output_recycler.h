// INTERNAL to core/compile (LibTorch): a generated program's output buffers, kept from one call
// for the next. Each call of a region's program allocates its outputs from LibTorch's allocator
// (about 1 µs of host a buffer on the GPU machine's hosts, three buffers a kernel on average,
// paid on every step of a model run without CUDA graphs); most of them die before the program
// runs again (a layer's intermediate values), so the next call writes into the same memory.
// A kept buffer is handed out again only when
// - nothing else refers to it: its tensor and its storage are held by the recycler alone (no
//   value of a run, view, kept copy or caller holds them);
// - on CUDA, the current stream is the one it was made on (the work that read it is then ordered
//   before the new writes) and no CUDA graph is capturing there (a capture allocates from its
//   own pool, and the memory it records must stay its own);
// - it still has the program's sizes, strides and dtype.
// The kernels write every element of their outputs, so no call depends on a buffer's old
// contents. Up to kPerSlot buffers are kept for each output (one code may serve several regions
// of a model: the same layer's program called for every layer). They stay allocated while the
// code is loaded. FXSCOPE_OUTPUT_REUSE=0 in the environment turns reuse off (benchmarks). Not a
// public header: it names at::Tensor.
#pragma once

#include "core/codegen/loop_ir.h"

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace fxs::compile::detail {

class OutputRecycler {
public:
    static constexpr std::size_t kPerSlot = 4;

    // Output `slot` of `program`, on options' device: a kept buffer that may be reused, else a
    // new one (allocateOutput), kept for later calls. Thread-safe: a call that finds the
    // recycler busy allocates.
    at::Tensor take(std::size_t program, std::size_t slot, const codegen::BufferSpec& spec,
                    const at::TensorOptions& options);

    // Whether reuse is on in this process (FXSCOPE_OUTPUT_REUSE, read once).
    static bool enabled();
    // Buffers handed out again, by every recycler of the process (tests, diagnostics).
    static long reusedCount();

private:
    struct Kept {
        at::Tensor tensor;
        std::int64_t stream = 0; // CUDA: the stream current when it was made
    };
    struct Slot {
        std::vector<Kept> kept;
        std::size_t next = 0; // the entry a new buffer replaces when all are in use
    };
    std::mutex m_mutex;
    std::vector<std::vector<Slot>> m_slots; // program -> output slot
};

} // namespace fxs::compile::detail
