// INTERNAL to core/exec: runs a Plan over value slots: boxed dispatcher calls, composites,
// getitem, frees at last use, per-node wall time (with a device sync on CUDA) and the peak of
// distinct tensor storage bytes held. One run per call; callers loop for repeats.
#pragma once

#include "core/exec/execution_plan.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <functional>

namespace fxs::exec::detail {

// Bytes of distinct storages referenced by live values (views share their base's storage).
// Each node's value is added and released once: the storages are counted in an open-addressing
// table (linear probing) that allocates only when it grows, not per value.
class MemoryTracker {
public:
    MemoryTracker();
    void add(const c10::IValue& v);
    void release(const c10::IValue& v);
    std::int64_t live() const { return m_live; }
    std::int64_t peak() const { return m_peak; }
    std::size_t storages() const { return m_used; } // distinct storages counted now

private:
    struct Entry {
        const void* storage = nullptr; // null: a free slot
        int refs = 0;
        std::int64_t bytes = 0;
    };
    void addTensor(const at::Tensor& t);
    void releaseTensor(const at::Tensor& t);
    std::size_t home(const void* storage) const;
    std::size_t slotOf(const void* storage) const; // its slot, else the free one to take
    void erase(std::size_t slot);
    void grow();
    std::vector<Entry> m_table; // size a power of two, at most half full; empty until used
    std::size_t m_used = 0;
    int m_shift = 64;           // 64 - log2(table size)
    std::int64_t m_live = 0;
    std::int64_t m_peak = 0;
};

struct ExecOptions {
    bool timing = true;
    bool syncCuda = false; // synchronise after each node (timing on a GPU)
    const CancelToken* cancel = nullptr;
    const std::function<void(graph::NodeId)>* onNode = nullptr; // RunOptions::onNode
    const std::function<void(bool)>* onSteps = nullptr;          // RunOptions::onSteps
};

struct ExecResult {
    std::vector<c10::IValue> outputs;  // the output node's values, in return order
    std::vector<c10::IValue> slots;    // kept values remain here after the run
    std::vector<double> stepMs;        // per step (0 for steps not timed)
    double totalMs = 0;
    std::int64_t peakBytes = 0;
    std::int64_t liveBytesAtEnd = 0;   // after the run, before the outputs are handed back
};

// inputs: one value per Input step (indexed by node id; others ignored).
Status executePlan(const Plan& plan, const graph::Graph& graph,
                   const std::vector<c10::IValue>& inputs, const ExecOptions& options,
                   ExecResult& result);

// Message of a LibTorch exception without its C++ backtrace (defined in tensor_handle.cpp, which
// the fuzz sub-build's exec keeps).
std::string torchMessage(const std::exception& e);

} // namespace fxs::exec::detail
