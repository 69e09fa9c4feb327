// Chooses, among stored keys, the one a wanted key is best explained against: the nearest
// entry = the fewest differing components (component_diff.h's pairing: changed, only in A,
// only in B); among those the fewest differing fields (a "k=v" or TensorMetadata component
// counts each field that differs, any other changed component 1); ties: the most recent.
// Used by the region cache's miss explainer. Not for pairing a run's lookups, whose partners
// follow compile ids first (explain/lookup_matcher, with similarity_index.h as its fallback).
#pragma once

#include "core/keydiff/key_component.h"

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace fxs::keydiff {

struct Distance {
    std::size_t components = 0; // changed + only in A + only in B
    std::size_t fields = 0;     // differing fields of the changed components, +1 per only-in
    std::size_t common = 0;     // paired components with equal values (not part of the order)

    // Components first, then fields; common does not order.
    std::strong_ordering operator<=>(const Distance& o) const
    {
        if (const auto c = components <=> o.components; c != 0) {
            return c;
        }
        return fields <=> o.fields;
    }
    bool operator==(const Distance& o) const { return (*this <=> o) == 0; }
};

Distance distance(std::span<const Component> a, std::span<const Component> b);

struct Candidate {
    std::span<const Component> components;
    std::int64_t recency = 0; // larger = more recent (e.g. last use in epoch ms)
};

struct Nearest {
    std::optional<std::size_t> index; // into the candidates; none when there are none
    Distance distance;
};

// The nearest candidate to wanted: smallest distance; ties: the largest recency, then the
// first listed. Linear in the candidates' components.
Nearest nearestEntry(std::span<const Component> wanted, std::span<const Candidate> candidates);

} // namespace fxs::keydiff
