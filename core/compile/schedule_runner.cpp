#include "core/compile/schedule_runner.h"

#include "core/compile/region_graph.h"
// The extern steps reuse the eager engine's compiled plans: the interpreter's public run()
// would rebuild the plan and summarise outputs on every call, which the timing must not pay.
#include "core/exec/direct_views.h"
#include "core/exec/executor.h"

#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace fxs::compile::detail {

struct ExternStep {
    graph::GraphPtr graph;
    exec::detail::Plan plan;
};

// A step's values by slot: the region's values are numbered once in create(), so a run keeps
// them in a vector and frees each after the last step that reads it.
struct StepSlots {
    std::vector<std::size_t> in;
    std::vector<std::size_t> out;
    std::vector<std::size_t> freeAfter; // values no later step reads and the region keeps not
    const ExternStep* ext = nullptr;    // extern steps
    std::vector<graph::NodeId> placeholders; // extern: the sub-graph's, in step.inputs' order
};

struct ScheduleRunner::Impl {
    const RegionSchedule* schedule = nullptr;
    std::vector<std::size_t> inputs;  // region inputs' slots, in call order
    std::vector<std::size_t> outputs; // region outputs' slots
    std::size_t slots = 0;
    std::vector<StepSlots> steps;     // one per schedule step
    std::vector<std::unique_ptr<ExternStep>> externs;
    // One generated step reading the region's inputs and making its outputs, both in call
    // order (most regions): run() hands the inputs to it and returns its outputs as they are.
    bool single = false;

    void numberValues(const std::vector<graph::NodeId>& in, const std::vector<graph::NodeId>& out);
    Status runExtern(const StepSlots& step, std::vector<at::Tensor>& values) const;
};

// Slots for the region inputs, every step's inputs and outputs and the region outputs; each
// value freed after the last step that reads it unless the region returns it.
void ScheduleRunner::Impl::numberValues(const std::vector<graph::NodeId>& in,
                                        const std::vector<graph::NodeId>& out)
{
    std::unordered_map<graph::NodeId, std::size_t> slotOf;
    const auto slot = [&](graph::NodeId id) {
        return slotOf.try_emplace(id, slotOf.size()).first->second;
    };
    for (graph::NodeId id : in) {
        inputs.push_back(slot(id));
    }
    steps.resize(schedule->steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
        for (graph::NodeId id : schedule->steps[i].inputs) {
            steps[i].in.push_back(slot(id));
        }
        for (graph::NodeId id : schedule->steps[i].outputs) {
            steps[i].out.push_back(slot(id));
        }
    }
    for (graph::NodeId id : out) {
        outputs.push_back(slot(id));
    }
    slots = slotOf.size();
    std::vector<std::ptrdiff_t> lastRead(slots, -1);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        for (std::size_t v : steps[i].in) {
            lastRead[v] = std::ptrdiff_t(i);
        }
        for (std::size_t v : steps[i].out) { // one no step reads: freed where it is made
            lastRead[v] = std::max(lastRead[v], std::ptrdiff_t(i));
        }
    }
    for (std::size_t v : outputs) {
        lastRead[v] = -1; // returned: kept to the end
    }
    for (std::size_t v = 0; v < slots; ++v) {
        if (lastRead[v] >= 0) {
            steps[std::size_t(lastRead[v])].freeAfter.push_back(v);
        }
    }
}

ScheduleRunner::ScheduleRunner() : m_impl(std::make_unique<Impl>()) {}
ScheduleRunner::~ScheduleRunner() = default;

Result<std::unique_ptr<ScheduleRunner>> ScheduleRunner::create(
    const graph::Graph& graph, const RegionSchedule& schedule,
    const std::vector<graph::NodeId>& inputs, const std::vector<graph::NodeId>& outputs,
    c10::Device device)
{
    std::unique_ptr<ScheduleRunner> r(new ScheduleRunner());
    Impl& impl = *r->m_impl;
    impl.schedule = &schedule;
    impl.numberValues(inputs, outputs);
    impl.single = schedule.steps.size() == 1 && schedule.steps[0].generated &&
                  impl.steps[0].in == impl.inputs && impl.steps[0].out == impl.outputs;
    for (std::size_t i = 0; i < schedule.steps.size(); ++i) {
        const ScheduleStep& step = schedule.steps[i];
        if (step.generated) {
            continue;
        }
        auto sub = extractRegionGraph(graph, step.nodes, step.inputs, step.outputs);
        if (!sub) {
            return sub.error();
        }
        auto ext = std::make_unique<ExternStep>(
            ExternStep{*sub, exec::detail::buildPlan(**sub, device)});
        if (!ext->plan.unsupported.empty()) {
            const auto& u = ext->plan.unsupported.front();
            return makeError(ErrorCode::Unsupported,
                             "the engine cannot run " + u.target + ": " + u.reason, u.node);
        }
        // Most LibTorch steps of a region are views of what its kernels made (GPT-12: 48 of
        // 61 forward regions end in one): made as aliases directly, as the graph's own views
        // are, not through the dispatcher on every call.
        exec::detail::runViewsDirectly(ext->plan);
        const auto& ph = ext->graph->placeholders();
        impl.steps[i].placeholders.assign(ph.begin(),
                                          ph.begin() + std::ptrdiff_t(std::min(
                                                           ph.size(), step.inputs.size())));
        impl.steps[i].ext = ext.get();
        impl.externs.push_back(std::move(ext));
    }
    return r;
}

Status ScheduleRunner::Impl::runExtern(const StepSlots& step, std::vector<at::Tensor>& values) const
{
    const ExternStep& ext = *step.ext;
    std::vector<c10::IValue> in(ext.graph->size());
    for (std::size_t i = 0; i < step.placeholders.size(); ++i) {
        in[step.placeholders[i]] = values[step.in[i]];
    }
    exec::detail::ExecResult res;
    if (Status s = exec::detail::executePlan(ext.plan, *ext.graph, in, {false, false, nullptr}, res);
        !s) {
        return s;
    }
    for (std::size_t i = 0; i < step.out.size(); ++i) {
        if (i >= res.outputs.size() || !res.outputs[i].isTensor()) {
            return makeError(ErrorCode::Unsupported, "an extern step made a value that is not a "
                                                     "tensor",
                             ext.graph->name());
        }
        values[step.out[i]] = std::move(res.outputs[i]).toTensor();
    }
    return {};
}

Result<std::vector<at::Tensor>> ScheduleRunner::run(const GeneratedCode& code,
                                                    const std::vector<at::Tensor>& inputs) const
{
    std::optional<c10::InferenceMode> inference; // the engine's runs are in it already
    if (!c10::InferenceMode::is_enabled()) {
        inference.emplace();
    }
    const Impl& impl = *m_impl;
    if (inputs.size() != impl.inputs.size()) {
        return makeError(ErrorCode::Internal, "the region was given " +
                                                  std::to_string(inputs.size()) + " inputs for " +
                                                  std::to_string(impl.inputs.size()));
    }
    if (impl.single) {
        const ScheduleStep& step = impl.schedule->steps[0];
        auto out = code.run(step.program,
                            impl.schedule->programs.at(std::size_t(step.program)), inputs);
        if (out && out->size() != impl.outputs.size()) {
            return makeError(ErrorCode::Internal, "the region's program made " +
                                                      std::to_string(out->size()) +
                                                      " outputs for " +
                                                      std::to_string(impl.outputs.size()));
        }
        return out;
    }
    std::vector<at::Tensor> values(impl.slots);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        values[impl.inputs[i]] = inputs[i];
    }
    const RegionSchedule& s = *impl.schedule;
    std::vector<at::Tensor> in;
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
        const ScheduleStep& step = s.steps[i];
        const StepSlots& slots = impl.steps[i];
        if (!step.generated) {
            if (Status st = impl.runExtern(slots, values); !st) {
                return st.error();
            }
        } else {
            in.clear();
            for (std::size_t v : slots.in) {
                in.push_back(values[v]);
            }
            auto out = code.run(step.program, s.programs.at(std::size_t(step.program)), in);
            if (!out) {
                return out.error();
            }
            for (std::size_t k = 0; k < slots.out.size() && k < out->size(); ++k) {
                values[slots.out[k]] = std::move((*out)[k]);
            }
        }
        for (std::size_t v : slots.freeAfter) {
            values[v] = at::Tensor();
        }
    }
    std::vector<at::Tensor> result;
    result.reserve(impl.outputs.size());
    for (std::size_t v : impl.outputs) {
        result.push_back(values[v]);
    }
    return result;
}

} // namespace fxs::compile::detail
