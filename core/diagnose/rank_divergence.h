// Where the ranks of a multi-rank run stop doing the same thing: per rank the sequence of
// compiles, each with its inputs (describe_tensor), Dynamo graph, guards and cache states;
// compared compile id by compile id. The first compile id where ranks differ comes first.
// Graphs are compared without their shape annotations and guards without numbers (object ids
// differ per process), so a shape difference reads as one "input shapes differ", not three.
// Internal to core/diagnose.
#pragma once

#include "core/diagnose/diagnosis.h"
#include "core/model/run.h"

#include <string>
#include <vector>

namespace fxs::diagnose {

// One compile of one rank, as compared.
struct RankCompile {
    model::CompileId compileId;
    std::vector<std::pair<std::string, std::string>> inputs; // (readable source, "[8, 16] float32")
    std::string graphDigest;  // normalised dynamo_output_graph text, hashed; "" when not logged
    std::string guardDigest;  // normalised guards text, hashed; "" when not logged
    std::string cacheStates;  // "aotautograd miss, fx_graph miss"
};

// Per rank (sorted), the compiles in compile id order.
std::vector<std::pair<int, std::vector<RankCompile>>> rankSequences(const model::Run& run);

// Divergences of a run with two or more ranks (none otherwise), first compile id first.
std::vector<Divergence> findDivergence(const model::Run& run);

// Graph code without shape annotations ("f32[8, 16][16, 1]cuda:0" strings) and comments.
std::string normalisedGraphCode(std::string_view code);
// Guard text without object ids, addresses, sizes, GPU indices (device=N), the user-code
// comments and the "Guard latency" line: what two healthy ranks share.
std::string normalisedGuards(std::string_view text);

} // namespace fxs::diagnose
