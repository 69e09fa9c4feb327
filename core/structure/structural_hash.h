// A name-insensitive structural hash of a subgraph: two sets of nodes hash equal when they
// compute the same thing the same way (op kinds, targets, argument structure and constants,
// output dtypes/shapes/strides/devices, edges between them, the dtypes/shapes/devices of the
// values they read from outside), whatever their node names, whichever outside values they read
// and whatever their positions (a dropout's random-seed offset, see nodeSignature). What finds
// identical layers, what the layout caches by, and what a regional compile can key one layer
// by. Not a cache key (no version salt; see core/cache for those).
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fxs::structure {

// Hash of one node alone: op kind, target, output meta, constants and the shape of its
// arguments, with every node reference written as "a node" (no edge information). Constants
// that only say where a node sits are left out: the offset k of
// `prims.inductor_lookup_seed(seeds, k)`, each dropout's own random stream. Equal for
// the corresponding nodes of two identical blocks; the token that repetition search compares.
std::uint64_t nodeSignature(const graph::Graph& g, graph::NodeId id);

// Signatures of every node of g, by NodeId.
std::vector<std::uint64_t> nodeSignatures(const graph::Graph& g);

// Hash of the subgraph made of `nodes` (any order; hashed in graph order). A copy that only
// changes memory layout (`clone(x, memory_format=...)`) is left out, read through to its input:
// it is the compiler's, not the block's code. Edges between
// members are hashed as local positions ("input 2 of this subgraph"); a reference to a node
// outside it as "an outside value" with that value's meta, whichever value it is: the body of
// a block modulo its arguments, so `f(x, y)` hashes like `f(h, h)` (a first layer fed two
// inputs where the others are fed the previous layer's output twice).
// signatures: nodeSignatures(g), to avoid recomputing them; empty computes them on the fly.
// Deterministic across processes and platforms. 0 only for a set of nothing but layout copies.
std::uint64_t structuralHash(const graph::Graph& g, std::span<const graph::NodeId> nodes,
                             std::span<const std::uint64_t> signatures = {});

} // namespace fxs::structure
