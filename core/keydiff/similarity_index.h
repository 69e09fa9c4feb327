// Counts, for a probe key, the components (label and digest; text without a digest) each key
// of a pool shares with it — the "most components in common" measure the lookup matcher uses
// to find a partner when compile ids do not pair. Keys are grouped (PyTorch's FX-graph and
// AOTAutograd caches); only keys of the probe's group are scored. A component held by most of
// a group is stored as the list of keys that LACK it, so each probe component costs
// min(f, n − f) instead of f. Not the nearest entry of a stored cache (nearest_entry.h).
#pragma once

#include "core/keydiff/key_component.h"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace fxs::keydiff {

struct IndexedKey {
    std::vector<Component> components;
    int group = 0; // 0 ≤ group < kSimilarityGroups
};

inline constexpr int kSimilarityGroups = 4;

class SimilarityIndex {
public:
    explicit SimilarityIndex(const std::vector<IndexedKey>& pool);

    // scores[i] = components pool[i] shares with probe, for every key i of probe's group
    // (distinct (label, digest) pairs); other entries 0. scores is resized to the pool.
    void score(std::span<const Component> probe, int group, std::vector<int>& scores) const;
    // The pool indices of a group, ascending.
    const std::vector<std::uint32_t>& members(int group) const;

private:
    struct Postings {
        std::vector<std::uint32_t> ids;
        bool complement = false; // ids are the group's keys that do NOT hold the component
    };
    std::size_t m_poolSize = 0;
    std::vector<std::vector<std::uint32_t>> m_members;
    std::vector<std::unordered_map<std::uint64_t, Postings>> m_index;
};

} // namespace fxs::keydiff
