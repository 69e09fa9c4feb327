// Repeated structure: identical modules of a tree (`layers.1 … layers.23` identical to
// `layers.0`), the groups of identical siblings a ModuleTree lists, and, for a graph that names
// nothing, runs of consecutive identical blocks found from node signatures alone.
#pragma once

#include "core/structure/module_tree.h"

#include "core/graph/graph.h"
#include "core/util/cancel.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fxs::structure {

// Sets Module::identicalTo (see module_tree.h) from the modules' structural hashes.
void markIdenticalModules(ModuleTree& tree);

// Groups of at least two identical siblings, largest first; groups inside a module that is
// identical to another are left out (they are listed once, under the first).
std::vector<RepeatedBlock> repeatedBlocksOf(const ModuleTree& tree);

// One run of consecutive identical blocks in graph order.
struct BlockRun {
    std::vector<std::vector<graph::NodeId>> blocks; // each block's nodes, in graph order
};

// Searches a graph without names for runs of consecutive blocks whose nodes have equal
// signatures position by position (structural_hash.h), at least minNodes nodes per block and
// minInstances blocks. A run of n whole periods gives n blocks: of the cuts that keep them all
// (the run may reach a few nodes past them, where the code after the last layer starts like a
// layer), the one crossed by the fewest values is taken — a layer passes on one value (the
// residual stream, however often the next layer reads it; in a backward graph, its gradient),
// a cut inside a layer more. Blocks are then split off where their structural hashes differ
// (a partial repetition keeps only the identical blocks; blocks that differ only in which
// outside values they read are identical). Placeholders are not part of the search; an input
// used only inside one block (and by the output) joins it. Runs do not overlap and come in
// graph order. Near-linear: a few passes over the nodes and edges per candidate period.
std::vector<BlockRun> findBlockRuns(const graph::Graph& graph,
                                    std::span<const std::uint64_t> signatures,
                                    std::size_t minNodes, std::size_t minInstances,
                                    const CancelToken& cancel = CancelToken::none());

} // namespace fxs::structure
