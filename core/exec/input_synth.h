// INTERNAL to core/exec: graph inputs. Synthesises placeholder values from their meta with a
// seeded generator (integer inputs kept in a range the graph shows is safe, e.g. embedding
// indices below the table size; variances positive; weights scaled by their fan-in),
// evaluates symbolic sizes, and reads real inputs from a `torch.save` file.
#pragma once

#include "core/graph/graph.h"
#include "core/util/result.h"

#include <ATen/ATen.h>

#include <map>
#include <optional>
#include <string>

namespace fxs::exec::detail {

using SizeEnv = std::map<std::string, std::int64_t>;

struct InputHint {
    std::optional<std::int64_t> bound; // integer values in [0, bound)
    bool positive = false;             // floating values in [0.5, 1.5)
    std::int64_t fanIn = 0;            // a weight: N(0, 1/fanIn) keeps activations O(1)
};

// One hint per node id (only placeholders and get_attr nodes are filled).
std::vector<InputHint> inferInputHints(const graph::Graph& graph, const SizeEnv& sizes);

// Evaluates a symbolic size such as "s0", "2*s1", "s0 + 1", "(s0//2)".
Result<std::int64_t> evalSymExpr(std::string_view expr, const SizeEnv& sizes);

// Makes a value for `node` from `meta` (the node's own meta unless the caller gives another).
// Integers without a hint are drawn from [0, 8).
Result<c10::IValue> synthesizeInput(const graph::Node& node, const graph::ValueMeta& meta,
                                    const InputHint& hint, const SizeEnv& sizes,
                                    c10::Device device, at::Generator& gen);

// Reads a file written by `torch.save({"name": tensor, ...}, path)` (or a list/tuple of
// tensors: positional, keys "0", "1", ...). Tensors come back on the CPU.
Result<std::map<std::string, c10::IValue>> loadInputsFile(const std::string& path);

} // namespace fxs::exec::detail
