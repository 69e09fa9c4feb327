// Imports a TorchScript module saved by `torch.jit.trace(...).save(path)`: loads it with
// torch::jit::load, inlines calls and converts the graph into fxscope's IR (targets as
// `aten::` overloads, constants folded into arguments, parameters as get_attr nodes whose
// values come along), so it can be inspected and run like a printed graph. Scripted control
// flow (prim::If/Loop) is not converted: such nodes are reported, not guessed.
#pragma once

#include "core/exec/tensor_handle.h"
#include "core/graph/graph.h"
#include "core/util/diagnostics.h"
#include "core/util/result.h"

#include <memory>
#include <string>

namespace fxs::torchscript {

struct TorchScriptModule {
    // Its text() is the inlined TorchScript graph as printed; converted nodes carry the line
    // (and statement) that printed their TorchScript node.
    graph::GraphPtr graph;
    // Parameter and buffer values by get_attr target ("fc1.weight"): pass as
    // exec::RunOptions::inputs to run the graph with the module's own weights.
    std::shared_ptr<exec::ValueStore> attributes;
    Diagnostics diagnostics; // nodes that could not be converted (kept as unsupported targets)
};

// True when the file looks like a TorchScript archive (a zip holding `*/code/` or
// `*/constants.pkl`; gzip'd or not), from its first bytes, without loading it.
bool looksLikeTorchScript(const std::string& path);

// Reads the file with readFile (special files refused, gzip inflated, size capped) and
// imports it. Errors: Io/Unsupported from reading, Parse when torch::jit::load rejects it,
// Runtime when memory runs out. Never throws.
Result<TorchScriptModule> importTorchScript(const std::string& path);
// The same for an archive already in memory; path names it in messages.
Result<TorchScriptModule> importTorchScriptBytes(std::string bytes, const std::string& path);

} // namespace fxs::torchscript
