// Graph code up to names: the node names a graph code defines (forward's parameters and every
// assigned name) replaced by v0, v1, ... in order of definition, so that two graphs that differ
// only in how their nodes are named compare equal. For cache misses whose `gm` key component
// changed although the graph did not. Internal to core/diagnose.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxs::diagnose {

struct CanonicalGraph {
    std::string text;               // the code with defined names replaced
    std::vector<std::string> names; // the defined names, in order (names[i] became "v<i>")
};

CanonicalGraph canonicalGraphCode(std::string_view code);

// For two codes equal up to names: the first defined name that differs, as (a's, b's).
std::optional<std::pair<std::string, std::string>> firstRename(const CanonicalGraph& a,
                                                               const CanonicalGraph& b);

} // namespace fxs::diagnose
