// Source scopes of a run of nodes: the calls of one source function that consecutive nodes of
// a graph come from (`# File: modeling_llama.py:132 in rotate_half`), and the name a group of
// nodes takes from the function its nodes share ("rotate_half · modeling_llama.py:132"). What
// names the groups inside a module or a repeated block of a graph that names no modules; not
// module recovery (structure.h), and it reads only the node's innermost frame — the one a
// printed graph keeps — so a method reads `forward`, not its class.
#pragma once

#include "core/graph/graph.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace fxs::structure {

// "fn · file.py:line": fn and the base name of the file of `source`, at its line.
std::string sourceScopeLabel(const graph::SourceLoc& source);

// The label of the function every node of `nodes` that has a source comes from, at the line of
// the first of them ("rotate_half · modeling_llama.py:132"); "" when they come from more than
// one function (file and name) or none has a source.
std::string commonSourceLabel(const graph::Graph& g, std::span<const graph::NodeId> nodes);

// commonSourceLabel when the nodes share one function, else "first … last": the labels of the
// first and the last node that has a source ("forward · modeling_llama.py:175 … forward ·
// modeling_llama.py:280"); "" when none has a source.
std::string sourceSpanLabel(const graph::Graph& g, std::span<const graph::NodeId> nodes);

// Splits `nodes` (graph order) into the calls they come from: [begin, end) ranges of at least
// two nodes adjacent in the graph (ids n, n+1, ...) of one function whose lines run on in the graph's direction (rising in
// a forward graph, falling in a backward one) by at most kMaxLineStep lines at a time; a step
// back or a longer jump starts another call (two `forward`s of one file, the RMSNorm at line 65
// after the MLP at 175). Nodes without a source, and single nodes, are in no range.
inline constexpr int kMaxLineStep = 40;
std::vector<std::pair<std::size_t, std::size_t>> sourceCalls(const graph::Graph& g,
                                                            std::span<const graph::NodeId> nodes);

} // namespace fxs::structure
