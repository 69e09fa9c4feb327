// INTERNAL to core/exec: runs a Plan over value slots: boxed dispatcher calls, composites,
// getitem, frees at last use, per-node wall time (with a device sync on CUDA) and the peak of
// distinct tensor storage bytes held. One run per call; callers loop for repeats.
#pragma once

#include "core/exec/execution_plan.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <functional>
#include <unordered_map>

namespace fxs::exec::detail {

// Bytes of distinct storages referenced by live values (views share their base's storage).
class MemoryTracker {
public:
    void add(const c10::IValue& v);
    void release(const c10::IValue& v);
    std::int64_t live() const { return m_live; }
    std::int64_t peak() const { return m_peak; }

private:
    void addTensor(const at::Tensor& t);
    void releaseTensor(const at::Tensor& t);
    std::unordered_map<const void*, std::pair<int, std::int64_t>> m_refs;
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
