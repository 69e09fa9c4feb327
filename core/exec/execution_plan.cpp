// Builds the execution plan: resolves each node's operator once (dispatcher handle, else the
// composite table, else an `operator` builtin) and converts its arguments by schema. Every
// node that cannot run is collected, so the caller can list them all before running anything.
#include "core/exec/execution_plan.h"
#include "core/exec/composites.h"
#include "core/exec/substitute_order.h"

#include <ATen/core/dispatch/Dispatcher.h>

namespace fxs::exec::detail {
namespace {

using graph::ArgKind;
using graph::Node;

bool hasKernelFor(const c10::OperatorHandle& op, c10::Device device)
{
    const auto key = device.is_cuda() ? c10::DispatchKey::CUDA : c10::DispatchKey::CPU;
    return op.hasComputedKernelForDispatchKey(key);
}

void unsupported(Plan& plan, const Node& node, std::string reason)
{
    plan.unsupported.push_back({node.name, node.target, std::move(reason)});
}

bool planGetitem(const Node& node, Step& step, Plan& plan)
{
    if (node.args.size() != 2 || !node.args[0].isNode() || node.args[1].kind != ArgKind::Int) {
        unsupported(plan, node, "getitem with an index other than an integer");
        return false;
    }
    step.kind = StepKind::Getitem;
    step.getitemIndex = static_cast<int>(node.args[1].i);
    ArgStep parent;
    parent.kind = ArgStep::Kind::Slot;
    parent.slot = node.args[0].node;
    step.args.push_back(std::move(parent));
    return true;
}

// A literal or node reference, without a schema (builtins, the output node).
bool planLoose(const graph::Argument& a, ArgStep& out)
{
    out = ArgStep{};
    switch (a.kind) {
    case ArgKind::Node:
        out.kind = ArgStep::Kind::Slot;
        out.slot = a.node;
        return true;
    case ArgKind::None:
        return true;
    case ArgKind::Int:
        out.constant = a.i;
        return true;
    case ArgKind::Float:
        out.constant = a.f;
        return true;
    case ArgKind::Bool:
        out.constant = a.b;
        return true;
    default:
        return false;
    }
}

bool planBuiltin(const Node& node, Step& step, Plan& plan)
{
    int arity = 0;
    step.fn = findOperatorBuiltin(graph::opBaseName(node.target), arity);
    if (!step.fn) {
        unsupported(plan, node, "Python builtin not supported by the interpreter");
        return false;
    }
    if (static_cast<int>(node.args.size()) != arity || !node.kwargs.empty()) {
        unsupported(plan, node, "expected " + std::to_string(arity) + " positional arguments");
        return false;
    }
    step.kind = StepKind::Function;
    for (const auto& a : node.args) {
        ArgStep s;
        if (!planLoose(a, s)) {
            unsupported(plan, node, "unsupported builtin argument");
            return false;
        }
        step.args.push_back(std::move(s));
    }
    return true;
}

// The node's recorded output strides when sizes and strides are concrete and lay the tensor
// out densely without overlap (a permutation of a contiguous layout); empty otherwise.
std::vector<std::int64_t> concreteStrides(const Node& node)
{
    const graph::TensorMeta* m = node.tensorMeta();
    if (m == nullptr || !m->strides || m->strides->size() != m->sizes.size() ||
        m->hasSymbolicSizes()) {
        return {};
    }
    std::vector<std::int64_t> out;
    std::int64_t extent = 1;
    for (std::size_t i = 0; i < m->sizes.size(); ++i) {
        const auto& s = (*m->strides)[i];
        if (s.isSymbolic() || s.value < 0) {
            return {};
        }
        extent += (m->sizes[i].value - 1) * s.value;
        out.push_back(s.value);
    }
    return extent == m->numel().value_or(-1) ? out : std::vector<std::int64_t>{};
}

bool planOperator(const Node& node, c10::Device device, Step& step, Plan& plan)
{
    const auto base = graph::opBaseName(node.target);
    const auto ns = node.target.substr(0, node.target.find("::"));
    const std::string name = ns + "::" + std::string(base);
    std::string overload(graph::opOverload(node.target));
    if (overload == "default") {
        overload.clear();
    }
    const c10::FunctionSchema* schema = nullptr;
    auto handle = c10::Dispatcher::singleton().findSchema({name, overload});
    const bool runnable = handle && hasKernelFor(*handle, device);
    if (runnable) {
        step.kind = StepKind::Op;
        step.op = *handle;
        schema = &handle->schema();
    } else if (const Composite* c = findComposite(name, overload)) {
        step.kind = StepKind::Function;
        step.fn = c->fn;
        schema = &compositeSchema(*c);
        step.recordedStrides = concreteStrides(node);
    } else {
        unsupported(plan, node,
                    handle ? std::string("no ") + (device.is_cuda() ? "CUDA" : "CPU") +
                                 " kernel in this LibTorch and no composite"
                           : "operator not in this LibTorch and no composite");
        return false;
    }
    std::string reason;
    if (!planArguments(node, *schema, device, step.args, reason)) {
        unsupported(plan, node, reason);
        return false;
    }
    step.numReturns = schema->returns().size();
    return true;
}

bool planOutput(const Node& node, Step& step, Plan& plan)
{
    step.kind = StepKind::Output;
    const auto& ret = node.args.empty() ? graph::Argument::tuple({}) : node.args[0];
    const auto& items = ret.isSequence() ? ret.items : std::vector<graph::Argument>{ret};
    for (const auto& a : items) {
        ArgStep s;
        if (!planLoose(a, s)) {
            unsupported(plan, node, "returned value is not a node, a number or None");
            return false;
        }
        step.args.push_back(std::move(s));
    }
    return true;
}

bool planNode(const Node& node, c10::Device device, Step& step, Plan& plan)
{
    switch (node.op) {
    case graph::OpKind::Placeholder:
    case graph::OpKind::GetAttr:
        step.kind = StepKind::Input;
        return true;
    case graph::OpKind::Output:
        return planOutput(node, step, plan);
    case graph::OpKind::CallFunction:
        if (node.target == "operator.getitem") {
            return planGetitem(node, step, plan);
        }
        if (node.target.rfind("operator.", 0) == 0 || node.target.rfind("_operator.", 0) == 0) {
            return planBuiltin(node, step, plan);
        }
        if (node.target.find("::") != std::string::npos) {
            return planOperator(node, device, step, plan);
        }
        unsupported(plan, node,
                    "not an operator overload (a dynamo-level graph?); run an AOT graph");
        return false;
    default:
        unsupported(plan, node, std::string(graph::opKindName(node.op)) + " nodes are not run");
        return false;
    }
}

void appendNodeStep(const Node& node, c10::Device device, std::vector<graph::NodeId> frees,
                    Plan& plan)
{
    Step step;
    step.node = node.id;
    if (planNode(node, device, step, plan)) {
        if (step.kind == StepKind::Op || step.kind == StepKind::Function ||
            step.kind == StepKind::Getitem) {
            ++plan.callNodes;
        }
    }
    step.freeAfter = std::move(frees);
    plan.steps.push_back(std::move(step));
}

// Steps in the order orderWithSubstitutes gives: a group is one step (its nodes are not
// planned: the caller runs them), values freed after their last step.
void planWithSubstitutes(const graph::Graph& graph, c10::Device device,
                         const std::vector<graph::NodeId>& keep,
                         const std::vector<Substitute>& substitutes, Plan& plan)
{
    auto order = orderWithSubstitutes(graph, substitutes);
    if (!order) {
        plan.unsupported.push_back({order.error().where, "", order.error().message});
        return;
    }
    std::vector<std::size_t> position(graph.size(), 0);
    for (std::size_t i = 0; i < order->size(); ++i) {
        const OrderedUnit& u = (*order)[i];
        if (u.substitute < 0) {
            position[u.node] = i;
            continue;
        }
        for (graph::NodeId n : substitutes[std::size_t(u.substitute)].nodes) {
            position[n] = i;
        }
    }
    auto frees = computeFreesAt(graph, keep, position, order->size());
    for (std::size_t i = 0; i < order->size(); ++i) {
        const OrderedUnit& u = (*order)[i];
        if (u.substitute < 0) {
            appendNodeStep(graph.node(u.node), device, std::move(frees[i]), plan);
            continue;
        }
        const Substitute& sub = substitutes[std::size_t(u.substitute)];
        Step step;
        step.kind = StepKind::Substitute;
        step.node = sub.outputs.empty() ? sub.nodes.front() : sub.outputs.front();
        step.substitute = &sub;
        step.freeAfter = std::move(frees[i]);
        for (graph::NodeId n : sub.nodes) {
            plan.callNodes += graph.node(n).op == graph::OpKind::CallFunction ? 1 : 0;
        }
        plan.steps.push_back(std::move(step));
    }
}

} // namespace

Plan buildPlan(const graph::Graph& graph, c10::Device device,
               const std::vector<graph::NodeId>& keep, const std::vector<Substitute>& substitutes)
{
    Plan plan;
    plan.steps.reserve(graph.size());
    if (!substitutes.empty()) {
        planWithSubstitutes(graph, device, keep, substitutes, plan);
        return plan;
    }
    auto frees = computeFrees(graph, keep);
    for (const auto& node : graph.nodes()) {
        appendNodeStep(graph.node(node.id), device, std::move(frees[node.id]), plan);
    }
    return plan;
}

namespace {

// The steps that call the operator `name`.`overload` ("": .default), made function steps.
std::vector<Step*> asFunctionSteps(Plan& plan, std::string_view name,
                                   std::string_view overload = {})
{
    std::vector<Step*> steps;
    for (Step& step : plan.steps) {
        if (step.kind != StepKind::Op || !step.op) {
            continue;
        }
        const c10::OperatorName& op = step.op->operator_name();
        if (op.name != name || op.overload_name != overload) {
            continue;
        }
        step.kind = StepKind::Function;
        step.op.reset();
        step.recordedStrides.clear(); // the choice decides its result's layout
        steps.push_back(&step);
    }
    return steps;
}

} // namespace

void runOperatorAs(Plan& plan, std::string_view name, StackFn fn)
{
    for (Step* step : asFunctionSteps(plan, name)) {
        step->fn = fn;
    }
}

void runOperatorAs(Plan& plan, std::string_view name, std::string_view overload, ContextFn fn,
                   void* context)
{
    for (Step* step : asFunctionSteps(plan, name, overload)) {
        step->withContext = fn;
        step->context = context;
    }
}

} // namespace fxs::exec::detail
