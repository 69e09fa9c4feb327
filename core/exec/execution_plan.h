// INTERNAL to core/exec: a graph compiled once into steps the executor runs without any string
// work: resolved operator handles (or composite functions), argument recipes built from each
// operator's schema, and the values to free after each step (liveness).
#pragma once

#include "core/exec/interpreter.h"
#include "core/graph/graph.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace fxs::exec::detail {

using Stack = std::vector<c10::IValue>;
// A composite or builtin: pops its arguments from the stack (in schema order) and pushes its
// returns.
using StackFn = void (*)(Stack& stack);
// The same with state the plan's owner keeps alive for as long as the plan runs (Step::context).
using ContextFn = void (*)(Stack& stack, void* context);

// How one argument is produced at run time.
struct ArgStep {
    enum class Kind : std::uint8_t {
        Const,         // a constant converted once (ints, lists, dtypes, wrapped numbers, None)
        Slot,          // another node's value
        TensorList,    // Tensor[] built from items (all Slot)
        OptTensorList, // Tensor?[] built from items (Slot or Const None)
        IntList,       // int[] / SymInt[] with some items from nodes (Const or Slot)
        FloatList,     // float[] with some items from nodes
    };
    Kind kind = Kind::Const;
    c10::IValue constant;
    graph::NodeId slot = graph::kNoNode;
    std::vector<ArgStep> items;
};

// Substitute: a group of nodes the caller runs (RunOptions::substitutes).
enum class StepKind : std::uint8_t { Input, Op, Function, Getitem, Output, Substitute };

struct Step {
    graph::NodeId node = graph::kNoNode;
    StepKind kind = StepKind::Op;
    std::optional<c10::OperatorHandle> op; // Op
    StackFn fn = nullptr;                  // Function: composite or operator builtin
    ContextFn withContext = nullptr;       // Function: instead of fn, called with `context`
    void* context = nullptr;
    std::vector<ArgStep> args;
    std::size_t numReturns = 1;            // >1: the value is a tuple of the returns
    int getitemIndex = 0;                  // Getitem: args[0] is the parent slot
    // Function steps returning one tensor: the strides the graph recorded for it. A composite
    // cannot know which kernel the real operator picked (scaled_dot_product_attention's output
    // layout differs by backend), so its result is given these strides when they differ.
    std::vector<std::int64_t> recordedStrides;
    std::vector<graph::NodeId> freeAfter;  // slots released once this step ran
    const Substitute* substitute = nullptr; // Substitute: the group (owned by RunOptions)
};

struct Plan {
    // One per node in graph order; with substitutes, one per group instead of its nodes and
    // the others reordered around it only as far as the group needs.
    std::vector<Step> steps;
    std::vector<UnsupportedOp> unsupported;
    int callNodes = 0;                     // steps of kind Op, Function or Getitem
};

// Compiles the graph for `device`. Nodes that cannot run are listed in Plan::unsupported (every
// one of them, not only the first). `keep` nodes are never freed. `substitutes` (not owned;
// they must outlive the plan) replace their nodes by one step each; a group that is not convex
// is listed as unsupported.
Plan buildPlan(const graph::Graph& graph, c10::Device device,
               const std::vector<graph::NodeId>& keep = {},
               const std::vector<Substitute>& substitutes = {});

// Every step that calls the operator `name` (its .default overload, "aten::addmm") becomes a
// function step running `fn` on the same arguments (the plan's kernel choices below).
void runOperatorAs(Plan& plan, std::string_view name, StackFn fn);

// The same with a function that takes `context` (not owned; it must outlive the plan's runs),
// for the operator's `overload` ("" for .default).
void runOperatorAs(Plan& plan, std::string_view name, std::string_view overload, ContextFn fn,
                   void* context);

// RunOptions::chooseAddmm (interpreter.h): every step of aten::addmm.default becomes a function
// step that runs a 1-D-bias addmm as LibTorch's addmm or as mm then an in-place bias add,
// whichever this process timed faster for its operands; with `direct` (a compiled run's
// RunOptions::directMatmuls on CUDA) each way calls cuBLAS itself where it can
// (direct_calls.h). addmm_choice.cpp.
void chooseAddmmKernels(Plan& plan, bool direct);
// The operand signatures timed so far in this process: (those run as mm + add, all).
std::pair<int, int> addmmChoiceCounts();

// RunOptions::directMatmuls (interpreter.h): every step of aten::mm.default becomes a function
// step that calls cuBLAS itself where it can (direct_calls.h), else LibTorch's mm.
void runMatmulsDirectly(Plan& plan);

// Converts a node's arguments into recipes following `schema` (positional, keyword, defaults,
// scalars to wrapped-number tensors, lists, dtypes, devices remapped to `device`). On failure
// returns false and sets `reason`.
bool planArguments(const graph::Node& node, const c10::FunctionSchema& schema, c10::Device device,
                   std::vector<ArgStep>& out, std::string& reason);

// Pushes one argument's value onto the stack.
void pushArgument(const ArgStep& arg, const std::vector<c10::IValue>& slots, Stack& stack);

// For every node, the nodes whose values die right after it runs (their last use), skipping
// returned values and `keep`.
std::vector<std::vector<graph::NodeId>> computeFrees(const graph::Graph& graph,
                                                     const std::vector<graph::NodeId>& keep);
// The same for steps in another order: position[node] is the step that runs the node (a
// substitute's nodes share its step); the result is indexed by step.
std::vector<std::vector<graph::NodeId>> computeFreesAt(const graph::Graph& graph,
                                                       const std::vector<graph::NodeId>& keep,
                                                       const std::vector<std::size_t>& position,
                                                       std::size_t steps);

} // namespace fxs::exec::detail
