#include "core/compile/schedule_runner.h"

#include "core/compile/region_graph.h"
// The extern steps reuse the eager engine's compiled plans: the interpreter's public run()
// would rebuild the plan and summarise outputs on every call, which the timing must not pay.
#include "core/exec/executor.h"

#include <unordered_map>

namespace fxs::compile::detail {

struct ExternStep {
    graph::GraphPtr graph;
    exec::detail::Plan plan;
};

struct ScheduleRunner::Impl {
    const RegionSchedule* schedule = nullptr;
    std::vector<graph::NodeId> inputs;
    std::vector<graph::NodeId> outputs;
    std::unordered_map<std::size_t, ExternStep> externs; // by step index

    Status runExtern(const ScheduleStep& step, const ExternStep& ext,
                     std::unordered_map<graph::NodeId, at::Tensor>& values) const;
};

ScheduleRunner::ScheduleRunner() : m_impl(std::make_unique<Impl>()) {}
ScheduleRunner::~ScheduleRunner() = default;

Result<std::unique_ptr<ScheduleRunner>> ScheduleRunner::create(
    const graph::Graph& graph, const RegionSchedule& schedule,
    const std::vector<graph::NodeId>& inputs, const std::vector<graph::NodeId>& outputs,
    c10::Device device)
{
    std::unique_ptr<ScheduleRunner> r(new ScheduleRunner());
    r->m_impl->schedule = &schedule;
    r->m_impl->inputs = inputs;
    r->m_impl->outputs = outputs;
    for (std::size_t i = 0; i < schedule.steps.size(); ++i) {
        const ScheduleStep& step = schedule.steps[i];
        if (step.generated) {
            continue;
        }
        auto sub = extractRegionGraph(graph, step.nodes, step.inputs, step.outputs);
        if (!sub) {
            return sub.error();
        }
        ExternStep ext{*sub, exec::detail::buildPlan(**sub, device)};
        if (!ext.plan.unsupported.empty()) {
            const auto& u = ext.plan.unsupported.front();
            return makeError(ErrorCode::Unsupported,
                             "the engine cannot run " + u.target + ": " + u.reason, u.node);
        }
        r->m_impl->externs.emplace(i, std::move(ext));
    }
    return r;
}

Status ScheduleRunner::Impl::runExtern(const ScheduleStep& step, const ExternStep& ext,
                                       std::unordered_map<graph::NodeId, at::Tensor>& values) const
{
    std::vector<c10::IValue> in(ext.graph->size());
    const auto& ph = ext.graph->placeholders();
    for (std::size_t i = 0; i < step.inputs.size() && i < ph.size(); ++i) {
        in[ph[i]] = values.at(step.inputs[i]);
    }
    exec::detail::ExecResult res;
    if (Status s = exec::detail::executePlan(ext.plan, *ext.graph, in, {false, false, nullptr}, res);
        !s) {
        return s;
    }
    for (std::size_t i = 0; i < step.outputs.size(); ++i) {
        if (i >= res.outputs.size() || !res.outputs[i].isTensor()) {
            return makeError(ErrorCode::Unsupported, "an extern step made a value that is not a "
                                                     "tensor",
                             ext.graph->name());
        }
        values[step.outputs[i]] = res.outputs[i].toTensor();
    }
    return {};
}

Result<std::vector<at::Tensor>> ScheduleRunner::run(const GeneratedCode& code,
                                                    const std::vector<at::Tensor>& inputs) const
{
    c10::InferenceMode inference;
    std::unordered_map<graph::NodeId, at::Tensor> values;
    for (std::size_t i = 0; i < inputs.size() && i < m_impl->inputs.size(); ++i) {
        values[m_impl->inputs[i]] = inputs[i];
    }
    const RegionSchedule& s = *m_impl->schedule;
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
        const ScheduleStep& step = s.steps[i];
        if (!step.generated) {
            if (Status st = m_impl->runExtern(step, m_impl->externs.at(i), values); !st) {
                return st.error();
            }
            continue;
        }
        std::vector<at::Tensor> in;
        for (graph::NodeId id : step.inputs) {
            in.push_back(values.at(id));
        }
        auto out = code.run(step.program, s.programs.at(std::size_t(step.program)), in);
        if (!out) {
            return out.error();
        }
        for (std::size_t k = 0; k < step.outputs.size() && k < out->size(); ++k) {
            values[step.outputs[k]] = std::move((*out)[k]);
        }
    }
    std::vector<at::Tensor> result;
    for (graph::NodeId id : m_impl->outputs) {
        result.push_back(values.at(id));
    }
    return result;
}

} // namespace fxs::compile::detail
