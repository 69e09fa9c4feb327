// One FX node: its op kind, target, arguments, output meta and where it came from. Nodes live
// inside an immutable Graph and are addressed by NodeId (their index in graph order).
#pragma once

#include "core/graph/argument.h"
#include "core/graph/tensor_meta.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fxs::graph {

enum class OpKind : std::uint8_t { Placeholder, CallFunction, CallMethod, CallModule, GetAttr, Output };

std::string_view opKindName(OpKind op); // "placeholder", "call_function", ...

// From a `# File: path:line in fn, code: text` comment.
struct SourceLoc {
    std::string file;
    int line = 0;
    std::string function;
    std::string code;
    bool known() const { return !file.empty(); }
};

// From a `# Annotation: {'compile_with_inductor': 0}` comment: the dict as printed and its
// entries as (key, value text) pairs, e.g. ("compile_with_inductor", "0").
struct Annotation {
    std::string text;
    std::vector<std::pair<std::string, std::string>> entries;
    const std::string* get(std::string_view key) const;
};

// From an AOT comment such as `# PlainAOTInput(idx=0)`,
// `# SavedForBackwardsAOTOutput(idx=2)` or `# TangentAOTInput(output=PlainAOTOutput(idx=0))`.
struct AotTag {
    std::string kind; // "PlainAOTInput", "SavedForBackwardsAOTOutput", ...
    std::string text; // the whole comment text without '#'
    int idx = -1;     // the outermost idx=N, or -1
};

// One entry of torch.export's `nn_module_stack` metadata: a module the node was traced in.
struct ModuleFrame {
    std::string key;  // the stack's key ("L__self__fc1", or an object id)
    std::string path; // the module's path from the root ("blocks.0.attn"; "" for the root)
    std::string type; // its qualified class ("torch.nn.modules.linear.Linear")
    bool operator==(const ModuleFrame&) const = default;
};

struct Node {
    NodeId id = kNoNode;
    std::string name;
    OpKind op = OpKind::CallFunction;
    // call_function: "aten::add.Tensor", "operator.getitem", "torch.sin",
    //   "higher_order.invoke_subgraph"; call_method: the method ("relu");
    // get_attr: the attribute path ("fwd_body_0"); placeholder: the parameter name;
    // output: "output".
    std::string target;
    std::vector<Argument> args;
    std::vector<std::pair<std::string, Argument>> kwargs;

    std::vector<NodeId> inputs; // distinct referenced nodes, first appearance order (derived)
    std::vector<NodeId> users;  // nodes that reference this one, graph order (derived)

    ValueMeta meta;             // output meta from the annotation string, when printed
    SourceLoc source;
    std::optional<Annotation> annotation;
    std::optional<AotTag> aot;               // placeholders with an AOT comment
    std::vector<std::optional<AotTag>> outputAot; // output node: one per returned value
    // Modules the node was traced in, outermost (the root) first, from a `.pt2` archive's
    // `nn_module_stack`; empty when the input says nothing about modules (printed graph code).
    std::vector<ModuleFrame> moduleStack;

    // Multi-output: a node whose result is a tuple (native_layer_norm, split, ...) and the
    // `x[i]` users that unpack it (derived by the builder).
    bool multiOutput = false;
    NodeId getitemOf = kNoNode; // for `name = parent[i]` with parent multi-output
    int getitemIndex = -1;

    int line = 0;          // 1-based line of the statement in the source text; 0 if built
    std::string statement; // the printed statement as it appeared, for the inspector

    bool isPlaceholder() const { return op == OpKind::Placeholder; }
    bool isOutput() const { return op == OpKind::Output; }
    bool isCallFunction() const { return op == OpKind::CallFunction; }
    const Argument* kwarg(std::string_view key) const;
    // Tensor meta when the node has one.
    const TensorMeta* tensorMeta() const { return meta.isTensor() ? &meta.tensor : nullptr; }
};

// "aten::add.Tensor" -> "add"; "torch.sin" -> "sin"; "operator.getitem" -> "getitem".
std::string_view opBaseName(std::string_view target);
// "aten::add.Tensor" -> "Tensor"; "" when the target names no overload.
std::string_view opOverload(std::string_view target);

} // namespace fxs::graph
