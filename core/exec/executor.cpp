// The executor's inner loop. Kept free of string work and allocation beyond the stack vector
// and what the operators themselves allocate: this is the per-node overhead the benchmark
// measures.
#include "core/exec/executor.h"
#include "core/exec/torch_bridge.h"
#include "core/util/elapsed.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>

#include <bit>
#include <chrono>

namespace fxs::exec::detail {
namespace {

using Clock = std::chrono::steady_clock;

void getitem(const Step& step, std::vector<c10::IValue>& slots)
{
    const c10::IValue& parent = slots[step.args[0].slot];
    c10::IValue value;
    const auto i = step.getitemIndex;
    if (parent.isTuple()) {
        const auto& elems = parent.toTupleRef().elements();
        TORCH_CHECK(i >= 0 && static_cast<std::size_t>(i) < elems.size(), "getitem index ", i,
                    " out of range");
        value = elems[i];
    } else if (parent.isList()) {
        value = parent.toListRef().at(i);
    } else if (parent.isTensor()) {
        value = parent.toTensor().select(0, i);
    } else {
        TORCH_CHECK(false, "getitem on a value that is not a tuple, list or tensor");
    }
    slots[step.node] = std::move(value);
}

void call(const Step& step, std::vector<c10::IValue>& slots, Stack& stack)
{
    stack.clear();
    for (const auto& a : step.args) {
        pushArgument(a, slots, stack);
    }
    if (step.kind == StepKind::Op) {
        step.op->callBoxed(&stack);
    } else {
        if (step.withContext) {
            step.withContext(stack, step.context);
        } else {
            step.fn(stack);
        }
        if (!step.recordedStrides.empty() && stack.size() == 1 && stack[0].isTensor()) {
            const at::Tensor& t = stack[0].toTensor();
            if (t.dim() == static_cast<std::int64_t>(step.recordedStrides.size()) &&
                t.strides() != at::IntArrayRef(step.recordedStrides)) {
                at::Tensor laid = at::empty_strided(t.sizes(), step.recordedStrides, t.options());
                stack[0] = laid.copy_(t);
            }
        }
    }
    if (stack.size() == 1) {
        slots[step.node] = std::move(stack[0]);
    } else if (stack.empty()) {
        slots[step.node] = c10::IValue();
    } else {
        slots[step.node] = c10::ivalue::Tuple::create(std::move(stack));
        stack = Stack();
    }
}

void collectOutputs(const Step& step, const std::vector<c10::IValue>& slots,
                    std::vector<c10::IValue>& outputs)
{
    outputs.clear();
    for (const auto& a : step.args) {
        outputs.push_back(a.kind == ArgStep::Kind::Slot ? slots[a.slot] : a.constant);
    }
}

void runStep(const Step& step, const std::vector<c10::IValue>& inputs,
             std::vector<c10::IValue>& slots, Stack& stack, std::vector<c10::IValue>& outputs)
{
    switch (step.kind) {
    case StepKind::Input:
        slots[step.node] = inputs[step.node];
        break;
    case StepKind::Op:
    case StepKind::Function:
        call(step, slots, stack);
        break;
    case StepKind::Getitem:
        getitem(step, slots);
        break;
    case StepKind::Output:
        collectOutputs(step, slots, outputs);
        break;
    case StepKind::Substitute:
        break; // executePlan runs it (runSubstitute): its errors are Results
    }
}

// A group the caller runs: its inputs as handles in, its outputs into their slots.
Status runSubstitute(const Step& step, std::vector<c10::IValue>& slots, MemoryTracker& memory)
{
    const Substitute& sub = *step.substitute;
    std::vector<TensorHandle> in;
    in.reserve(sub.inputs.size());
    for (graph::NodeId id : sub.inputs) {
        if (!slots[id].isTensor()) {
            return makeError(ErrorCode::Unsupported, "a substituted group reads a value that is "
                                                     "not a tensor",
                             sub.name);
        }
        in.push_back(makeHandle(slots[id].toTensor()));
    }
    auto out = sub.run(in);
    if (!out) {
        Error e = out.error();
        e.where = e.where.empty() ? sub.name : e.where;
        return e;
    }
    if (out->size() != sub.outputs.size()) {
        return makeError(ErrorCode::Internal,
                         "a substituted group returned " + std::to_string(out->size()) +
                             " values for " + std::to_string(sub.outputs.size()) + " outputs",
                         sub.name);
    }
    for (std::size_t i = 0; i < out->size(); ++i) {
        slots[sub.outputs[i]] = tensorOf((*out)[i]);
        memory.add(slots[sub.outputs[i]]);
    }
    return {};
}

} // namespace

MemoryTracker::MemoryTracker() = default; // the table is made by the first tensor added

// Fibonacci hashing: the high bits of the address times 2^64 / phi.
std::size_t MemoryTracker::home(const void* storage) const
{
    const auto h = reinterpret_cast<std::uintptr_t>(storage) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h >> m_shift);
}

std::size_t MemoryTracker::slotOf(const void* storage) const
{
    const std::size_t mask = m_table.size() - 1;
    std::size_t i = home(storage);
    while (m_table[i].storage != nullptr && m_table[i].storage != storage) {
        i = (i + 1) & mask;
    }
    return i;
}

// Backward-shift deletion: entries after the freed slot that probed past it move back, so
// lookups never need tombstones.
void MemoryTracker::erase(std::size_t slot)
{
    const std::size_t mask = m_table.size() - 1;
    std::size_t hole = slot;
    for (std::size_t j = (hole + 1) & mask; m_table[j].storage != nullptr; j = (j + 1) & mask) {
        const std::size_t h = home(m_table[j].storage);
        // The entry stays when its home lies cyclically in (hole, j].
        const bool stays = hole < j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (!stays) {
            m_table[hole] = m_table[j];
            hole = j;
        }
    }
    m_table[hole] = Entry{};
    --m_used;
}

void MemoryTracker::grow()
{
    std::vector<Entry> old(m_table.empty() ? 16 : m_table.size() * 2);
    old.swap(m_table);
    m_shift = 64 - std::countr_zero(m_table.size());
    for (const Entry& e : old) {
        if (e.storage != nullptr) {
            m_table[slotOf(e.storage)] = e;
        }
    }
}

void MemoryTracker::addTensor(const at::Tensor& t)
{
    if (!t.defined() || !t.has_storage()) {
        return;
    }
    if (2 * (m_used + 1) > m_table.size()) {
        grow();
    }
    const auto& storage = t.storage();
    Entry& entry = m_table[slotOf(storage.unsafeGetStorageImpl())];
    if (entry.storage == nullptr) {
        entry = {storage.unsafeGetStorageImpl(), 1, static_cast<std::int64_t>(storage.nbytes())};
        ++m_used;
        m_live += entry.bytes;
        m_peak = std::max(m_peak, m_live);
    } else {
        ++entry.refs;
    }
}

void MemoryTracker::releaseTensor(const at::Tensor& t)
{
    if (!t.defined() || !t.has_storage()) {
        return;
    }
    if (m_used == 0) {
        return; // nothing counted (perhaps no table yet)
    }
    const std::size_t slot = slotOf(t.storage().unsafeGetStorageImpl());
    Entry& entry = m_table[slot];
    if (entry.storage != nullptr && --entry.refs == 0) {
        m_live -= entry.bytes;
        erase(slot);
    }
}

void MemoryTracker::add(const c10::IValue& v)
{
    if (v.isTensor()) {
        addTensor(v.toTensor());
    } else if (v.isTuple()) {
        for (const auto& e : v.toTupleRef().elements()) {
            add(e);
        }
    } else if (v.isList()) {
        for (const auto& e : v.toListRef()) {
            add(e);
        }
    }
}

void MemoryTracker::release(const c10::IValue& v)
{
    if (v.isTensor()) {
        releaseTensor(v.toTensor());
    } else if (v.isTuple()) {
        for (const auto& e : v.toTupleRef().elements()) {
            release(e);
        }
    } else if (v.isList()) {
        for (const auto& e : v.toListRef()) {
            release(e);
        }
    }
}

Status executePlan(const Plan& plan, const graph::Graph& graph,
                   const std::vector<c10::IValue>& inputs, const ExecOptions& options,
                   ExecResult& result)
{
    auto& slots = result.slots;
    slots.assign(graph.size(), c10::IValue());
    result.stepMs.assign(plan.steps.size(), 0.0);
    MemoryTracker memory;
    for (const auto& v : inputs) {
        memory.add(v); // inputs stay alive for the whole run (the caller holds them)
    }
    Stack stack;
    stack.reserve(16);
    const bool hooked = options.onSteps != nullptr && *options.onSteps;
    if (hooked) {
        (*options.onSteps)(true);
    }
    const auto runStart = Clock::now();
    for (const Step& step : plan.steps) {
        if (options.cancel && options.cancel->isCancelled()) {
            return makeError(ErrorCode::Cancelled, "run cancelled");
        }
        const auto t0 = options.timing ? Clock::now() : Clock::time_point();
        try {
            if (step.kind == StepKind::Substitute) {
                if (Status st = runSubstitute(step, slots, memory); !st) {
                    return st;
                }
            } else {
                runStep(step, inputs, slots, stack, result.outputs);
            }
            if (options.syncCuda) {
                torch::cuda::synchronize();
            }
        } catch (const std::exception& e) {
            const auto& node = graph.node(step.node);
            Error err = makeError(ErrorCode::Runtime, torchMessage(e),
                                  step.substitute ? step.substitute->name : node.name);
            err.expected = node.target;
            return err;
        }
        if (step.kind != StepKind::Substitute) {
            memory.add(slots[step.node]);
        }
        for (auto dead : step.freeAfter) {
            memory.release(slots[dead]);
            slots[dead] = c10::IValue();
        }
        if (options.timing) {
            result.stepMs[&step - plan.steps.data()] = msSince(t0);
        }
        const bool call = step.kind == StepKind::Op || step.kind == StepKind::Function ||
                          step.kind == StepKind::Getitem;
        if (call && options.onNode != nullptr && *options.onNode) {
            (*options.onNode)(step.node); // after the step's time was taken
        }
    }
    if (hooked) {
        (*options.onSteps)(false);
    }
    result.totalMs = msSince(runStart);
    result.peakBytes = memory.peak();
    result.liveBytesAtEnd = memory.live();
    return {};
}

} // namespace fxs::exec::detail
